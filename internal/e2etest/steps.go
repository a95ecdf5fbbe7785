package e2etest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"
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
