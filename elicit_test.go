package castor_test

import (
	"context"
	"testing"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/internal/sdkopts"
	"github.com/castor-dev/castor/mcp"
)

func TestWithElicit(t *testing.T) {
	o := sdkopts.Resolve([]castor.Option{castor.WithElicit(func(context.Context, mcp.ElicitRequest) (mcp.ElicitResult, error) {
		return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
	})})
	if o.Elicit == nil {
		t.Fatal("WithElicit did not set the callback")
	}
	if r, _ := o.Elicit(context.Background(), mcp.ElicitRequest{}); r.Action != mcp.ElicitCancel {
		t.Errorf("got %+v", r)
	}
}
