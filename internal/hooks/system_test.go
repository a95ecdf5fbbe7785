package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/agent"
)

func TestMatches(t *testing.T) {
	for _, tt := range []struct {
		event   agent.HookEvent
		matcher string
		target  string
		want    bool
	}{
		{agent.HookBeforeTool, "", "read_file", true},
		{agent.HookBeforeTool, "*", "read_file", true},
		{agent.HookBeforeTool, "read_file", "read_file", true},
		{agent.HookBeforeTool, "write_.*|replace", "replace", true},
		{agent.HookBeforeTool, "write_.*", "read_file", false},
		{agent.HookBeforeTool, "mcp__srv__.*", "mcp__srv__tool", true},
		{agent.HookAfterTool, "(", "(", true}, // not a regexp: literal
		{agent.HookAfterTool, "(", "x", false},
		{agent.HookSessionStart, "startup", "startup", true},
		{agent.HookSessionStart, "start.*", "startup", false}, // lifecycle matchers are exact
		{agent.HookNotification, "ToolPermission", "ToolPermission", true},
		{agent.HookBeforeModel, "whatever", "", true}, // nothing to match
	} {
		if got := matches(&Hook{Event: tt.event, Matcher: tt.matcher}, tt.target); got != tt.want {
			t.Errorf("%s matcher %q on %q = %v", tt.event, tt.matcher, tt.target, got)
		}
	}
}

func TestNewOrderDedupeDisabled(t *testing.T) {
	s := New(Options{Disabled: []string{"off", "cmd-off"}}, []Hook{
		{Event: agent.HookBeforeTool, Command: "ext", Source: SourceExtension},
		{Event: agent.HookBeforeTool, Command: "user", Name: "n", Source: SourceUser},
		{Event: agent.HookBeforeTool, Command: "user", Name: "n", Source: SourceProject, Origin: "project wins"},
		{Event: agent.HookBeforeTool, Command: "x", Name: "off", Source: SourceUser},
		{Event: agent.HookBeforeTool, Command: "cmd-off", Source: SourceUser},
		{Event: agent.HookAfterTool, Command: "sys", Source: SourceSystem},
		{Event: agent.HookAfterAgent, Command: "user", Name: "n", Source: SourceUser, Origin: "same command, other event"},
	})
	var got []string
	for _, h := range s.Hooks() {
		got = append(got, h.Command+"@"+h.Source.String()+":"+h.Origin)
	}
	if strings.Join(got, " ") != "user@project:project wins user@user:same command, other event sys@system: ext@extension:" {
		t.Errorf("hooks %v", got)
	}
	if !s.Handles(agent.HookAfterTool) || s.Handles(agent.HookSessionEnd) {
		t.Error("Handles")
	}
}

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFireCommand(t *testing.T) {
	cwd := t.TempDir()
	log := filepath.Join(cwd, "in.json")
	cmd := script(t, `cat > "$1"; echo "$GEMINI_PROJECT_DIR|$CLAUDE_PROJECT_DIR|$GEMINI_SESSION_ID|$GEMINI_CWD|$EXTRA|$PWD" > "$1.env"
echo '{"decision":"allow","hookSpecificOutput":{"tool_input":{"b":2}}}'`)
	s := New(Options{Cwd: cwd, TranscriptPath: func() string { return "/t.jsonl" }, Env: []string{"PATH=" + os.Getenv("PATH")}}, []Hook{
		{Event: agent.HookBeforeTool, Matcher: "shell", Command: cmd + ` "$GEMINI_PROJECT_DIR/in.json"`, Env: map[string]string{"EXTRA": "e"}},
	})
	in := &agent.HookInput{HookEventName: agent.HookBeforeTool, SessionID: "sid", ToolName: "shell", ToolInput: map[string]any{"a": 1}}
	out, err := s.Fire(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Decision != "allow" || out.Specific().ToolInput["b"] != 2.0 {
		t.Errorf("output %+v", out)
	}
	var got map[string]any
	data, _ := os.ReadFile(log)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("stdin %q: %v", data, err)
	}
	for k, want := range map[string]any{"session_id": "sid", "transcript_path": "/t.jsonl", "cwd": cwd, "hook_event_name": "BeforeTool", "tool_name": "shell"} {
		if got[k] != want {
			t.Errorf("stdin %s = %v, want %v", k, got[k], want)
		}
	}
	if _, err := time.Parse(time.RFC3339, got["timestamp"].(string)); err != nil {
		t.Errorf("timestamp: %v", err)
	}
	env, _ := os.ReadFile(log + ".env")
	if want := cwd + "|" + cwd + "|sid|" + cwd + "|e|" + cwd + "\n"; string(env) != want {
		t.Errorf("env %q, want %q", env, want)
	}
	// Another tool does not match.
	if out, err := s.Fire(context.Background(), &agent.HookInput{HookEventName: agent.HookBeforeTool, ToolName: "read"}); out != nil || err != nil {
		t.Errorf("unmatched: %v %v", out, err)
	}
}

func TestFireSequentialChains(t *testing.T) {
	var seen []any
	mk := func(key string) Func {
		return func(_ context.Context, in *agent.HookInput) (*agent.HookOutput, error) {
			seen = append(seen, in.ToolInput[key])
			return &agent.HookOutput{HookSpecificOutput: &agent.HookSpecificOutput{ToolInput: map[string]any{key: "set-by-" + key}}}, nil
		}
	}
	s := New(Options{}, []Hook{
		{Event: agent.HookBeforeTool, Sequential: true, Func: mk("a")},
		{Event: agent.HookBeforeTool, Func: mk("a")},
	})
	in := &agent.HookInput{HookEventName: agent.HookBeforeTool, ToolInput: map[string]any{"a": "orig"}}
	out, err := s.Fire(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if seen[0] != "orig" || seen[1] != "set-by-a" || in.ToolInput["a"] != "orig" || out.Specific().ToolInput["a"] != "set-by-a" {
		t.Errorf("seen %v input %v out %v", seen, in.ToolInput, out.Specific().ToolInput)
	}
}

func TestFireFailures(t *testing.T) {
	s := New(Options{Cwd: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")}}, []Hook{
		{Event: agent.HookBeforeAgent, Command: "definitely-not-a-command-xyz", Origin: "settings.json: hooks.BeforeAgent[0].hooks[0]"},
		{Event: agent.HookBeforeAgent, Command: "sleep 5", Timeout: 50 * time.Millisecond, Origin: "o2"},
		{Event: agent.HookBeforeAgent, Name: "p", Origin: "o3", Func: func(context.Context, *agent.HookInput) (*agent.HookOutput, error) { panic("boom") }},
		{Event: agent.HookBeforeAgent, Command: "echo warn >&2; exit 1", Origin: "o4"},
	})
	out, err := s.Fire(context.Background(), &agent.HookInput{HookEventName: agent.HookBeforeAgent})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`hook "definitely-not-a-command-xyz" (settings.json: hooks.BeforeAgent[0].hooks[0]) could not run (exit 127)`,
		`hook "sleep 5" (o2) timed out after 50ms`,
		`hook "p" (o3) panicked: boom`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if !out.Blocks() || out.SystemMessage != "Warning: warn" {
		t.Errorf("output %+v", out)
	}
}

func TestToolNamesPlainText(t *testing.T) {
	s := New(Options{Cwd: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")}}, []Hook{
		{Event: agent.HookBeforeToolSelection, Command: "echo read_file,write_file"},
	})
	out, err := s.Fire(context.Background(), &agent.HookInput{HookEventName: agent.HookBeforeToolSelection})
	if err != nil {
		t.Fatal(err)
	}
	if tc := out.Specific().ToolConfig; tc.Mode != "ANY" || strings.Join(tc.AllowedFunctionNames, ",") != "read_file,write_file" {
		t.Errorf("tool config %+v", tc)
	}
}

// TestBackgroundChildKeepsOutputOpen: a hook that answers and exits but
// leaves a process running in the background with its stdout still counts
// with what it wrote (here a deny), rather than "could not run".
func TestBackgroundChildKeepsOutputOpen(t *testing.T) {
	defer func(d time.Duration) { outputGrace = d }(outputGrace)
	outputGrace = 100 * time.Millisecond
	s := New(Options{Cwd: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")}}, []Hook{
		{Event: agent.HookBeforeTool, Command: `echo '{"decision":"deny","reason":"not now"}'; sleep 2 &`, Origin: "o1"},
	})
	out, err := s.Fire(context.Background(), &agent.HookInput{HookEventName: agent.HookBeforeTool, ToolName: "run_shell_command"})
	if out == nil || !out.Blocks() || out.Reason != "not now" {
		t.Errorf("output %+v", out)
	}
	if err == nil || !strings.Contains(err.Error(), `hook "echo`) || !strings.Contains(err.Error(), "kept its output open") {
		t.Errorf("err = %v", err)
	}
}
