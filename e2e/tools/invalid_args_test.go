package tools_test

import (
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestInvalidToolArgs drives the binary with calls whose arguments break
// their tool's schema: each is refused before running, and the model gets
// Gemini CLI's Ajv-worded message back as the call's error.
func TestInvalidToolArgs(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	calls := []struct {
		name string
		args map[string]any
		want string
	}{
		{"write_file", map[string]any{"file_path": 3, "content": "x"}, "params/file_path must be string"},
		{"run_shell_command", map[string]any{"description": "no command"}, "params must have required property 'command'"},
		{"read_many_files", map[string]any{"paths": []any{}}, "params/paths must NOT have fewer than 1 items"},
		{"write_todos", map[string]any{"todos": []any{map[string]any{"description": "a", "status": "done"}}}, "params/todos/0/status must be equal to one of the allowed values"},
	}
	for _, c := range calls {
		e.Srv.Enqueue(fakegemini.Call(c.name, c.args))
	}
	e.Srv.Enqueue(fakegemini.Text("Done."))

	r := e.Run("-y", "-o", "json", "-p", "Call tools badly")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	got := map[string]any{}
	for _, c := range e.Srv.LastRequest().Contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				got[fr.Name] = fr.Response["error"]
			}
		}
	}
	for _, c := range calls {
		if got[c.name] != c.want {
			t.Errorf("%s: error %v, want %q", c.name, got[c.name], c.want)
		}
	}
}
