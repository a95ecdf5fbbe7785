package extensions_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestHookNotesInEveryFormat: what hooks tell the user (a systemMessage,
// the warning of a hook that exited 1, a hook that could not start) reaches
// stderr in json and stream-json as it does in text, rather than being
// dropped, while stdout stays the format's own.
func TestHookNotesInEveryFormat(t *testing.T) {
	t.Parallel()
	settings := `{"hooks": {
		"SessionStart": [{"hooks": [{"type": "command", "command": "echo '{\"systemMessage\": \"hello from a hook\"}'"}]}],
		"BeforeAgent": [{"hooks": [{"type": "command", "command": "echo 'hook broke' >&2; exit 1"}]}],
		"SessionEnd": [{"hooks": [{"type": "command", "command": "no-such-hook-command-xyz"}]}]}}`
	for _, format := range []string{"text", "json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			e := e2etest.New(t, fakegemini.Text("fine"))
			if err := os.MkdirAll(filepath.Join(e.WS, ".gemini"), 0o755); err != nil {
				t.Fatal(err)
			}
			e.Write(".gemini/settings.json", settings)
			r := e.Run("-o", format, "-p", "hi")
			if r.Code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", r.Code, r.Stderr)
			}
			for _, want := range []string{"hello from a hook", "hook broke", "no-such-hook-command-xyz"} {
				if !strings.Contains(r.Stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
				}
			}
			switch format {
			case "text":
				if r.Stdout != "fine\n" {
					t.Errorf("stdout %q", r.Stdout)
				}
			case "json":
				if !json.Valid([]byte(r.Stdout)) {
					t.Errorf("stdout is not one JSON value:\n%s", r.Stdout)
				}
			case "stream-json":
				for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
					if !json.Valid([]byte(l)) {
						t.Errorf("stdout line is not JSON: %q", l)
					}
				}
			}
		})
	}
}

// TestHooksConfigWarningNamesFile: hooksConfig.enabled of the wrong type
// is reported with the file that sets it.
func TestHooksConfigWarningNamesFile(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("fine"))
	if err := os.MkdirAll(filepath.Join(e.WS, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.Write(".gemini/settings.json", `{"hooksConfig": {"enabled": "yes"}}`)
	r := e.Run("-p", "hi")
	want := filepath.Join(e.WS, ".gemini", "settings.json") + ": hooksConfig.enabled"
	if r.Code != 0 || !strings.Contains(r.Stderr, want) {
		t.Errorf("exit %d; stderr lacks %q:\n%s", r.Code, want, r.Stderr)
	}
}
