package config_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestIgnoredSettingsWarn: a setting Castor does not honour is said on
// stderr, once, naming the file and the key; honoured keys and keys set to
// their default stay silent, and stdout is what it is without them.
func TestIgnoredSettingsWarn(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			plain := e2etest.New(t, fakegemini.Text("Hello."))
			want := plain.Run("-p", "hi", "-o", format)
			if want.Code != 0 {
				t.Fatalf("exit %d: %s", want.Code, want.Stderr)
			}

			e := e2etest.New(t, fakegemini.Text("Hello."))
			userFile := filepath.Join(e.Home, ".gemini", "settings.json")
			wsFile := filepath.Join(e.WS, ".gemini", "settings.json")
			manifest := filepath.Join(e.Home, ".gemini", "extensions", "demo", "gemini-extension.json")
			for p, content := range map[string]string{
				userFile: `{
					// set by the user for Gemini CLI
					"security": {"autoAddToPolicyByDefault": true, "folderTrust": {"enabled": true}},
					"ui": {"hideBanner": false},
					"model": {"name": "gemini-2.5-flash"},
					"mcpServers": {}
				}`,
				wsFile:   `{"contxt": {"fileName": "AGENTS.md"}}`,
				manifest: `{"name": "demo", "version": "1.0.0", "migratedTo": "https://example.com/demo"}`,
			} {
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := e.Run("-p", "hi", "-o", format)
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Stderr)
			}
			for _, line := range []string{
				"Warning: " + userFile + ": security.autoAddToPolicyByDefault is not supported by Castor yet; ignored\n",
				"Warning: " + wsFile + ": contxt is not a setting Castor knows (a typo, or a newer Gemini CLI setting?); ignored\n",
				"Warning: " + manifest + ": migratedTo does not apply to Castor (castor extensions update does not follow it to the new source); ignored\n",
			} {
				if n := strings.Count(r.Stderr, line); n != 1 {
					t.Errorf("stderr has %q %d times, want once:\n%s", line, n, r.Stderr)
				}
			}
			for _, quiet := range []string{"hideBanner", "model.name", "folderTrust", "mcpServers"} {
				if strings.Contains(r.Stderr, quiet) {
					t.Errorf("stderr mentions %s:\n%s", quiet, r.Stderr)
				}
			}
			if format == "text" {
				if r.Stdout != want.Stdout {
					t.Errorf("stdout = %q, without the settings %q", r.Stdout, want.Stdout)
				}
				return
			}
			var got, base map[string]any
			if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, r.Stdout)
			}
			json.Unmarshal([]byte(want.Stdout), &base)
			for _, k := range []string{"session_id", "stats"} {
				delete(got, k)
				delete(base, k)
			}
			if e2etest.MustJSON(got) != e2etest.MustJSON(base) {
				t.Errorf("stdout = %s, without the settings %s", e2etest.MustJSON(got), e2etest.MustJSON(base))
			}
		})
	}
}

// TestTUIIgnoredSettingsWarn: the interactive terminal shows the same
// line among its start-up warnings.
func TestTUIIgnoredSettingsWarn(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	userFile := filepath.Join(e.Home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(userFile), 0o755)
	os.WriteFile(userFile, []byte(`{"security": {"autoAddToPolicyByDefault": true}}`), 0o644)
	tm := e.StartTUI()
	s := tm.WaitFor("ignored")
	flat := strings.Join(strings.Fields(s), "")
	want := strings.Join(strings.Fields("<home>/.gemini/settings.json: security.autoAddToPolicyByDefault is not supported by Castor yet; ignored"), "")
	if strings.Count(flat, want) != 1 {
		t.Errorf("the screen does not show the warning once:\n%s", s)
	}
	tm.Keys("C-d")
	tm.WaitFor("[exited]")
}
