package e2etest

import (
	"bufio"
	"bytes"
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
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("client: %v\n%s\n%s", err, stdout.String(), stderr.String())
		}
	case <-time.After(2 * time.Minute): // a hang, not a timing assertion
		_ = cmd.Process.Kill()
		t.Fatalf("client hung\n%s\n%s", stdout.String(), stderr.String())
	}
	if s := stderr.String(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
		t.Fatalf("stack trace on stderr:\n%s", s)
	}
	steps := map[string]map[string]any{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err == nil {
			if name, ok := m["step"].(string); ok {
				steps[name] = m
			}
		}
	}
	if s, ok := steps["error"]; ok {
		t.Fatalf("client error: %v\nstderr:\n%s", s, stderr.String())
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
