package a2a

import (
	"encoding/json"
	"net/http"

	"github.com/castor-dev/castor/internal/jsonrpc"
)

// JSON-RPC and A2A error codes (A2A 0.3.0 §8).
const (
	CodeParseError                   = jsonrpc.CodeParseError
	CodeInvalidRequest               = jsonrpc.CodeInvalidRequest
	CodeMethodNotFound               = jsonrpc.CodeMethodNotFound
	CodeInvalidParams                = jsonrpc.CodeInvalidParams
	CodeInternalError                = jsonrpc.CodeInternalError
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
type Error = jsonrpc.Error

// The framing is internal/jsonrpc's; the face keeps short names for it.
type rpcRequest = jsonrpc.Request

var (
	nullID         = jsonrpc.NullID
	asRPCError     = jsonrpc.AsError
	parseRequest   = jsonrpc.ParseRequest
	decodeParams   = jsonrpc.DecodeParams
	writeJSON      = jsonrpc.WriteJSON
	writeRPCResult = jsonrpc.WriteResult
	writeRPCError  = jsonrpc.WriteError
)

func rpcError(code int, format string, args ...any) *Error {
	return jsonrpc.Errorf(code, format, args...)
}

func errTaskNotFound(id string) *Error {
	return rpcError(CodeTaskNotFound, "Task not found: %s", id)
}

func errInvalidParams(format string, args ...any) *Error {
	return rpcError(CodeInvalidParams, format, args...)
}

// sseWriter is a 0.3 stream: A2A's JSON-RPC transport frames one
// response per event, as jsonrpc.Stream does.
type sseWriter struct{ *jsonrpc.Stream }

func newSSEWriter(w http.ResponseWriter, id json.RawMessage) *sseWriter {
	return &sseWriter{jsonrpc.NewStream(w, id)}
}

func (s *sseWriter) start()              { s.Start() }
func (s *sseWriter) event(v any) error   { return s.Event(v) }
func (s *sseWriter) fail(e *Error) error { return s.Fail(e) }
func (s *sseWriter) keepAlive() error    { return s.KeepAlive() }
