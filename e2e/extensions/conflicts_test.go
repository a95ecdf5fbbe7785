package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestExtensionCommandConflict: an extension's /hello clashing with the
// user's /hello loses, is renamed /<extension>.hello, and the rename is
// said as Gemini CLI says it; both commands run.
func TestExtensionCommandConflict(t *testing.T) {
	e := newEnv(t, fakegemini.Text("one"), fakegemini.Text("two"))
	src := filepath.Join(filepath.Dir(e.ws), "src", "clash")
	writeFiles(t, src, map[string]string{
		"gemini-extension.json": `{"name": "clash", "version": "1.0.0"}`,
		"commands/hello.toml":   `prompt = "extension hello {{args}}"`,
	})
	writeFiles(t, e.home, map[string]string{".gemini/commands/hello.toml": `prompt = "user hello {{args}}"`})
	if r := e.run("extensions", "install", src); r.code != 0 {
		t.Fatalf("install: %s", r.stderr)
	}
	r := e.run("-p", "/hello there")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "Command '/hello' from extension 'clash' command was renamed to '/clash.hello' because it conflicts with user command.") {
		t.Errorf("no conflict notice: %s", r.stderr)
	}
	if r := e.run("-p", "/clash.hello there"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 || !strings.HasSuffix(lastUserText(reqs[0]), "user hello there") || !strings.HasSuffix(lastUserText(reqs[1]), "extension hello there") {
		for _, q := range reqs {
			t.Logf("sent %q", lastUserText(q))
		}
		t.Errorf("%d requests", len(reqs))
	}
}
