package extension

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/npmtest"
)

// gitRepo is a local bare repository serving an extension, and the work
// tree its versions are committed from.
type gitRepo struct {
	t          *testing.T
	work, bare string
}

func newGitRepo(t *testing.T, name string) *gitRepo {
	t.Helper()
	npmtest.LookPath(t, "git")
	root := t.TempDir()
	r := &gitRepo{t: t, work: filepath.Join(root, "work"), bare: filepath.Join(root, name+".git")}
	r.git(root, "init", "-q", "-b", "main", r.work)
	r.commit(name, "1.0.0")
	r.git(root, "clone", "-q", "--bare", r.work, r.bare)
	return r
}

func (r *gitRepo) git(dir string, args ...string) {
	r.t.Helper()
	c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := c.CombinedOutput(); err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// commit writes version v of the extension and commits it.
func (r *gitRepo) commit(name, v string) {
	r.t.Helper()
	os.WriteFile(filepath.Join(r.work, config.ExtensionManifestName), []byte(`{"name": "`+name+`", "version": "`+v+`"}`), 0o644)
	os.WriteFile(filepath.Join(r.work, "GEMINI.md"), []byte("version "+v+"\n"), 0o644)
	r.git(r.work, "add", "-A")
	r.git(r.work, "commit", "-q", "-m", v)
}

// release commits version v and pushes it to the bare repository.
func (r *gitRepo) release(name, v string) {
	r.commit(name, v)
	r.git(r.work, "push", "-q", r.bare, "main")
}

func (r *gitRepo) url() string { return "file://" + r.bare }

// install installs source into extensions as Castor's install command
// does.
func install(t *testing.T, extensions string, meta config.ExtensionInstall) {
	t.Helper()
	src, cleanup, err := Fetch(context.Background(), &meta, meta.Type == "link")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	data, _ := os.ReadFile(filepath.Join(src, config.ExtensionManifestName))
	m, err := config.ParseExtensionManifest("m", data, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	from := src
	if meta.Type == "link" {
		from = ""
	}
	if _, err := Install(filepath.Join(extensions, m.Name), from, meta); err != nil {
		t.Fatal(err)
	}
}

func versionOf(t *testing.T, dir string) string {
	t.Helper()
	e, err := config.LoadExtension(dir, config.ExtensionsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return e.Version
}

// TestCheckAll: at start-up an extension installed from git with
// --auto-update is updated, one without it is announced, a linked one and
// an up-to-date one are left alone, a git source that is gone is one
// line and a local folder that is gone none.
func TestCheckAll(t *testing.T) {
	geminiDir := filepath.Join(t.TempDir(), ".gemini")
	extensions := config.ExtensionsDir(geminiDir)
	auto := newGitRepo(t, "auto")
	manual := newGitRepo(t, "manual")
	same := newGitRepo(t, "same")
	gone := newGitRepo(t, "gone")
	local := filepath.Join(t.TempDir(), "linked")
	os.MkdirAll(local, 0o755)
	os.WriteFile(filepath.Join(local, config.ExtensionManifestName), []byte(`{"name": "linked", "version": "1.0.0"}`), 0o644)

	install(t, extensions, config.ExtensionInstall{Source: auto.url(), AutoUpdate: true})
	install(t, extensions, config.ExtensionInstall{Source: manual.url()})
	install(t, extensions, config.ExtensionInstall{Source: same.url(), AutoUpdate: true})
	install(t, extensions, config.ExtensionInstall{Source: gone.url(), AutoUpdate: true})
	install(t, extensions, config.ExtensionInstall{Source: local, Type: "link"})
	tmpCopy := filepath.Join(t.TempDir(), "from-tmp")
	os.MkdirAll(tmpCopy, 0o755)
	os.WriteFile(filepath.Join(tmpCopy, config.ExtensionManifestName), []byte(`{"name": "from-tmp", "version": "1.0.0"}`), 0o644)
	install(t, extensions, config.ExtensionInstall{Source: tmpCopy})
	os.RemoveAll(tmpCopy)
	os.WriteFile(filepath.Join(extensions, "auto", ".env"), []byte("TOKEN=kept\n"), 0o600)

	auto.release("auto", "1.1.0")
	manual.release("manual", "2.0.0")
	os.RemoveAll(gone.bare)
	os.WriteFile(filepath.Join(local, config.ExtensionManifestName), []byte(`{"name": "linked", "version": "9.0.0"}`), 0o644)

	exts, warnings := config.LoadExtensions(config.ExtensionsOptions{GeminiDir: geminiDir})
	if len(exts) != 6 || len(warnings) > 0 {
		t.Fatalf("loaded %d extensions, warnings %q", len(exts), warnings)
	}
	// Updates made and available are information, failures warnings.
	var said []string
	CheckAll(context.Background(), exts, t.TempDir(), func(s string) { said = append(said, "info: "+s) }, func(s string) { said = append(said, "warn: "+s) })
	want := []string{
		`info: Extension "auto" successfully updated: 1.0.0 → 1.1.0. It is used from the next session on.`,
		`warn: Extension "gone": checking for an update failed: Failed to reach Git repository ` + gone.url() + `: `,
		`info: You have 1 extension with an update available (manual 1.0.0 → 2.0.0). Run "castor extensions update <name>" or "castor extensions update --all" to upgrade.`,
	}
	if len(said) != len(want) {
		t.Fatalf("said %q", said)
	}
	for i := range want {
		if !strings.HasPrefix(said[i], want[i]) || strings.Contains(said[i], "\n") {
			t.Errorf("line %d: %q, want %q…", i, said[i], want[i])
		}
	}
	for name, v := range map[string]string{"auto": "1.1.0", "manual": "1.0.0", "same": "1.0.0", "gone": "1.0.0", "linked": "9.0.0"} {
		if got := versionOf(t, filepath.Join(extensions, name)); got != v {
			t.Errorf("%s is at %s, want %s", name, got, v)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(extensions, "auto", ".env")); string(data) != "TOKEN=kept\n" {
		t.Errorf("settings lost: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(extensions, "auto", config.ExtensionInstallMetadataName)); !strings.Contains(string(data), `"autoUpdate": true`) {
		t.Errorf("install metadata lost: %s", data)
	}

	// A cancelled check stops without a word.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	said = nil
	say := func(s string) { said = append(said, s) }
	CheckAll(ctx, exts, t.TempDir(), say, say)
	if said != nil {
		t.Errorf("cancelled check said %q", said)
	}
}
