package setup

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/mcp"
)

// TestOpenMCPHonoursDisable: a server switched off with `gemini mcp
// disable` is not started.
func TestOpenMCPHonoursDisable(t *testing.T) {
	gemini := t.TempDir()
	if err := mcp.SetEnabled(filepath.Join(gemini, mcp.EnablementFileName), "Off", false); err != nil {
		t.Fatal(err)
	}
	st := &config.Settings{
		MCPServers: map[string]any{"Off": map[string]any{"command": "castor-no-such-mcp-server"}},
		Trust:      config.TrustResult{State: config.Trusted},
	}
	var warns []string
	m := openMCP(context.Background(), st, mcpPlace{workDir: t.TempDir(), geminiDir: gemini}, nil, func(s string) { warns = append(warns, s) })
	if m == nil {
		t.Fatal("no manager")
	}
	defer m.Close()
	s, _ := m.Status("Off")
	if s.Status != mcp.StatusBlocked || !strings.Contains(s.Reason, "is disabled") || len(warns) != 0 {
		t.Errorf("status %s %q, warnings %q", s.Status, s.Reason, warns)
	}
}
