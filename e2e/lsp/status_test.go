package lsp_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/lsp/lsptest"
)

// TestLSPStatus: castor lsp status starts the configured server once and
// reports it running; a server that cannot start makes it fail, naming
// the command and its stderr.
func TestLSPStatus(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteSettings(t, e, settings(map[string]any{"words": testServer(t, "")}))
	r := e.Run("lsp", "status")
	// It opened no file: no count of diagnostics that could only be 0.
	if r.Code != 0 || !strings.Contains(r.Stdout, "words (") || !strings.Contains(r.Stdout, "): running, root "+e.WS+", pid ") || strings.Contains(r.Stdout, "errors") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}

	bad := testServer(t, "")
	bad["env"].(map[string]any)[lsptest.FailEnv] = "1"
	e2etest.WriteSettings(t, e, settings(map[string]any{"words": bad}))
	r = e.Run("lsp", "status")
	if r.Code == 0 || !strings.Contains(r.Stdout, "words (") || !strings.Contains(r.Stdout, "failed to start") || !strings.Contains(r.Stdout, "refusing to start, as asked") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
}
