package a2a

import "github.com/castor-dev/castor/a2a/internal/jsonrpc"

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

// rpcError is a JSON-RPC error object, the machinery's: the server
// answers clients with it and never hands one to a program.
type rpcError = jsonrpc.Error

func errTaskNotFound(id string) *rpcError {
	return jsonrpc.Errorf(CodeTaskNotFound, "Task not found: %s", id)
}

func errInvalidParams(format string, args ...any) *rpcError {
	return jsonrpc.Errorf(CodeInvalidParams, format, args...)
}
