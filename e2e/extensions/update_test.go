package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtensionsNewThenUpdate walks an extension author's loop with the
// built binary: `extensions new` writes a boilerplate, `install` copies
// it, `update` reports "up to date" until the source's version changes,
// then swaps the new copy in keeping the user's settings (.env); a linked
// extension is never updated; bad arguments are refused.
func TestExtensionsNewThenUpdate(t *testing.T) {
	e := newEnv(t)
	src := filepath.Join(filepath.Dir(e.ws), "src", "my-ext")
	r := e.run("extensions", "new", src, "custom-commands")
	if r.code != 0 || !strings.Contains(r.stdout, `Successfully created new extension from template "custom-commands"`) {
		t.Fatalf("new: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if r := e.run("extensions", "validate", src); r.code != 0 {
		t.Fatalf("the boilerplate does not validate: %s", r.stderr)
	}
	if r := e.run("extensions", "new", src); r.code == 0 || !strings.Contains(r.stderr, "Path already exists") {
		t.Errorf("new over an existing folder: exit %d, stderr %s", r.code, r.stderr)
	}
	if r := e.run("extensions", "new", filepath.Join(e.ws, "x"), "no-such-template"); r.code == 0 || !strings.Contains(r.stderr, "custom-commands") {
		t.Errorf("unknown template: exit %d, stderr %s", r.code, r.stderr)
	}
	plain := filepath.Join(filepath.Dir(e.ws), "src", "plain")
	if r := e.run("extensions", "new", plain); r.code != 0 {
		t.Fatalf("new without template: %s", r.stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(plain, "gemini-extension.json")); !strings.Contains(string(data), `"name": "plain"`) {
		t.Errorf("manifest %s", data)
	}

	if r := e.run("extensions", "install", src); r.code != 0 {
		t.Fatalf("install: %s", r.stderr)
	}
	installed := filepath.Join(e.home, ".gemini", "extensions", "my-ext")
	os.WriteFile(filepath.Join(installed, ".env"), []byte("TOKEN=kept\n"), 0o600)
	r = e.run("extensions", "update", "my-ext")
	if r.code != 0 || !strings.Contains(r.stdout, `Extension "my-ext" is already up to date.`) {
		t.Fatalf("update unchanged: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	writeFiles(t, src, map[string]string{
		"gemini-extension.json": `{"name": "my-ext", "version": "1.1.0"}`,
		"commands/added.toml":   "prompt = \"added\"\n",
	})
	r = e.run("extensions", "update", "--all")
	if r.code != 0 || !strings.Contains(r.stdout, `Extension "my-ext" successfully updated: 1.0.0 → 1.1.0.`) {
		t.Fatalf("update --all: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
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
	r = e.run("extensions", "list")
	if !strings.Contains(r.stdout, "my-ext (1.1.0)") {
		t.Errorf("list after update: %s", r.stdout)
	}
	if r := e.run("extensions", "update", "--all"); !strings.Contains(r.stdout, "No extensions to update.") {
		t.Errorf("second update --all: %s", r.stdout)
	}

	if r := e.run("extensions", "link", plain); r.code != 0 {
		t.Fatalf("link: %s", r.stderr)
	}
	if r := e.run("extensions", "update", "plain"); r.code != 0 || !strings.Contains(r.stdout, "linked") {
		t.Errorf("update of a link: exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"update"}, {"update", "my-ext", "--all"}} {
		if r := e.run(append([]string{"extensions"}, args...)...); r.code == 0 {
			t.Errorf("%v: exit 0", args)
		}
	}
	if r := e.run("extensions", "update", "nope"); r.code == 0 || !strings.Contains(r.stderr, "my-ext (1.1.0)") {
		t.Errorf("update of a missing extension: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestExtensionsUpdateFromGit updates an extension installed from a git
// repository (a file:// URL, so no network) after a new commit bumps it.
func TestExtensionsUpdateFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed")
		}
		t.Skip("git is not installed")
	}
	e := newEnv(t)
	repo := filepath.Join(filepath.Dir(e.ws), "repo")
	writeFiles(t, repo, map[string]string{"gemini-extension.json": `{"name": "git-ext", "version": "1.0.0"}`})
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
	if r := e.run("extensions", "install", "file://"+repo); r.code != 0 {
		t.Fatalf("install: %s", r.stderr)
	}
	writeFiles(t, repo, map[string]string{"gemini-extension.json": `{"name": "git-ext", "version": "2.0.0"}`})
	git("commit", "-q", "-am", "two")
	r := e.run("extensions", "update", "git-ext")
	if r.code != 0 || !strings.Contains(r.stdout, "1.0.0 → 2.0.0") {
		t.Fatalf("update: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if r := e.run("extensions", "list"); !strings.Contains(r.stdout, "(Type: git)") || !strings.Contains(r.stdout, "git-ext (2.0.0)") {
		t.Errorf("list: %s", r.stdout)
	}
}
