package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestMCPListShowsExtensionServers: `castor mcp list` lists the MCP
// servers of the active extensions after the configured ones, each
// named with "(from <extension>)" and checked by connecting as the
// configured ones are, as Gemini CLI's `mcp list` does; a server of the
// same name in settings wins, and a disabled extension's servers are
// not listed.
func TestMCPListShowsExtensionServers(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(e.WS, "missing-server")
	src := filepath.Join(filepath.Dir(e.WS), "src", "ext-mcp")
	manifest := map[string]any{
		"name": "ext-mcp", "version": "1.0.0",
		"mcpServers": map[string]any{
			"extup":   e2etest.HelperMCPServer(t, "ext"),
			"extdown": map[string]any{"command": missing, "args": []string{"--flag"}},
			"shared":  map[string]any{"command": missing},
		},
	}
	raw, _ := json.Marshal(manifest)
	e2etest.WriteFiles(t, src, map[string]string{"gemini-extension.json": string(raw)})
	if r := e.Run("extensions", "install", src); r.Code != 0 {
		t.Fatalf("install: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	settings, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"shared": e2etest.HelperMCPServer(t, "settings")}})
	e2etest.WriteFiles(t, filepath.Join(e.Home, ".gemini"), map[string]string{"settings.json": string(settings)})

	r := e.Run("mcp", "list")
	if r.Code != 0 {
		t.Fatalf("mcp list: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	lines := strings.Split(r.Stdout, "\n")
	want := []string{
		"Configured MCP servers:",
		"",
		"✓ shared: " + exe + "  (stdio) - Connected",
		"✗ extdown (from ext-mcp): " + missing + " --flag (stdio) - Disconnected",
	}
	if len(lines) < len(want)+2 || !equalLines(lines[:len(want)], want) {
		t.Fatalf("mcp list:\n%s\nwant it to start with\n%s", r.Stdout, strings.Join(want, "\n"))
	}
	// Below a server that did not connect, why (failureLines).
	rest := strings.Join(lines[len(want):], "\n")
	if !strings.HasPrefix(rest, "    ") || !strings.Contains(rest, "✓ extup (from ext-mcp): "+exe+"  (stdio) - Connected\n") {
		t.Errorf("mcp list:\n%s", r.Stdout)
	}
	if strings.Count(r.Stdout, "shared") != 1 {
		t.Errorf("the extension's server named like a configured one is listed too:\n%s", r.Stdout)
	}

	if r := e.Run("extensions", "disable", "--scope", "workspace", "ext-mcp"); r.Code != 0 {
		t.Fatalf("disable: exit %d\nstderr %s", r.Code, r.Stderr)
	}

	if r := e.Run("mcp", "list"); r.Code != 0 || strings.Contains(r.Stdout, "ext-mcp") || !strings.Contains(r.Stdout, "✓ shared: ") {
		t.Errorf("mcp list with the extension disabled: exit %d\n%s", r.Code, r.Stdout)
	}
}

func equalLines(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

// TestExtensionSettingsReachItsMCPServer is the probe Gemini CLI 0.61 was
// observed with: an extension declaring a setting, its value given at
// install, and its own stdio MCP server asked (through a tool) what its
// environment holds. 0.61's server sees the value; a variable the
// server's own "env" sets wins over the setting's, and another
// extension's server does not see it.
func TestExtensionSettingsReachItsMCPServer(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	probe := e2etest.HelperMCPServer(t, "probe")
	probe["env"].(map[string]string)["PROBE_OWN"] = "from-env-key"
	write := func(name string, manifest map[string]any) string {
		src := filepath.Join(filepath.Dir(e.WS), "src", name)
		raw, _ := json.Marshal(manifest)
		e2etest.WriteFiles(t, src, map[string]string{"gemini-extension.json": string(raw)})
		return src
	}
	src := write("probe-ext", map[string]any{
		"name": "probe-ext", "version": "1.0.0",
		"settings": []map[string]any{
			{"name": "Probe Key", "envVar": "PROBE_KEY"},
			{"name": "Own", "envVar": "PROBE_OWN"},
		},
		"mcpServers": map[string]any{"probe": probe},
	})
	if r := e.RunWithStdin("y\nsecret-from-settings\nfrom-settings\n", "extensions", "install", src); r.Code != 0 {
		t.Fatalf("install: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	other := write("other-ext", map[string]any{
		"name": "other-ext", "version": "1.0.0",
		"mcpServers": map[string]any{"other": e2etest.HelperMCPServer(t, "other")},
	})
	if r := e.RunWithStdin("y\n", "extensions", "install", other); r.Code != 0 {
		t.Fatalf("install other: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	e.Srv.Enqueue(
		fakegemini.Call("probe__getenv", map[string]any{"name": "PROBE_KEY"}),
		fakegemini.Call("probe__getenv", map[string]any{"name": "PROBE_OWN"}),
		fakegemini.Call("other__getenv", map[string]any{"name": "PROBE_KEY"}),
		fakegemini.Text("done"))
	r := e.Run("--yolo", "-p", "what does the probe see?")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests\nstderr %s", len(reqs), r.Stderr)
	}
	for i, want := range []string{"PROBE_KEY=secret-from-settings", "PROBE_OWN=from-env-key", "PROBE_KEY=(unset)"} {
		got, _ := json.Marshal(reqs[i+1].LastContent().Parts)
		if !strings.Contains(string(got), want) {
			t.Errorf("call %d answered %s, want %q", i, got, want)
		}
	}
}
