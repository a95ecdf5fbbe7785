package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestAllowedExtensionsE2E: an admin's security.allowedExtensions in the
// system settings lets one installed extension load and keeps the other
// out entirely (its context never reaches the model), with Gemini CLI's
// warning on stderr.
func TestAllowedExtensionsE2E(t *testing.T) {
	e := newEnv(t, fakegemini.Text("ok"))
	exts := filepath.Join(e.home, ".gemini", "extensions")
	install := func(name, source, typ string) {
		dir := filepath.Join(exts, name)
		writeAt(t, filepath.Join(dir, "gemini-extension.json"), `{"name": "`+name+`", "version": "1.0.0"}`)
		writeAt(t, filepath.Join(dir, "GEMINI.md"), "Context of "+name+".\n")
		writeAt(t, filepath.Join(dir, ".gemini-extension-install.json"), `{"source": "`+source+`", "type": "`+typ+`"}`)
	}
	install("vetted", "https://github.com/acme-corp/vetted", "git")
	install("stray", "https://github.com/someone/stray", "git")
	system := filepath.Join(t.TempDir(), "system.json")
	writeAt(t, system, `{"security": {"allowedExtensions": ["github\\.com/acme-corp/"]}}`)

	r := runCastor(t, e.ws, append(e.environ(), "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+system), "-p", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	want := "Failed to load extension " + filepath.Join(exts, "stray") + `. This extension is not allowed by the "allowedExtensions" security setting.`
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	if strings.Contains(r.stderr, "allowedExtensions is not") || strings.Contains(r.stderr, "vetted") {
		t.Errorf("unexpected warning:\n%s", r.stderr)
	}
	first, _ := json.Marshal(e.srv.Requests()[0].Contents)
	if !strings.Contains(string(first), "Context of vetted.") {
		t.Error("the allowed extension's context is missing")
	}
	if strings.Contains(string(first), "Context of stray.") {
		t.Error("the refused extension's context reached the model")
	}
	// Installing from a source outside the list is refused before any
	// fetch.
	r = runCastor(t, e.ws, append(e.environ(), "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+system), "extensions", "install", "https://github.com/someone/other", "--consent")
	want = `Installing extension from source "https://github.com/someone/other" is not allowed by the "allowedExtensions" security setting.`
	if r.code == 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("install: exit %d, stderr lacks %q:\n%s", r.code, want, r.stderr)
	}
}
