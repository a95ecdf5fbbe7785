package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestSessionIDReused: --session-id names a new session. Given again for a
// session this project already recorded, castor refuses (exit 42) and
// points at --resume, instead of running unrecorded or splitting the
// session over two files; an id that is not a plain name is a usage
// error, as in Gemini CLI.
func TestSessionIDReused(t *testing.T) {
	e := newEnv(t, fakegemini.Text("first"), fakegemini.Text("resumed"))
	const id = "ci-job-42"
	if r := e.run("--session-id", id, "-p", "one"); r.code != 0 || r.stdout != "first\n" {
		t.Fatalf("first run: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r := e.run("--session-id", id, "-p", "two")
	if r.code != 42 || r.stdout != "" || !strings.Contains(r.stderr, "--resume "+id) {
		t.Errorf("reused id: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := e.run("--resume", id, "-p", "two"); r.code != 0 || r.stdout != "resumed\n" {
		t.Errorf("resume: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(e.home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if len(files) != 1 {
		t.Errorf("session files %v, want one", files)
	}
	if r := e.run("--session-id", "../escape", "-p", "x"); r.code != 1 || !strings.Contains(r.stderr, "invalid session ID") {
		t.Errorf("bad id: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2", n)
	}
}
