package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestTUIPlanApproveExecute: the model enters plan mode (approved in the
// info dialog), writes its plan, and asks for approval; the plan dialog
// shows the plan, and "automatically accept edits" lets the
// implementation write without another question.
func TestTUIPlanApproveExecute(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	target := filepath.Join(e.WS, "feature.txt")
	e.Srv.Enqueue(
		fakegemini.Call("enter_plan_mode", map[string]any{"reason": "design first"}),
		fakegemini.Call("write_file", map[string]any{"file_path": "feature-x.md", "content": "# Feature X\n\n1. Create feature.txt with done\n"}),
		fakegemini.Call("exit_plan_mode", map[string]any{"plan_filename": "feature-x.md"}),
		fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "done\n"}),
		fakegemini.Text("Implemented the plan."),
	)
	tm := e.StartTUI()
	tm.Submit("Plan feature x, then build it")
	tm.WaitFor("This will restrict the agent to read-only tools")
	tm.Keys("Enter")
	s := tm.WaitFor("Ready to start implementation?")
	if !strings.Contains(s, "1. Create feature.txt with done") || !strings.Contains(s, "Yes, automatically accept edits") {
		t.Fatalf("plan dialog:\n%s", s)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("feature.txt written before the plan was approved")
	}
	tm.Keys("Enter")
	tm.WaitFor("Implemented the plan.")
	if got, _ := os.ReadFile(target); string(got) != "done\n" {
		t.Errorf("feature.txt = %q", got)
	}
	_, resp := e2etest.FunctionResponse(t, e.Srv.Requests()[3].LastContent(), 0)
	if out, _ := resp["output"].(string); !strings.HasPrefix(out, "Plan approved. Switching to Auto-Edit mode") {
		t.Errorf("exit_plan_mode answered %v", resp)
	}
	// /plan copy puts the approved plan on the clipboard (OSC 52, which
	// tmux keeps as a paste buffer once told to).
	tm.Tmux("set-option", "-s", "set-clipboard", "on")
	tm.Submit("/plan copy")
	tm.WaitFor("Plan copied to clipboard (feature-x.md).")
	if got := tm.Tmux("show-buffer"); got != "# Feature X\n\n1. Create feature.txt with done\n" {
		t.Errorf("clipboard = %q", got)
	}
}

// TestTUIPlanRejectedWithFeedback sends the plan back with a line of
// feedback, which the model receives.
func TestTUIPlanRejectedWithFeedback(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(
		fakegemini.Call("write_file", map[string]any{"file_path": "p.md", "content": "# P\n\nstep one\n"}),
		fakegemini.Call("exit_plan_mode", map[string]any{"plan_filename": "p.md"}),
		fakegemini.Text("Will revise."),
	)
	tm := e.StartTUI("--approval-mode", "plan")
	tm.Submit("plan it")
	tm.WaitFor("Ready to start implementation?")
	tm.Keys("3")
	tm.WaitFor("Enter sends")
	tm.TypeText("use two steps")
	tm.Keys("Enter")
	tm.WaitFor("Will revise.")
	_, resp := e2etest.FunctionResponse(t, e.Srv.LastRequest().LastContent(), 0)
	if out, _ := resp["output"].(string); !strings.HasPrefix(out, "Plan rejected. User feedback: use two steps") {
		t.Errorf("exit_plan_mode answered %v", resp)
	}
}

// TestTUIAskUser answers a choice question and a text question.
func TestTUIAskUser(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(
		fakegemini.Call("ask_user", map[string]any{"questions": []any{
			map[string]any{"question": "Which database?", "header": "Database", "type": "choice", "options": []any{
				map[string]any{"label": "Postgres", "description": "relational server"},
				map[string]any{"label": "SQLite", "description": "embedded"},
			}},
			map[string]any{"question": "Project name?", "header": "Name", "type": "text"},
		}}),
		fakegemini.Text("Noted your answers."),
	)
	tm := e.StartTUI()
	tm.Submit("set it up")
	s := tm.WaitFor("Which database?")
	if !strings.Contains(s, "embedded") || !strings.Contains(s, "Other") {
		t.Fatalf("question dialog:\n%s", s)
	}
	tm.Keys("Down", "Enter")
	tm.WaitFor("Project name?")
	tm.TypeText("acme")
	tm.Keys("Enter")
	tm.WaitFor("Noted your answers.")
	_, resp := e2etest.FunctionResponse(t, e.Srv.LastRequest().LastContent(), 0)
	if resp["output"] != `{"answers":{"0":"SQLite","1":"acme"}}` {
		t.Errorf("ask_user answered %v", resp)
	}
}
