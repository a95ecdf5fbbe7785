package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
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
