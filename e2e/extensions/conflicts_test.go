package extensions_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestExtensionCommandConflict: an extension's /hello clashing with the
// user's /hello loses, is renamed /<extension>.hello, and the rename is
// said as Gemini CLI says it; both commands run.
func TestExtensionCommandConflict(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("one"), fakegemini.Text("two"))
	src := filepath.Join(filepath.Dir(e.WS), "src", "clash")
	e2etest.WriteFiles(t, src, map[string]string{
		"gemini-extension.json": `{"name": "clash", "version": "1.0.0"}`,
		"commands/hello.toml":   `prompt = "extension hello {{args}}"`,
	})
	e2etest.WriteFiles(t, e.Home, map[string]string{".gemini/commands/hello.toml": `prompt = "user hello {{args}}"`})
	if r := e.Run("extensions", "install", src); r.Code != 0 {
		t.Fatalf("install: %s", r.Stderr)
	}
	r := e.Run("-p", "/hello there")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "Command '/hello' from extension 'clash' command was renamed to '/clash.hello' because it conflicts with user command.") {
		t.Errorf("no conflict notice: %s", r.Stderr)
	}
	if r := e.Run("-p", "/clash.hello there"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 2 || !strings.HasSuffix(e2etest.LastUserText(reqs[0]), "user hello there") || !strings.HasSuffix(e2etest.LastUserText(reqs[1]), "extension hello there") {
		for _, q := range reqs {
			t.Logf("sent %q", e2etest.LastUserText(q))
		}
		t.Errorf("%d requests", len(reqs))
	}
}
