package headless_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestSessionIDReused: --session-id names a new session. Given again for a
// session this project already recorded, castor refuses (exit 42) and
// points at --resume, instead of running unrecorded or splitting the
// session over two files; an id that is not a plain name is a usage
// error, as in Gemini CLI.
func TestSessionIDReused(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("first"), fakegemini.Text("resumed"))
	const id = "ci-job-42"
	if r := e.Run("--session-id", id, "-p", "one"); r.Code != 0 || r.Stdout != "first\n" {
		t.Fatalf("first run: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	r := e.Run("--session-id", id, "-p", "two")
	if r.Code != 42 || r.Stdout != "" || !strings.Contains(r.Stderr, "--resume "+id) {
		t.Errorf("reused id: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := e.Run("--resume", id, "-p", "two"); r.Code != 0 || r.Stdout != "resumed\n" {
		t.Errorf("resume: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	files, _ := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if len(files) != 1 {
		t.Errorf("session files %v, want one", files)
	}
	if r := e.Run("--session-id", "../escape", "-p", "x"); r.Code != 1 || !strings.Contains(r.Stderr, "invalid session ID") {
		t.Errorf("bad id: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if n := len(e.Srv.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2", n)
	}
}
