package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// JSON-RPC and A2A error codes (A2A 0.3.0 §8).
const (
	CodeParseError                   = -32700
	CodeInvalidRequest               = -32600
	CodeMethodNotFound               = -32601
	CodeInvalidParams                = -32602
	CodeInternalError                = -32603
	CodeTaskNotFound                 = -32001
	CodeTaskNotCancelable            = -32002
	CodePushNotificationNotSupported = -32003
	CodeUnsupportedOperation         = -32004
	CodeContentTypeNotSupported      = -32005
	CodeInvalidAgentResponse         = -32006
	CodeExtendedCardNotConfigured    = -32007
	// CodeVersionNotSupported answers an A2A-Version header naming a
	// version this server does not speak (A2A 1.0).
	CodeVersionNotSupported = -32009
)

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("a2a error %d: %s", e.Code, e.Message) }

func rpcError(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func errTaskNotFound(id string) *Error {
	return rpcError(CodeTaskNotFound, "Task not found: %s", id)
}

func errInvalidParams(format string, args ...any) *Error {
	return rpcError(CodeInvalidParams, format, args...)
}

// asRPCError turns any error into the JSON-RPC error sent for it; only
// *Error values say more than "internal error".
func asRPCError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return rpcError(CodeInternalError, "Internal error: %v", err)
}

// rpcRequest is a JSON-RPC request as received. ID stays raw so that it is
// echoed byte for byte.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// nullID is the id of a response to a request whose id is unknown.
var nullID = json.RawMessage("null")

// parseRequest decodes one JSON-RPC request. It returns the request id
// when it could be read, so that an invalid request's error still
// carries it.
func parseRequest(body []byte) (*rpcRequest, *Error) {
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		return nil, rpcError(CodeParseError, "Invalid JSON payload")
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		// Batches are not part of A2A; any non-object is invalid.
		return nil, rpcError(CodeInvalidRequest, "Request payload validation error: a request must be a JSON object")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return nil, rpcError(CodeParseError, "Invalid JSON payload")
	}
	req := &rpcRequest{ID: nullID}
	if id, ok := fields["id"]; ok {
		if !validID(id) {
			return nil, rpcError(CodeInvalidRequest, "Request payload validation error: id must be a string, a number or null")
		}
		req.ID = id
	}
	invalid := func(msg string) (*rpcRequest, *Error) {
		return req, rpcError(CodeInvalidRequest, "Request payload validation error: %s", msg)
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

// decodeParams unmarshals params into v; a missing or mistyped field is
// invalid params.
func decodeParams(raw json.RawMessage, v any) *Error {
	if len(raw) == 0 {
		return errInvalidParams("Invalid parameters: params are required")
	}
	if raw[0] != '{' {
		return errInvalidParams("Invalid parameters: params must be an object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return errInvalidParams("Invalid parameters: %v", err)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"response encoding failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func writeRPCResult(w http.ResponseWriter, id json.RawMessage, result any) {
	if result == nil {
		// A null result (pushNotificationConfig/delete) must still be
		// present: omitempty would drop it.
		writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": id, "result": nil})
		return
	}
	writeJSON(w, http.StatusOK, rpcResponse{JSONRPC: "2.0", ID: id, Result: result})
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, e *Error) {
	if id == nil {
		id = nullID
	}
	writeJSON(w, status, rpcResponse{JSONRPC: "2.0", ID: id, Error: e})
}

// sseWriter writes Server-Sent Events, one JSON-RPC response per event on
// a single "data: " line, as the A2A JSON-RPC transport frames them.
type sseWriter struct {
	mu      sync.Mutex
	w       io.Writer
	flusher http.Flusher
	id      json.RawMessage
	started bool
	hw      http.ResponseWriter
}

func newSSEWriter(w http.ResponseWriter, id json.RawMessage) *sseWriter {
	f, _ := w.(http.Flusher)
	return &sseWriter{w: w, hw: w, flusher: f, id: id}
}

func (s *sseWriter) start() {
	if s.started {
		return
	}
	s.started = true
	h := s.hw.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	s.hw.WriteHeader(http.StatusOK)
}

// event writes one result event.
func (s *sseWriter) event(result any) error {
	b, err := json.Marshal(rpcResponse{JSONRPC: "2.0", ID: s.id, Result: result})
	if err != nil {
		return err
	}
	return s.write("data: " + string(b) + "\n\n")
}

// fail writes an error after the stream started, as @a2a-js/sdk does.
func (s *sseWriter) fail(e *Error) error {
	b, err := json.Marshal(rpcResponse{JSONRPC: "2.0", ID: s.id, Error: e})
	if err != nil {
		return err
	}
	return s.write("event: error\ndata: " + string(b) + "\n\n")
}

// keepAlive writes an SSE comment, which clients ignore, so that proxies
// do not cut an idle stream.
func (s *sseWriter) keepAlive() error { return s.write(": keep-alive\n\n") }

func (s *sseWriter) write(frame string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.start()
	if _, err := io.WriteString(s.w, frame); err != nil {
		return err
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
	return nil
}
