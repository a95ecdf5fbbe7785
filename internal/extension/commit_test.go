package extension

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
)

// TestNewCommitSameVersion: a git source with new commits under the same
// manifest version is offered as an update, as Gemini CLI compares the
// installed commit with the ref's upstream; updating records the new
// commit, after which the extension is up to date.
func TestNewCommitSameVersion(t *testing.T) {
	geminiDir := filepath.Join(t.TempDir(), ".gemini")
	extensions := config.ExtensionsDir(geminiDir)
	manual := newGitRepo(t, "manual")
	auto := newGitRepo(t, "auto")
	install(t, extensions, config.ExtensionInstall{Source: manual.url()})
	install(t, extensions, config.ExtensionInstall{Source: auto.url(), AutoUpdate: true})
	load := func() map[string]*config.Extension {
		t.Helper()
		exts, warnings := config.LoadExtensions(config.ExtensionsOptions{GeminiDir: geminiDir})
		if len(warnings) > 0 {
			t.Fatal(warnings)
		}
		byName := map[string]*config.Extension{}
		for _, e := range exts {
			byName[e.Name] = e
		}
		return byName
	}
	before := load()
	if c := before["manual"].Install.Commit; len(c) != 40 {
		t.Fatalf("install recorded commit %q", c)
	}

	// Up to date: nothing said.
	var said []string
	say := func(s string) { said = append(said, s) }
	CheckAll(context.Background(), []*config.Extension{before["manual"], before["auto"]}, t.TempDir(), say, say)
	if said != nil {
		t.Fatalf("up to date, said %q", said)
	}

	// New commits, same version 1.0.0.
	for _, r := range []*gitRepo{manual, auto} {
		os.WriteFile(filepath.Join(r.work, "GEMINI.md"), []byte("better words\n"), 0o644)
		r.git(r.work, "commit", "-q", "-am", "words")
		r.git(r.work, "push", "-q", r.bare, "main")
	}
	CheckAll(context.Background(), []*config.Extension{before["manual"], before["auto"]}, t.TempDir(), say, say)
	if len(said) != 2 || !strings.HasPrefix(said[0], `Extension "auto" successfully updated: 1.0.0 (`) || !strings.Contains(said[1], "update available (manual 1.0.0 (") {
		t.Fatalf("new commits, said %q", said)
	}
	if data, _ := os.ReadFile(filepath.Join(extensions, "auto", "GEMINI.md")); string(data) != "better words\n" {
		t.Errorf("auto not updated: GEMINI.md %q", data)
	}
	after := load()
	if after["auto"].Install.Commit == before["auto"].Install.Commit || !after["auto"].Install.AutoUpdate {
		t.Errorf("the update did not record the new commit: %+v", after["auto"].Install)
	}

	// `castor extensions update manual` takes the new commit too.
	from, to, _, err := Update(context.Background(), after["manual"], t.TempDir())
	if err != nil || from == to || !strings.HasPrefix(from, "1.0.0 (") || !strings.HasPrefix(to, "1.0.0 (") {
		t.Fatalf("Update: %q → %q, %v", from, to, err)
	}
	said = nil
	final := load()
	CheckAll(context.Background(), []*config.Extension{final["manual"], final["auto"]}, t.TempDir(), say, say)
	if said != nil {
		t.Errorf("after the updates, said %q", said)
	}
	if from, to, _, err := Update(context.Background(), final["manual"], t.TempDir()); err != nil || from != to {
		t.Errorf("Update when up to date: %q → %q, %v", from, to, err)
	}
}

// TestNewCommitOfTag: an install pinned to an annotated tag is up to date
// while the tag stays; ls-remote's peeled line is the commit cloned.
func TestNewCommitOfTag(t *testing.T) {
	geminiDir := filepath.Join(t.TempDir(), ".gemini")
	r := newGitRepo(t, "tagged")
	r.git(r.work, "tag", "-a", "-m", "v1", "v1")
	r.git(r.work, "push", "-q", r.bare, "v1")
	install(t, config.ExtensionsDir(geminiDir), config.ExtensionInstall{Source: r.url(), Ref: "v1"})
	r.release("tagged", "1.0.1") // main moves on, the tag does not
	exts, _ := config.LoadExtensions(config.ExtensionsOptions{GeminiDir: geminiDir})
	if len(exts) != 1 {
		t.Fatalf("%d extensions", len(exts))
	}
	if u, err := Newer(context.Background(), exts[0], t.TempDir()); u != nil || err != nil {
		t.Errorf("tag unchanged: %+v, %v", u, err)
	}
}

func TestParseLsRemote(t *testing.T) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	tests := []struct {
		out, want, err string
	}{
		{a + "\tHEAD\n", a, ""},
		{a + "\trefs/tags/v1\n" + b + "\trefs/tags/v1^{}\n", b, ""},
		{a + "\trefs/heads/main\n" + b + "\trefs/remotes/origin/main\n", a, ""},
		{"", "", "Git ref main not found in src"},
		{"warning: junk\n", "", "Git ref main not found in src"},
	}
	for _, tt := range tests {
		got, err := parseLsRemote(tt.out, "src", "main")
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("parseLsRemote(%q) = %q, %v; want %q, %q", tt.out, got, err, tt.want, tt.err)
		}
	}
}

func FuzzParseLsRemote(f *testing.F) {
	f.Add(strings.Repeat("a", 40) + "\tHEAD\n")
	f.Add(strings.Repeat("a", 40) + "\trefs/tags/v1^{}\n")
	f.Add("\t\t\n")
	f.Fuzz(func(t *testing.T, out string) {
		got, err := parseLsRemote(out, "src", "HEAD")
		if err == nil && !isHash(got) {
			t.Errorf("parseLsRemote(%q) = %q, not a commit", out, got)
		}
	})
}
