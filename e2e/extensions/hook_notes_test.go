package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestHookNotesInEveryFormat: what hooks tell the user (a systemMessage,
// the warning of a hook that exited 1, a hook that could not start) reaches
// stderr in json and stream-json as it does in text, rather than being
// dropped, while stdout stays the format's own.
func TestHookNotesInEveryFormat(t *testing.T) {
	settings := `{"hooks": {
		"SessionStart": [{"hooks": [{"type": "command", "command": "echo '{\"systemMessage\": \"hello from a hook\"}'"}]}],
		"BeforeAgent": [{"hooks": [{"type": "command", "command": "echo 'hook broke' >&2; exit 1"}]}],
		"SessionEnd": [{"hooks": [{"type": "command", "command": "no-such-hook-command-xyz"}]}]}}`
	for _, format := range []string{"text", "json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			e := newEnv(t, fakegemini.Text("fine"))
			if err := os.MkdirAll(filepath.Join(e.ws, ".gemini"), 0o755); err != nil {
				t.Fatal(err)
			}
			e.write(".gemini/settings.json", settings)
			r := e.run("-o", format, "-p", "hi")
			if r.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
			}
			for _, want := range []string{"hello from a hook", "hook broke", "no-such-hook-command-xyz"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			switch format {
			case "text":
				if r.stdout != "fine\n" {
					t.Errorf("stdout %q", r.stdout)
				}
			case "json":
				if !json.Valid([]byte(r.stdout)) {
					t.Errorf("stdout is not one JSON value:\n%s", r.stdout)
				}
			case "stream-json":
				for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
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
	e := newEnv(t, fakegemini.Text("fine"))
	if err := os.MkdirAll(filepath.Join(e.ws, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(".gemini/settings.json", `{"hooksConfig": {"enabled": "yes"}}`)
	r := e.run("-p", "hi")
	want := filepath.Join(e.ws, ".gemini", "settings.json") + ": hooksConfig.enabled"
	if r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d; stderr lacks %q:\n%s", r.code, want, r.stderr)
	}
}
