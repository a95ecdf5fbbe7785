package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestTUIAuthDialogFirstRun: without credentials the terminal opens the
// auth dialog instead of a dead input; the key typed there is kept in
// Castor's own file, owner-only, and the session starts with it.
func TestTUIAuthDialogFirstRun(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.TUIEnv = append(e.TUIEnv, "GEMINI_API_KEY=")
	e.Srv.Enqueue(fakegemini.Text("Hello with the new key."))
	tm := e.LaunchTUI("")
	tm.Golden("auth_dialog", tm.WaitFor("Use Gemini API Key"))
	tm.Keys("Enter")
	tm.WaitFor("Enter Gemini API Key")
	tm.TypeText("typed-key-123")
	s := tm.WaitFor("•••••••••••••")
	if strings.Contains(s, "typed-key-123") {
		t.Errorf("the key is shown as typed:\n%s", s)
	}
	tm.Keys("Enter")
	tm.WaitUntil("the session ready", func(s string) bool { return strings.Contains(footer(s), "context left") })
	tm.Submit("hi")
	tm.WaitFor("Hello with the new key.")
	r := e.Srv.LastRequest()
	if got := r.Header.Get("x-goog-api-key"); got != "typed-key-123" {
		t.Errorf("the model was called with key %q", got)
	}
	p := filepath.Join(e.Home, ".gemini", "castor_api_key.json")
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v (mode %v)", p, err, fi.Mode())
	}
	if b, _ := os.ReadFile(filepath.Join(e.Home, ".gemini", "settings.json")); !strings.Contains(string(b), `"gemini-api-key"`) {
		t.Errorf("settings.json does not record the auth type:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(e.Home, ".gemini", "oauth_creds.json")); err == nil {
		t.Error("Gemini CLI's credentials file was written")
	}
}
