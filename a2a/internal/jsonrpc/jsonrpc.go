// Package jsonrpc is JSON-RPC 2.0 over HTTP for server faces: parsing one
// request from a POST body, writing its result or error, and streaming
// results as Server-Sent Events, one response per event.
//
// It knows nothing of the methods served: a face decodes params into its
// own types (DecodeParams) and adds its own error codes beside the
// standard ones here. Batches are not supported: a body that is not one
// JSON object is an invalid request.
//
// Request ids are echoed byte for byte; WithParams answers a method with
// its decoded params; Stream writes one response per SSE data: line, and
// KeepAliveWhile keeps a request that waits for its turn alive before its
// first event. The a2a package adds its own codes and methods (a2a.Error
// is an alias of Error).
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/castor-dev/castor/internal/jsonerr"
)

// The error codes JSON-RPC 2.0 reserves (§5.1).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Errorf returns an error with code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// AsError turns any error into the error object sent for it; only *Error
// values say more than "internal error", so that what a handler failed on
// inside does not leak unless it chose to say it.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Errorf(CodeInternalError, "Internal error: %v", err)
}

// Request is a JSON-RPC request as received. ID stays raw so that it is
// echoed byte for byte; Params is nil when absent or null.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// response is a JSON-RPC response: exactly one of Result and Error is set
// (WriteResult writes a null result itself).
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// NullID is the id of a response to a request whose id is unknown.
var NullID = json.RawMessage("null")

// ParseRequest decodes one JSON-RPC request. It returns the request, with
// its id, even when the request is invalid, so that the error can carry
// the id; it returns no request when the id could not be read.
func ParseRequest(body []byte) (*Request, *Error) {
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		return nil, Errorf(CodeParseError, "Invalid JSON payload")
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		// No batches: any non-object is invalid.
		return nil, Errorf(CodeInvalidRequest, "Request payload validation error: a request must be a JSON object")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return nil, Errorf(CodeParseError, "Invalid JSON payload")
	}
	req := &Request{ID: NullID}
	if id, ok := fields["id"]; ok {
		if !validID(id) {
			return nil, Errorf(CodeInvalidRequest, "Request payload validation error: id must be a string, a number or null")
		}
		req.ID = id
	}
	invalid := func(msg string) (*Request, *Error) {
		return req, Errorf(CodeInvalidRequest, "Request payload validation error: %s", msg)
	}
	if v, ok := fields["jsonrpc"]; !ok || json.Unmarshal(v, &req.JSONRPC) != nil || req.JSONRPC != "2.0" {
		return invalid(`jsonrpc must be "2.0"`)
	}
	m, ok := fields["method"]
	if !ok || json.Unmarshal(m, &req.Method) != nil || req.Method == "" {
		return invalid("method must be a non-empty string")
	}
	if p, ok := fields["params"]; ok && !bytes.Equal(bytes.TrimSpace(p), []byte("null")) {
		pt := bytes.TrimSpace(p)
		if len(pt) == 0 || (pt[0] != '{' && pt[0] != '[') {
			return invalid("params must be an object")
		}
		req.Params = pt
	}
	return req, nil
}

// validID reports whether raw, valid JSON, is a string, a number or null
// (JSON-RPC 2.0 §4).
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"', 'n':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// DecodeParams unmarshals params, which must be an object, into v; missing
// or mistyped params are invalid params.
func DecodeParams(raw json.RawMessage, v any) *Error {
	if len(raw) == 0 {
		return Errorf(CodeInvalidParams, "Invalid parameters: params are required")
	}
	if raw[0] != '{' {
		return Errorf(CodeInvalidParams, "Invalid parameters: params must be an object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return Errorf(CodeInvalidParams, "Invalid parameters: %s", jsonerr.Describe(err))
	}
	return nil
}

// WithParams decodes params as P (DecodeParams) and, when they decode,
// answers the method with f.
func WithParams[P any](params json.RawMessage, f func(*P) (any, *Error)) (any, *Error) {
	var p P
	if e := DecodeParams(params, &p); e != nil {
		return nil, e
	}
	return f(&p)
}

// WriteJSON writes v as an application/json body with status, ending in
// a newline.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"response encoding failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// WriteResult answers request id with result, HTTP 200.
func WriteResult(w http.ResponseWriter, id json.RawMessage, result any) {
	if result == nil {
		// A null result must still be present: omitempty would drop it.
		WriteJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": id, "result": nil})
		return
	}
	WriteJSON(w, http.StatusOK, response{JSONRPC: "2.0", ID: id, Result: result})
}

// WriteError answers request id (nil: unknown) with e and HTTP status.
func WriteError(w http.ResponseWriter, status int, id json.RawMessage, e *Error) {
	if id == nil {
		id = NullID
	}
	WriteJSON(w, status, response{JSONRPC: "2.0", ID: id, Error: e})
}
