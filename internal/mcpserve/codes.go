package mcpserve

import (
	"context"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// WithErrorCodes wraps a transport so that no error response leaves with
// JSON-RPC code 0, which the SDK gives an error that is not its own
// jsonrpc.Error: above all a request sent before initialize ("method
// ... is invalid during session initialization"). Code 0 belongs to no
// class a client can act on; such a request is an invalid request
// (-32600) in its state, and any other uncoded error an internal one
// (-32603), its message kept.
func WithErrorCodes(t mcp.Transport) mcp.Transport { return codedTransport{t} }

type codedTransport struct{ mcp.Transport }

func (t codedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return codedConn{c}, nil
}

type codedConn struct{ mcp.Connection }

func (c codedConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Response); ok && r.Error != nil {
		r.Error = coded(r.Error)
	}
	return c.Connection.Write(ctx, m)
}

// coded is err with a JSON-RPC code other than 0.
func coded(err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != 0 {
		return err
	}
	code := int64(jsonrpc.CodeInternalError)
	if strings.Contains(err.Error(), "invalid during session initialization") {
		code = jsonrpc.CodeInvalidRequest
	}
	out := &jsonrpc.Error{Code: code, Message: err.Error()}
	if we != nil {
		out.Data = we.Data
	}
	return out
}
