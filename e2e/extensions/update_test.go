package extensions_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

// TestExtensionsNewThenUpdate walks an extension author's loop with the
// built binary: `extensions new` writes a boilerplate, `install` copies
// it, `update` reports "up to date" until the source's version changes,
// then swaps the new copy in keeping the user's settings (.env); a linked
// extension is never updated; bad arguments are refused.
func TestExtensionsNewThenUpdate(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	src := filepath.Join(filepath.Dir(e.WS), "src", "my-ext")
	r := e.Run("extensions", "new", src, "custom-commands")
	if r.Code != 0 || !strings.Contains(r.Stdout, `Successfully created new extension from template "custom-commands"`) {
		t.Fatalf("new: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := e.Run("extensions", "validate", src); r.Code != 0 {
		t.Fatalf("the boilerplate does not validate: %s", r.Stderr)
	}
	if r := e.Run("extensions", "new", src); r.Code == 0 || !strings.Contains(r.Stderr, "Path already exists") {
		t.Errorf("new over an existing folder: exit %d, stderr %s", r.Code, r.Stderr)
	}
	if r := e.Run("extensions", "new", filepath.Join(e.WS, "x"), "no-such-template"); r.Code == 0 || !strings.Contains(r.Stderr, "custom-commands") {
		t.Errorf("unknown template: exit %d, stderr %s", r.Code, r.Stderr)
	}
	plain := filepath.Join(filepath.Dir(e.WS), "src", "plain")
	if r := e.Run("extensions", "new", plain); r.Code != 0 {
		t.Fatalf("new without template: %s", r.Stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(plain, "gemini-extension.json")); !strings.Contains(string(data), `"name": "plain"`) {
		t.Errorf("manifest %s", data)
	}

	if r := e.Run("extensions", "install", src); r.Code != 0 {
		t.Fatalf("install: %s", r.Stderr)
	}
	installed := filepath.Join(e.Home, ".gemini", "extensions", "my-ext")
	os.WriteFile(filepath.Join(installed, ".env"), []byte("TOKEN=kept\n"), 0o600)
	r = e.Run("extensions", "update", "my-ext")
	if r.Code != 0 || !strings.Contains(r.Stdout, `Extension "my-ext" is already up to date.`) {
		t.Fatalf("update unchanged: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	e2etest.WriteFiles(t, src, map[string]string{
		"gemini-extension.json": `{"name": "my-ext", "version": "1.1.0"}`,
		"commands/added.toml":   "prompt = \"added\"\n",
	})
	r = e.Run("extensions", "update", "--all")
	if r.Code != 0 || !strings.Contains(r.Stdout, `Extension "my-ext" successfully updated: 1.0.0 → 1.1.0.`) {
		t.Fatalf("update --all: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(installed, "commands", "added.toml")); err != nil {
		t.Errorf("the new file was not installed: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(installed, ".env")); string(data) != "TOKEN=kept\n" {
		t.Errorf("settings lost on update: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(installed, ".gemini-extension-install.json")); !strings.Contains(string(data), `"type": "local"`) {
		t.Errorf("install metadata lost: %s", data)
	}
	r = e.Run("extensions", "list")
	if !strings.Contains(r.Stdout, "my-ext (1.1.0)") {
		t.Errorf("list after update: %s", r.Stdout)
	}
	if r := e.Run("extensions", "update", "--all"); !strings.Contains(r.Stdout, "No extensions to update.") {
		t.Errorf("second update --all: %s", r.Stdout)
	}

	if r := e.Run("extensions", "link", plain); r.Code != 0 {
		t.Fatalf("link: %s", r.Stderr)
	}
	if r := e.Run("extensions", "update", "plain"); r.Code != 0 || !strings.Contains(r.Stdout, "linked") {
		t.Errorf("update of a link: exit %d, stdout %s, stderr %s", r.Code, r.Stdout, r.Stderr)
	}
	for _, args := range [][]string{{"update"}, {"update", "my-ext", "--all"}} {
		if r := e.Run(append([]string{"extensions"}, args...)...); r.Code == 0 {
			t.Errorf("%v: exit 0", args)
		}
	}
	if r := e.Run("extensions", "update", "nope"); r.Code == 0 || !strings.Contains(r.Stderr, "my-ext (1.1.0)") {
		t.Errorf("update of a missing extension: exit %d, stderr %s", r.Code, r.Stderr)
	}
}

// TestExtensionsUpdateFromGit updates an extension installed from a git
// repository (a file:// URL, so no network) after a new commit bumps it.
func TestExtensionsUpdateFromGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed")
		}
		t.Skip("git is not installed")
	}
	e := e2etest.New(t)
	repo := filepath.Join(filepath.Dir(e.WS), "repo")
	e2etest.WriteFiles(t, repo, map[string]string{"gemini-extension.json": `{"name": "git-ext", "version": "1.0.0"}`})
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
	if r := e.Run("extensions", "install", "file://"+repo); r.Code != 0 {
		t.Fatalf("install: %s", r.Stderr)
	}
	e2etest.WriteFiles(t, repo, map[string]string{"gemini-extension.json": `{"name": "git-ext", "version": "2.0.0"}`})
	git("commit", "-q", "-am", "two")
	r := e.Run("extensions", "update", "git-ext")
	if r.Code != 0 || !strings.Contains(r.Stdout, "1.0.0 → 2.0.0") {
		t.Fatalf("update: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := e.Run("extensions", "list"); !strings.Contains(r.Stdout, "(Type: git)") || !strings.Contains(r.Stdout, "git-ext (2.0.0)") {
		t.Errorf("list: %s", r.Stdout)
	}
}
