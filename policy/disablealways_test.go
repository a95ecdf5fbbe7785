package policy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// TestDisableAlwaysAllow: every "always" answer counts as once, nothing is
// saved, rules of the always-allow priority (x.950) stop applying, and
// other rules keep applying.
func TestDisableAlwaysAllow(t *testing.T) {
	saved := rules(t, TierUser, `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "make"
decision = "allow"
priority = 950

[[rule]]
toolName = "run_shell_command"
commandPrefix = "ls"
decision = "allow"
priority = 900
`)
	git := withRoots(shellCall("git commit -m wip"), "git")
	mcp := Call{Name: "srv__t", Kind: tool.KindOther, ServerName: "srv"}
	tests := []struct {
		name    string
		disable bool
		answer  tool.Outcome
		call    Call
		want    Decision // the same call, after the answer
	}{
		{"always, on", false, tool.ProceedAlways, git, Allow},
		{"always, disabled", true, tool.ProceedAlways, git, Ask},
		{"always and save, disabled", true, tool.ProceedAlwaysSave, git, Ask},
		{"server, disabled", true, tool.ProceedAlwaysServer, mcp, Ask},
		{"tool, disabled", true, tool.ProceedAlwaysTool, mcp, Ask},
		{"saved rule, on", false, "", withRoots(shellCall("make all"), "make"), Allow},
		{"saved rule, disabled", true, "", withRoots(shellCall("make all"), "make"), Ask},
		{"other rule, disabled", true, "", withRoots(shellCall("ls -l"), "ls"), Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			save := filepath.Join(t.TempDir(), AutoSavedFile)
			e := New(Options{Interactive: true, Rules: saved, AutoSave: save, DisableAlwaysAllow: tt.disable})
			if got := e.OffersAlways(); got == tt.disable {
				t.Errorf("OffersAlways = %v", got)
			}
			if got := e.SavesAnswers(); (got == "") != tt.disable {
				t.Errorf("SavesAnswers = %q", got)
			}
			if tt.answer != "" {
				e.Remember(tt.call, tt.answer)
			}
			if d, _ := e.Decide(tt.call); d != tt.want {
				t.Errorf("decision %v, want %v", d, tt.want)
			}
			if _, err := os.Stat(save); tt.disable && err == nil {
				t.Error("an answer was saved")
			}
		})
	}
	var nilEngine *Engine
	if !nilEngine.OffersAlways() {
		t.Error("a nil engine offers no always answers")
	}
}
