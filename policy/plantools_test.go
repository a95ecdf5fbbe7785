package policy

import (
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// Gemini CLI 0.61's plan.toml, yolo.toml and non-interactive.toml rules
// for the tools that move between modes or ask the user.
func TestPlanModeRules(t *testing.T) {
	root := t.TempDir()
	plans := filepath.Join(root, ".gemini", "tmp", "p", "s", "plans")
	edit := func(path string) Call {
		return Call{Name: "write_file", Kind: tool.KindEdit, Args: map[string]any{"file_path": path, "content": "x"}}
	}
	tests := []struct {
		name        string
		mode        Mode
		interactive bool
		call        Call
		want        Decision
		msg         string
	}{
		{"enter asks", ModeDefault, true, Call{Name: "enter_plan_mode", Kind: tool.KindPlan}, Ask, ""},
		{"enter headless allowed", ModeDefault, false, Call{Name: "enter_plan_mode", Kind: tool.KindPlan}, Allow, ""},
		{"enter in plan refused", ModePlan, true, Call{Name: "enter_plan_mode", Kind: tool.KindPlan}, Deny, msgAlreadyPlan},
		{"enter in interactive yolo refused", ModeYolo, true, Call{Name: "enter_plan_mode", Kind: tool.KindPlan}, Deny, deniedByPolicy},
		{"exit outside plan refused", ModeDefault, true, Call{Name: "exit_plan_mode", Kind: tool.KindPlan}, Deny, msgNotPlan},
		{"exit in plan asks", ModePlan, true, Call{Name: "exit_plan_mode", Kind: tool.KindPlan}, Ask, ""},
		{"exit in headless plan allowed", ModePlan, false, Call{Name: "exit_plan_mode", Kind: tool.KindPlan}, Allow, ""},
		{"ask_user asks even in yolo", ModeYolo, true, Call{Name: "ask_user", Kind: tool.KindCommunicate}, Ask, ""},
		{"ask_user headless refused", ModeYolo, false, Call{Name: "ask_user", Kind: tool.KindCommunicate}, Deny, deniedByPolicy},
		{"plan file by name", ModePlan, true, edit("feature-x.md"), Allow, ""},
		{"plan file by absolute path", ModePlan, true, edit(filepath.Join(plans, "x.md")), Allow, ""},
		{"plan file not markdown", ModePlan, true, edit("x.go"), Deny, msgPlanEdit},
		{"source edit in plan", ModePlan, true, edit(filepath.Join(root, "main.md")), Deny, msgPlanEdit},
		{"escape from plans dir", ModePlan, true, edit("../../x.md"), Deny, msgPlanEdit},
		{"read in plan", ModePlan, true, Call{Name: "read_file", Kind: tool.KindRead}, Allow, ""},
		{"shell in plan", ModePlan, true, Call{Name: "run_shell_command", Kind: tool.KindExecute, Args: map[string]any{"command": "ls"}}, Deny, msgPlanReadOnly},
		{"web_fetch in plan asks", ModePlan, true, Call{Name: "web_fetch", Kind: tool.KindFetch}, Ask, ""},
		{"investigator subagent in plan", ModePlan, true, Call{Name: "invoke_agent", Kind: tool.KindAgent, Args: map[string]any{"agent_name": "codebase_investigator"}}, Allow, ""},
		{"background list asks", ModeDefault, true, Call{Name: "list_background_processes", Kind: tool.KindRead}, Ask, ""},
		{"update_topic allowed", ModeDefault, false, Call{Name: "update_topic", Kind: tool.KindThink}, Allow, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Options{Mode: tt.mode, Interactive: tt.interactive, Workspace: tool.NewWorkspace(root), PlansDir: plans})
			d, msg := e.Decide(tt.call)
			if d != tt.want || msg != tt.msg {
				t.Errorf("Decide = %v %q, want %v %q", d, msg, tt.want, tt.msg)
			}
		})
	}
}
