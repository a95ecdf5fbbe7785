package e2etest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/npmtest"
)

// RunSteps runs cmd, an interop client script (a Node program driving
// the built binary with an official SDK), to its end and returns the
// JSON lines it printed on stdout by their "step" name. A client that
// fails, hangs, prints an "error" step, or whose castor printed a stack
// trace fails the test.
func RunSteps(t *testing.T, cmd *exec.Cmd) map[string]map[string]any {
	t.Helper()
	p := StartCommand(t, cmd, Options{HangLimit: 2 * time.Minute})
	if err := p.Wait(); err != nil {
		t.Fatalf("client: %v\n%s\n%s", err, p.Stdout, p.Stderr)
	}
	if s := p.Stderr.String(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
		t.Fatalf("stack trace on stderr:\n%s", s)
	}
	steps := map[string]map[string]any{}
	for line := range p.Unread() {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err == nil {
			if name, ok := m["step"].(string); ok {
				steps[name] = m
			}
		}
	}
	if s, ok := steps["error"]; ok {
		t.Fatalf("client error: %v\nstderr:\n%s", s, p.Stderr)
	}
	return steps
}

// NodeClient returns node when the npm package pkg is installed in
// dir/node_modules (by npm ci from dir's lock file), or reports the
// missing one (npmtest.Missing).
func NodeClient(t *testing.T, dir, pkg string) (node string) {
	t.Helper()
	node = npmtest.LookPath(t, "node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
		npmtest.Missing(t, "%s is missing: run npm ci --ignore-scripts in %s", pkg, dir)
	}
	return node
}

// RunClient runs dir/client.mjs with node as this user, with the built
// binary in CASTOR_BIN and extra in its environment, and returns its
// steps (RunSteps).
func (e *Env) RunClient(node, dir string, extra ...string) map[string]map[string]any {
	e.T.Helper()
	cmd := DieWithTest(exec.Command(node, "client.mjs"))
	cmd.Dir = dir
	cmd.Env = append(e.Environ(), append([]string{"CASTOR_BIN=" + Binary(e.T)}, extra...)...)
	return RunSteps(e.T, cmd)
}
