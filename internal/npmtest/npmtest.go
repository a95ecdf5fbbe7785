// Package npmtest gives tests their outside peers: the npm MCP servers
// pinned in its testdata/package-lock.json, and programs on PATH
// (node, git, rg, tmux). A missing peer skips the test with a one-line
// reason, or fails it under CI=true (see Missing).
package npmtest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/proc/proctest"
)

// dir is this package's directory, found from this file's location so
// tests in any package can use it.
func dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Server returns node and the entry point of the installed npm package
// @modelcontextprotocol/<pkg>, or reports the missing one (Missing).
func Server(t testing.TB, pkg string) (node, entry string) {
	t.Helper()
	node = LookPath(t, "node")
	entry = filepath.Join(dir(), "testdata", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		Missing(t, "node_modules/@modelcontextprotocol/%s is missing: run npm ci --ignore-scripts in internal/npmtest/testdata", pkg)
	}
	return node, entry
}

// StartHTTP runs an npm server's HTTP transport ("sse", "streamableHttp")
// on a loopback port, stops it when the test ends, and returns the port.
// A preload script makes the server bind 127.0.0.1 and report its port.
func StartHTTP(t testing.TB, node, entry string, args ...string) int {
	t.Helper()
	preload := filepath.Join(dir(), "loopback.cjs")
	cmd := exec.Command(node, append([]string{"-r", preload, entry}, args...)...)
	proctest.DieWithTest(cmd)
	cmd.Env = append(os.Environ(), "PORT=0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ports := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			var p int
			if _, err := fmt.Sscanf(sc.Text(), "CASTOR_LISTENING %d", &p); err == nil && !sent {
				ports <- p
				sent = true
			}
		}
		if !sent {
			close(ports)
		}
	}()
	select {
	case p, ok := <-ports:
		if !ok {
			t.Fatal("the MCP server exited before listening")
		}
		return p
	case <-time.After(time.Minute):
		t.Fatal("the MCP server did not start listening")
	}
	return 0
}
