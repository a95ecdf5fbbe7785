package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// TestDialogAllowAlwaysAndSave checks where "Allow always and save" is
// offered (after the session's choices, before the editor, only when the
// session saves answers) and that choosing it answers
// proceed_always_and_save.
func TestDialogAllowAlwaysAndSave(t *testing.T) {
	const save = "~/.gemini/policies/auto-saved.toml"
	tests := []struct {
		name string
		det  tool.ConfirmationDetails
		save string
		want []tool.Outcome
	}{
		{"exec off", tool.ConfirmationDetails{Type: tool.ConfirmExec, RootCommands: []string{"git"}}, "",
			[]tool.Outcome{tool.ProceedOnce, tool.ProceedAlways, tool.Cancel}},
		{"exec", tool.ConfirmationDetails{Type: tool.ConfirmExec, RootCommands: []string{"git"}}, save,
			[]tool.Outcome{tool.ProceedOnce, tool.ProceedAlways, tool.ProceedAlwaysSave, tool.Cancel}},
		{"edit", tool.ConfirmationDetails{Type: tool.ConfirmEdit, FileName: "a.txt", NewContent: "x"}, save,
			[]tool.Outcome{tool.ProceedOnce, tool.ProceedAlways, tool.ProceedAlwaysSave, tool.ModifyWithEditor, tool.Cancel}},
		{"mcp", tool.ConfirmationDetails{Type: tool.ConfirmMCP, ServerName: "s", ToolName: "t"}, save,
			[]tool.Outcome{tool.ProceedOnce, tool.ProceedAlwaysTool, tool.ProceedAlwaysServer, tool.ProceedAlwaysSave, tool.Cancel}},
		{"info", tool.ConfirmationDetails{Type: tool.ConfirmInfo, Prompt: "fetch"}, save,
			[]tool.Outcome{tool.ProceedOnce, tool.ProceedAlways, tool.ProceedAlwaysSave, tool.Cancel}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			det := tt.det
			call := &agent.ToolCall{ID: "c", Name: "x", Confirmation: &agent.Confirmation{Details: &det}}
			reply := make(chan tool.Decision, 1)
			d := newDialog(call, reply, tt.save)
			var got []tool.Outcome
			for _, o := range d.options {
				got = append(got, o.outcome)
				if o.outcome == tool.ProceedAlwaysSave && (o.label != "Allow always and save" || o.hint != save) {
					t.Errorf("option %q, hint %q", o.label, o.hint)
				}
			}
			if strings.Join(outcomes(got), " ") != strings.Join(outcomes(tt.want), " ") {
				t.Fatalf("options %v, want %v", got, tt.want)
			}
			if tt.save == "" {
				return
			}
			m, _ := newTestModel(t)
			m.width = 100
			m.dialog = d
			if view := m.renderDialog(); !strings.Contains(view, "Allow always and save "+save) {
				t.Errorf("the dialog does not show the file:\n%s", view)
			}
			m.Update(confirmMsg{call: call, reply: reply})
			for i, o := range m.dialog.options {
				if o.outcome == tool.ProceedAlwaysSave {
					t.Errorf("a session that does not save answers offers them (option %d)", i+1)
				}
			}
			m.dialog = d
			key := rune('1' + len(tt.want) - 2)
			if tt.name == "edit" {
				key--
			}
			m.dialogKey(tea.KeyPressMsg{Code: key, Text: string(key)})
			if dec := <-reply; dec.Outcome != tool.ProceedAlwaysSave {
				t.Errorf("key %c gave %s", key, dec.Outcome)
			}
		})
	}
}

func outcomes(os []tool.Outcome) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = string(o)
	}
	return out
}
