package acp

import (
	"slices"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// TestPermissionOptionsOnceOnly: under security.disableAlwaysAllow a
// permission request offers allow once and reject only.
func TestPermissionOptionsOnceOnly(t *testing.T) {
	tests := []struct {
		name string
		det  *tool.ConfirmationDetails
		save bool
	}{
		{"no details", nil, false},
		{"edit", &tool.ConfirmationDetails{Type: tool.ConfirmEdit}, true},
		{"exec", &tool.ConfirmationDetails{Type: tool.ConfirmExec, RootCommand: "git"}, true},
		{"mcp", &tool.ConfirmationDetails{Type: tool.ConfirmMCP, ServerName: "s", ToolName: "t"}, false},
	}
	want := []sdk.PermissionOptionId{sdk.PermissionOptionId(tool.ProceedOnce), sdk.PermissionOptionId(tool.Cancel)}
	for _, tt := range tests {
		c := &agent.ToolCall{ID: "c", Name: "x"}
		if tt.det != nil {
			c.Confirmation = &agent.Confirmation{Details: tt.det}
		}
		all := permissionOptions(c, tt.save)
		var got []sdk.PermissionOptionId
		for _, o := range onceOnly(all) {
			got = append(got, o.OptionId)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: options %v, want %v", tt.name, got, want)
		}
		if len(all) <= len(want) {
			t.Errorf("%s: onceOnly changed its input: %v", tt.name, all)
		}
	}
}
