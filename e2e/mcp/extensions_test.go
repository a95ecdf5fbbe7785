package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPListShowsExtensionServers: `castor mcp list` lists the MCP
// servers of the active extensions after the configured ones, each
// named with "(from <extension>)" and checked by connecting as the
// configured ones are, as Gemini CLI's `mcp list` does; a server of the
// same name in settings wins, and a disabled extension's servers are
// not listed.
func TestMCPListShowsExtensionServers(t *testing.T) {
	e := newEnv(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(e.ws, "missing-server")
	src := filepath.Join(filepath.Dir(e.ws), "src", "ext-mcp")
	manifest := map[string]any{
		"name": "ext-mcp", "version": "1.0.0",
		"mcpServers": map[string]any{
			"extup":   helperMCPServer(t, "ext"),
			"extdown": map[string]any{"command": missing, "args": []string{"--flag"}},
			"shared":  map[string]any{"command": missing},
		},
	}
	raw, _ := json.Marshal(manifest)
	writeFiles(t, src, map[string]string{"gemini-extension.json": string(raw)})
	if r := e.run("extensions", "install", src); r.code != 0 {
		t.Fatalf("install: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	settings, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"shared": helperMCPServer(t, "settings")}})
	writeFiles(t, filepath.Join(e.home, ".gemini"), map[string]string{"settings.json": string(settings)})

	r := e.run("mcp", "list")
	if r.code != 0 {
		t.Fatalf("mcp list: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	want := []string{
		"Configured MCP servers:",
		"",
		"✓ shared: " + exe + "  (stdio) - Connected",
		"✗ extdown (from ext-mcp): " + missing + " --flag (stdio) - Disconnected",
	}
	if len(lines) < len(want)+2 || !equalLines(lines[:len(want)], want) {
		t.Fatalf("mcp list:\n%s\nwant it to start with\n%s", r.stdout, strings.Join(want, "\n"))
	}
	// Below a server that did not connect, why (failureLines).
	rest := strings.Join(lines[len(want):], "\n")
	if !strings.HasPrefix(rest, "    ") || !strings.Contains(rest, "✓ extup (from ext-mcp): "+exe+"  (stdio) - Connected\n") {
		t.Errorf("mcp list:\n%s", r.stdout)
	}
	if strings.Count(r.stdout, "shared") != 1 {
		t.Errorf("the extension's server named like a configured one is listed too:\n%s", r.stdout)
	}

	if r := e.run("extensions", "disable", "--scope", "workspace", "ext-mcp"); r.code != 0 {
		t.Fatalf("disable: exit %d\nstderr %s", r.code, r.stderr)
	}

	if r := e.run("mcp", "list"); r.code != 0 || strings.Contains(r.stdout, "ext-mcp") || !strings.Contains(r.stdout, "✓ shared: ") {
		t.Errorf("mcp list with the extension disabled: exit %d\n%s", r.code, r.stdout)
	}
}

func equalLines(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}
