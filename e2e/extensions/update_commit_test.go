package extensions_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/npmtest"
)

// TestExtensionsUpdateNewCommit: a git source with a new commit under the
// same manifest version is updated, as Gemini CLI finds updates of git
// installs by commit (git ls-remote against the installed one); the
// output names both commits. Once updated it is up to date.
func TestExtensionsUpdateNewCommit(t *testing.T) {
	t.Parallel()
	npmtest.LookPath(t, "git")
	e := e2etest.New(t)
	repo := filepath.Join(filepath.Dir(e.WS), "repo")
	e2etest.WriteFiles(t, repo, map[string]string{"gemini-extension.json": `{"name": "git-ext", "version": "1.0.0"}`, "GEMINI.md": "one\n"})
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "one")
	if r := e.Run("extensions", "install", "file://"+repo, "--consent"); r.Code != 0 {
		t.Fatalf("install: %s", r.Stderr)
	}
	if r := e.Run("extensions", "update", "git-ext"); r.Code != 0 || !strings.Contains(r.Stdout, "already up to date") {
		t.Fatalf("update with no new commit: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	e2etest.WriteFiles(t, repo, map[string]string{"GEMINI.md": "two\n"})
	git("commit", "-q", "-am", "two")
	r := e.Run("extensions", "update", "git-ext")
	if r.Code != 0 || !regexp.MustCompile(`successfully updated: 1\.0\.0 \([0-9a-f]{7}\) → 1\.0\.0 \([0-9a-f]{7}\)`).MatchString(r.Stdout) {
		t.Fatalf("update after a new commit: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(e.Home, ".gemini", "extensions", "git-ext", "GEMINI.md")); string(data) != "two\n" {
		t.Errorf("installed GEMINI.md %q", data)
	}
	if r := e.Run("extensions", "update", "--all"); r.Code != 0 || !strings.Contains(r.Stdout, "No extensions to update") {
		t.Errorf("update --all once updated: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
}
