package extensions_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestAllowedExtensionsE2E: an admin's security.allowedExtensions in the
// system settings lets one installed extension load and keeps the other
// out entirely (its context never reaches the model), with Gemini CLI's
// warning on stderr.
func TestAllowedExtensionsE2E(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("ok"))
	exts := filepath.Join(e.Home, ".gemini", "extensions")
	install := func(name, source, typ string) {
		dir := filepath.Join(exts, name)
		e2etest.WriteAt(t, filepath.Join(dir, "gemini-extension.json"), `{"name": "`+name+`", "version": "1.0.0"}`)
		e2etest.WriteAt(t, filepath.Join(dir, "GEMINI.md"), "Context of "+name+".\n")
		e2etest.WriteAt(t, filepath.Join(dir, ".gemini-extension-install.json"), `{"source": "`+source+`", "type": "`+typ+`"}`)
	}
	install("vetted", "https://github.com/acme-corp/vetted", "git")
	install("stray", "https://github.com/someone/stray", "git")
	system := filepath.Join(t.TempDir(), "system.json")
	e2etest.WriteAt(t, system, `{"security": {"allowedExtensions": ["github\\.com/acme-corp/"]}}`)

	r := e2etest.RunCastor(t, e.WS, append(e.Environ(), "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+system), "-p", "hi")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	want := "Failed to load extension " + filepath.Join(exts, "stray") + `. This extension is not allowed by the "allowedExtensions" security setting.`
	if !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
	}
	if strings.Contains(r.Stderr, "allowedExtensions is not") || strings.Contains(r.Stderr, "vetted") {
		t.Errorf("unexpected warning:\n%s", r.Stderr)
	}
	first, _ := json.Marshal(e.Srv.Requests()[0].Contents)
	if !strings.Contains(string(first), "Context of vetted.") {
		t.Error("the allowed extension's context is missing")
	}
	if strings.Contains(string(first), "Context of stray.") {
		t.Error("the refused extension's context reached the model")
	}
	// Installing from a source outside the list is refused before any
	// fetch.
	r = e2etest.RunCastor(t, e.WS, append(e.Environ(), "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+system), "extensions", "install", "https://github.com/someone/other", "--consent")
	want = `Installing extension from source "https://github.com/someone/other" is not allowed by the "allowedExtensions" security setting.`
	if r.Code == 0 || !strings.Contains(r.Stderr, want) {
		t.Errorf("install: exit %d, stderr lacks %q:\n%s", r.Code, want, r.Stderr)
	}
}

// TestEnvironmentRedactionE2E: with security.environmentVariableRedaction
// enabled, a shell command printing its environment shows the model no
// secret (by name or by value) and a blocked variable neither, while the
// harmless ones pass; off (the default), the environment passes whole.
func TestEnvironmentRedactionE2E(t *testing.T) {
	t.Parallel()
	const (
		byName  = "MY_API_TOKEN=name-shaped-secret-4711"
		byValue = "HARMLESS_LOOKING=ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"
		blocked = "TEAM_NOTE=blocked-by-settings"
		plain   = "PLAIN_VAR=plain-value-0815"
	)
	tests := []struct {
		name     string
		settings string
		shown    []string
		withheld []string
	}{
		{"enabled", `{"security": {"environmentVariableRedaction": {"enabled": true, "blocked": ["team_note"]}}}`,
			[]string{plain}, []string{byName, byValue, blocked}},
		{"off by default", `{}`, []string{plain, byName, byValue, blocked}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t,
				fakegemini.Call("run_shell_command", map[string]any{"command": "env"}),
				fakegemini.Text("done"))
			e2etest.WriteAt(t, filepath.Join(e.Home, ".gemini", "settings.json"), tt.settings)
			environ := append(e.Environ(), byName, byValue, blocked, plain,
				"GEMINI_CLI_SYSTEM_SETTINGS_PATH="+filepath.Join(e.Home, "no-system.json"))
			r := e2etest.RunCastor(t, e.WS, environ, "-y", "-p", "print the environment")
			if r.Code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
			}
			reqs := e.Srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls, want 2", len(reqs))
			}
			_, resp := e2etest.FunctionResponse(t, reqs[1].Contents[len(reqs[1].Contents)-1], 0)
			out, _ := resp["output"].(string)
			if !strings.Contains(out, "PATH=") {
				t.Fatalf("the shell printed no environment: %v", resp)
			}
			whole, _ := json.Marshal(reqs[1].Contents)
			for _, v := range tt.shown {
				if !strings.Contains(out, v) {
					t.Errorf("%s missing from the output", v)
				}
			}
			for _, v := range tt.withheld {
				_, value, _ := strings.Cut(v, "=")
				if strings.Contains(string(whole), value) {
					t.Errorf("the model saw %s", v)
				}
			}
		})
	}
}
