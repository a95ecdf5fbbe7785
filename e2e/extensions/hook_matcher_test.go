package extensions_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestHookMatcherThatDoesNotCompile: a BeforeTool matcher Go cannot
// compile (here a JavaScript lookahead) is reported with its settings key
// instead of silently matching nothing; the run goes on.
func TestHookMatcherThatDoesNotCompile(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("fine"))
	e.Write("x", "")
	e2etest.WriteFiles(t, e.Home, map[string]string{".gemini/settings.json": `{"hooks": {"BeforeTool": [{"matcher": "^(?!write_file)", "hooks": [{"type": "command", "command": "true"}]}]}}`})
	r := e.Run("-p", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "fine") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stderr, `hooks.BeforeTool[0].matcher: "^(?!write_file)" is not a valid regular expression`) {
		t.Errorf("no warning naming the matcher: %s", r.Stderr)
	}
}
