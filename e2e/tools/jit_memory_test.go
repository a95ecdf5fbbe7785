package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestSubfolderMemoryOnFirstTouch: a subfolder's GEMINI.md is not loaded
// at start but appended to the output of the first tool that touches the
// folder, once, as Gemini CLI 0.61 does; experimental.jitContext: false
// brings back the scan at start.
func TestSubfolderMemoryOnFirstTouch(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) *e2etest.Env {
		e := e2etest.New(t)
		e.Write("GEMINI.md", "Root rule: be brief.\n")
		os.MkdirAll(filepath.Join(e.WS, "sub"), 0o755)
		e.Write("sub/GEMINI.md", "Sub rule: use spaces.\n")
		e.Write("sub/code.go", "package sub\n")
		return e
	}
	t.Run("jit", func(t *testing.T) {
		e := setup(t)
		e.Srv.Enqueue(
			fakegemini.Call("read_file", map[string]any{"file_path": filepath.Join(e.WS, "sub", "code.go")}),
			fakegemini.Call("list_directory", map[string]any{"dir_path": filepath.Join(e.WS, "sub")}),
			fakegemini.Text("ok"))
		if r := e.Run("-p", "read sub/code.go"); r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		reqs := e.Srv.Requests()
		envCtx := reqs[0].Contents[0].Parts[0].Text
		if !strings.Contains(envCtx, "Root rule") || strings.Contains(envCtx, "Sub rule") {
			t.Errorf("environment context:\n%s", envCtx)
		}
		_, first := e2etest.FunctionResponse(t, reqs[1].LastContent(), 0)
		out, _ := first["output"].(string)
		if !strings.HasPrefix(out, "package sub\n") ||
			!strings.Contains(out, "\n\n--- Newly Discovered Project Context ---\n") ||
			!strings.Contains(out, "Sub rule: use spaces.") || !strings.HasSuffix(out, "\n--- End Project Context ---") {
			t.Errorf("read_file output:\n%s", out)
		}
		_, second := e2etest.FunctionResponse(t, reqs[2].LastContent(), 0)
		if out, _ := second["output"].(string); strings.Contains(out, "Sub rule") {
			t.Errorf("memory appended twice:\n%s", out)
		}
	})
	t.Run("scan at start", func(t *testing.T) {
		e := setup(t)
		e2etest.WriteSettings(t, e, map[string]any{"experimental": map[string]any{"jitContext": false}})
		e.Srv.Enqueue(
			fakegemini.Call("read_file", map[string]any{"file_path": filepath.Join(e.WS, "sub", "code.go")}),
			fakegemini.Text("ok"))
		if r := e.Run("-p", "read sub/code.go"); r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		reqs := e.Srv.Requests()
		if envCtx := reqs[0].Contents[0].Parts[0].Text; !strings.Contains(envCtx, "Sub rule") {
			t.Errorf("environment context lacks the subfolder memory:\n%s", envCtx)
		}
		_, first := e2etest.FunctionResponse(t, reqs[1].LastContent(), 0)
		if out, _ := first["output"].(string); strings.Contains(out, "Newly Discovered") {
			t.Errorf("read_file output:\n%s", out)
		}
	})
}
