package cli_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestHookMatcherThatDoesNotCompile: a BeforeTool matcher Go cannot
// compile (here a JavaScript lookahead) is reported with its settings key
// instead of silently matching nothing; the run goes on.
func TestHookMatcherThatDoesNotCompile(t *testing.T) {
	e := newEnv(t, fakegemini.Text("fine"))
	e.write("x", "")
	writeFiles(t, e.home, map[string]string{".gemini/settings.json": `{"hooks": {"BeforeTool": [{"matcher": "^(?!write_file)", "hooks": [{"type": "command", "command": "true"}]}]}}`})
	r := e.run("-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "fine") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, `hooks.BeforeTool[0].matcher: "^(?!write_file)" is not a valid regular expression`) {
		t.Errorf("no warning naming the matcher: %s", r.stderr)
	}
}
