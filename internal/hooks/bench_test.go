package hooks

import (
	"context"
	"os"
	"testing"

	"github.com/castor-dev/castor/agent"
)

// BenchmarkFireCommand measures one command hook (spawn, stdin JSON,
// parse stdout): the cost a configured hook adds to its event.
func BenchmarkFireCommand(b *testing.B) {
	s := New(Options{Cwd: b.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")}}, []Hook{
		{Event: agent.HookBeforeTool, Command: `cat >/dev/null; echo '{"decision":"allow"}'`},
	})
	in := &agent.HookInput{HookEventName: agent.HookBeforeTool, ToolName: "read_file", ToolInput: map[string]any{"path": "x"}}
	for b.Loop() {
		if _, err := s.Fire(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFireFunc measures an in-process hook.
func BenchmarkFireFunc(b *testing.B) {
	s := New(Options{}, []Hook{{Event: agent.HookBeforeTool, Func: func(context.Context, *agent.HookInput) (*agent.HookOutput, error) {
		return &agent.HookOutput{Decision: "allow"}, nil
	}}})
	in := &agent.HookInput{HookEventName: agent.HookBeforeTool, ToolName: "read_file"}
	for b.Loop() {
		s.Fire(context.Background(), in)
	}
}
