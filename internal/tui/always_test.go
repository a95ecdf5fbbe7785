package tui

import (
	"slices"
	"strings"
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

// TestDialogNamesSessionCommand: the question and the session option of
// a shell call name what an answer for the session covers, a program's
// subcommand included ("git add", not "git", which would read as every
// git command).
func TestDialogNamesSessionCommand(t *testing.T) {
	for _, tt := range []struct {
		cmd, question, session string
	}{
		{"git add f.go", "Allow execution of: git add?", "Allow git add for this session"},
		{"git add a && git add b && ls -la", "Allow execution of: git add, ls?", "Allow git add, ls for this session"},
		{"touch x", "Allow execution of: touch?", "Allow touch for this session"},
		// Not known before it runs: the tool's roots.
		{"$X status", "Allow execution of: $X?", "Allow $X for this session"},
	} {
		det := tool.ConfirmationDetails{Type: tool.ConfirmExec, Command: tt.cmd, RootCommand: "git", RootCommands: []string{strings.Fields(tt.cmd)[0]}}
		if got := confirmQuestion(&det); got != tt.question {
			t.Errorf("%q: question %q, want %q", tt.cmd, got, tt.question)
		}
		call := &agent.ToolCall{ID: "c", Name: "run_shell_command", Confirmation: &agent.Confirmation{Details: &det}}
		d := newDialog(call, make(chan tool.Decision, 1), "")
		if got := d.options[1].label; got != tt.session {
			t.Errorf("%q: session option %q, want %q", tt.cmd, got, tt.session)
		}
	}
}
