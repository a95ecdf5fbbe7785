package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCoded(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int64
	}{
		{"the SDK's own code kept", &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "x"}, jsonrpc.CodeMethodNotFound},
		{"wrapped, kept", fmt.Errorf("calling: %w", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "x"}), jsonrpc.CodeInvalidParams},
		{"before initialize", errors.New(`method "tools/list" is invalid during session initialization`), jsonrpc.CodeInvalidRequest},
		{"any other plain error", errors.New("disk full"), jsonrpc.CodeInternalError},
		{"a wire error without a code", &jsonrpc.Error{Message: "x"}, jsonrpc.CodeInternalError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := coded(tt.err)
			var we *jsonrpc.Error
			if !errors.As(got, &we) || we.Code != tt.code || got.Error() != tt.err.Error() {
				t.Errorf("coded(%v) = %#v, want code %d and the message kept", tt.err, got, tt.code)
			}
		})
	}
}

// A request before initialize reaches the client as -32600 through the
// wrapped transport (the SDK alone answers it with code 0).
func TestWithErrorCodesBeforeInitialize(t *testing.T) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, WithErrorCodes(st), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	id, _ := jsonrpc.MakeID(float64(1))
	if err := conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "tools/list", Params: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	m, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := m.(*jsonrpc.Response)
	var we *jsonrpc.Error
	if !ok || !errors.As(r.Error, &we) || we.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("answer %#v, want error -32600", m)
	}
}
