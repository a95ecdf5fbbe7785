package a2asession

import (
	"context"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/mcp"
)

func TestWithElicit(t *testing.T) {
	req := mcp.ElicitRequest{Server: "crm", Mode: mcp.ElicitForm, Message: "Name?"}
	tests := []struct {
		name   string
		elicit mcp.ElicitFunc
		want   mcp.ElicitAction
		warn   string
	}{
		{"declined with why", nil, mcp.ElicitDecline, `MCP server 'crm' asked: "Name?". Declined: A2A clients cannot be asked`},
		{"caller's answer kept", func(context.Context, mcp.ElicitRequest) (mcp.ElicitResult, error) {
			return mcp.ElicitResult{Action: mcp.ElicitAccept}, nil
		}, mcp.ElicitAccept, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warns []string
			o := withElicit(setup.Options{Elicit: tt.elicit, Warn: func(s string) { warns = append(warns, s) }})
			got, err := o.Elicit(context.Background(), req)
			if err != nil || got.Action != tt.want {
				t.Errorf("got %+v, %v", got, err)
			}
			if tt.warn != "" && (len(warns) != 1 || !strings.HasPrefix(warns[0], tt.warn)) || tt.warn == "" && len(warns) > 0 {
				t.Errorf("warnings %q, want %q", warns, tt.warn)
			}
		})
	}
}
