package headless_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// gitRepo makes the workspace a git repository with one commit.
func gitRepo(t *testing.T, e *e2etest.Env) {
	t.Helper()
	e.Write("README.md", "hello\n")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = e.WS
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func branches(t *testing.T, dir string) string {
	cmd := exec.Command("git", "branch", "--list")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestWorktreeFlag: -w NAME runs the session in .gemini/worktrees/NAME on
// branch worktree-NAME, as Gemini CLI 0.61 does; the worktree goes at exit
// when the session changed nothing, and stays, with a line saying how to
// come back, when it did.
func TestWorktreeFlag(t *testing.T) {
	t.Parallel()
	t.Run("unchanged worktree removed", func(t *testing.T) {
		e := e2etest.New(t, fakegemini.Text("Looked around."))
		gitRepo(t, e)
		r := e.Run("-w", "look", "-p", "look around")
		wt := filepath.Join(e.WS, ".gemini", "worktrees", "look")
		if r.Code != 0 || !strings.Contains(r.Stderr, "Working in the git worktree "+wt) {
			t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
		}
		// The model was told it works in the worktree.
		if got := e2etest.ContentsText(e.Srv.LastRequest()); !strings.Contains(got, wt) {
			t.Errorf("the request does not name the worktree:\n%s", got)
		}
		if _, err := os.Stat(wt); !os.IsNotExist(err) {
			t.Errorf("the unchanged worktree stayed: %v", err)
		}
		if b := branches(t, e.WS); strings.Contains(b, "worktree-look") {
			t.Errorf("its branch stayed:\n%s", b)
		}
	})
	t.Run("changed worktree kept", func(t *testing.T) {
		e := e2etest.New(t,
			fakegemini.Call("write_file", map[string]any{"file_path": "NOTES.md", "content": "notes\n"}),
			fakegemini.Text("Wrote it."))
		gitRepo(t, e)
		r := e.Run("-y", "--worktree", "notes", "-p", "write notes")
		wt := filepath.Join(e.WS, ".gemini", "worktrees", "notes")
		if r.Code != 0 || !strings.Contains(r.Stderr, "The worktree "+wt+" has changes and was kept.") {
			t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
		}
		if _, err := os.Stat(filepath.Join(wt, "NOTES.md")); err != nil {
			t.Errorf("the file was not written in the worktree: %v", err)
		}
		if _, err := os.Stat(filepath.Join(e.WS, "NOTES.md")); err == nil {
			t.Error("the file was written in the main checkout")
		}
		if b := branches(t, e.WS); !strings.Contains(b, "worktree-notes") {
			t.Errorf("the branch went:\n%s", b)
		}
	})
	t.Run("outside a repository", func(t *testing.T) {
		e := e2etest.New(t)
		r := e.Run("-w", "x", "-p", "hi")
		if r.Code == 0 || !strings.Contains(r.Stderr, "--worktree needs a git repository") || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
			t.Errorf("exit %d\nstderr %q", r.Code, r.Stderr)
		}
	})
}

// TestSessionFileFlag: --session-file imports a session file as a new
// session, whose history the next prompt carries, as Gemini CLI 0.61's
// does; it excludes --resume.
func TestSessionFileFlag(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("I will remember 4217."), fakegemini.Text("It was 4217."))
	if r := e.Run("-p", "remember the number 4217"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	data, err := os.ReadFile(e.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	exported := filepath.Join(t.TempDir(), "exported.jsonl")
	if err := os.WriteFile(exported, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.Run("--session-file", exported, "-p", "which number?")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	got := e2etest.ContentsText(e.Srv.LastRequest())
	if !strings.Contains(got, "remember the number 4217") || !strings.Contains(got, "I will remember 4217.") {
		t.Errorf("the imported conversation did not reach the model:\n%s", got)
	}
	if n := len(e.SessionFiles()); n != 2 {
		t.Errorf("%d session files, want the first and the imported one", n)
	}
	if r := e.Run("--session-file", exported, "--resume", "latest", "-p", "x"); r.Code == 0 || !strings.Contains(r.Stderr, "mutually exclusive") {
		t.Errorf("with --resume: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if r := e.Run("--session-file", filepath.Join(e.WS, "missing.jsonl"), "-p", "x"); r.Code == 0 || !strings.Contains(r.Stderr, "--session-file") {
		t.Errorf("missing file: exit %d, stderr %q", r.Code, r.Stderr)
	}
}
