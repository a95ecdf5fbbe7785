package castor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/model/fake"
)

// TestErrorsSpeakGo: what New and a turn report to a Go program names
// the program's options (WithResume, WithoutRecording, WithHooks), not the
// castor command's flags (--resume, --list-sessions) or the assembly's
// fields (Options.Hooks[0]).
func TestErrorsSpeakGo(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	base := []castor.Option{castor.WithoutSettings(), castor.WithHomeDir(home), castor.WithWorkDir(ws), castor.WithEnv(noEnv)}
	start := func(extra ...castor.Option) (*castor.Agent, error) {
		return castor.New(context.Background(), append(append([]castor.Option{castor.WithClient(fake.Script(fake.Text("ok")))}, base...), extra...)...)
	}
	// Two recorded sessions whose ids share a prefix.
	for _, id := range []string{"job-one", "job-two"} {
		a, err := start(castor.WithSessionID(id))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Send(context.Background(), "hi"); err != nil {
			t.Fatal(err)
		}
		a.Close()
	}
	tests := []struct {
		name string
		opts []castor.Option
		want string
	}{
		{"unknown id", []castor.Option{castor.WithResume("nope")}, `castor: WithResume("nope"): no recorded session of this workspace matches "nope"`},
		{"ambiguous prefix", []castor.Option{castor.WithResume("job-")}, `castor: WithResume("job-"): 2 recorded sessions of this workspace have ids starting with "job-" (job-one, job-two): give more of the id`},
		{"recording off", []castor.Option{castor.WithResume("job-one"), castor.WithoutRecording()}, `castor: WithResume("job-one"): WithoutRecording turns off the recordings`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := start(tt.opts...)
			if err == nil {
				a.Close()
				t.Fatal("New succeeded")
			}
			var re *castor.ResumeError
			if !errors.As(err, &re) {
				t.Fatalf("New: %v (%T), want a *castor.ResumeError", err, err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, tt.want) || strings.Contains(msg, "--") || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want it to start with %q, on one line, with no flag in it", msg, tt.want)
			}
		})
	}
	if a, err := start(castor.WithResume("job-two")); err != nil {
		t.Errorf("resuming a recorded session: %v", err)
	} else {
		a.Close()
	}

	// A failing hook is named by its place among the WithHooks hooks.
	failing := castor.Hook{Event: castor.BeforeAgent, Name: "audit", Func: func(context.Context, *castor.HookInput, castor.SessionContext) (*castor.HookOutput, error) {
		return nil, errors.New("audit log is full")
	}}
	var warnings []string
	a := scriptAgent(t, fake.Script(fake.Text("answer")), castor.WithHooks(castor.Hook{Event: castor.SessionEnd, Func: noHook}), castor.WithHooks(failing),
		castor.WithWarnings(func(s string) { warnings = append(warnings, s) }))
	if _, err := a.Send(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `hook "audit" (BeforeAgent hook 2 of WithHooks) failed: audit log is full`) {
		t.Errorf("warnings %q, want the hook named as the second WithHooks hook", warnings)
	}
}

// TestRefusedShellSpeaksGo: a custom command whose !{…} a headless SDK
// agent may not run says how a program allows it (WithAllowedTools), not
// the castor command's --allowed-tools; the assembly's error stays in
// the chain.
func TestRefusedShellSpeaksGo(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, ".gemini", "commands")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "status.toml"), []byte("prompt = \"Status: !{git status}\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := castor.New(context.Background(), castor.WithClient(fake.Script(fake.Text("ok"))),
		castor.WithHomeDir(t.TempDir()), castor.WithoutRecording(), castor.WithEnv(noEnv), castor.WithWorkDir(ws))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, err = a.Send(context.Background(), "/status")
	if err == nil {
		t.Fatal("the refused command ran")
	}
	want := `command /status: cannot be run. Blocked command: "git status". Reason: Blocked by policy (a headless run cannot ask for approval: allow it with castor.WithAllowedTools("run_shell_command(git status)") or an approval mode)`
	if err.Error() != want {
		t.Errorf("error %q,\nwant %q", err, want)
	}
	var refused *setup.ShellRefusedError
	if !errors.As(err, &refused) || refused.Command != "git status" {
		t.Errorf("error %v does not keep the assembly's *setup.ShellRefusedError", err)
	}
}
