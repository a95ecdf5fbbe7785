package headless_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
)

// TestInterruptDuringStartup sends SIGINT while an MCP server that never
// answers holds up the start: castor exits 130 at once, with one line on
// stderr, instead of waiting for the server's one-minute connect timeout.
func TestInterruptDuringStartup(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to a child on Windows")
	}
	e := e2etest.New(t)
	settings := `{"mcpServers":{"hang":{"command":"sleep","args":["600"]}}}`
	if err := os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	p := e.Start(e2etest.Options{
		Env: []string{"HOME=" + e.Home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=k",
			"GOOGLE_GEMINI_BASE_URL=" + e.Srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true"},
		// Well under the MCP server's one-minute connect timeout: an
		// exit that waits for it fails the test.
		HangLimit: 20 * time.Second,
	}, "-p", "hi")
	// Wait until the MCP server is running, so the signal lands during
	// its start rather than before castor reads its settings.
	deadline := time.Now().Add(20 * time.Second)
	for !childRunning(p.Cmd.Process.Pid, "sleep") {
		if time.Now().After(deadline) {
			t.Fatal("the MCP server never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.Signal(syscall.SIGINT)
	p.WantExit(130)
	stderr := p.Stderr.String()
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "Error: ") {
		t.Errorf("stderr should be one error line:\n%s", stderr)
	}
	if len(e.Srv.Requests()) != 0 {
		t.Error("the model was called after the interrupt")
	}
}

// childRunning reports whether pid has a child process called name.
func childRunning(pid int, name string) bool {
	if out, err := exec.Command("pgrep", "-P", strconv.Itoa(pid), "-x", name).Output(); err == nil && len(bytes.TrimSpace(out)) > 0 {
		return true
	}
	return false
}
