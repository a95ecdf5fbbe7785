package tui

import (
	"slices"
	"testing"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// TestDialogOnceOnly: under security.disableAlwaysAllow the dialog keeps
// allow once, modify and no, whatever the kind of call.
func TestDialogOnceOnly(t *testing.T) {
	tests := []struct {
		name string
		det  tool.ConfirmationDetails
		save string
		want []tool.Outcome
	}{
		{"exec", tool.ConfirmationDetails{Type: tool.ConfirmExec, RootCommands: []string{"git"}}, "",
			[]tool.Outcome{tool.ProceedOnce, tool.Cancel}},
		{"exec saving", tool.ConfirmationDetails{Type: tool.ConfirmExec, RootCommands: []string{"git"}}, "~/p.toml",
			[]tool.Outcome{tool.ProceedOnce, tool.Cancel}},
		{"edit", tool.ConfirmationDetails{Type: tool.ConfirmEdit, FileName: "a.txt", NewContent: "x"}, "",
			[]tool.Outcome{tool.ProceedOnce, tool.ModifyWithEditor, tool.Cancel}},
		{"mcp", tool.ConfirmationDetails{Type: tool.ConfirmMCP, ServerName: "s", ToolName: "t"}, "",
			[]tool.Outcome{tool.ProceedOnce, tool.Cancel}},
		{"info", tool.ConfirmationDetails{Type: tool.ConfirmInfo, Prompt: "fetch"}, "",
			[]tool.Outcome{tool.ProceedOnce, tool.Cancel}},
	}
	for _, tt := range tests {
		det := tt.det
		call := &agent.ToolCall{ID: "c", Name: "x", Confirmation: &agent.Confirmation{Details: &det}}
		d := newDialog(call, make(chan tool.Decision, 1), tt.save)
		d.onceOnly()
		var got []tool.Outcome
		for _, o := range d.options {
			got = append(got, o.outcome)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: options %v, want %v", tt.name, got, tt.want)
		}
	}
}
