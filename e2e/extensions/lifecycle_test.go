package extensions_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/npmtest"
)

// TestInterruptedUpdateRecovered: what an update killed between its
// renames leaves (here by an earlier Castor build, whose only whole copy
// was the one moved aside) is repaired by the next start: the extension is
// listed and runs, with one line on stderr saying so, and the working
// folders are gone.
func TestInterruptedUpdateRecovered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		leave   func(installed string)
		version string
		says    string
	}{
		{"only the moved-aside copy", func(d string) {
			os.Rename(d, d+".castor-old")
			os.MkdirAll(d+".castor-update", 0o755) // half copied
		}, "1.0.0", "rolled it back"},
		{"whole new copy not yet in place", func(d string) {
			os.Rename(d, d+".castor-old")
			os.MkdirAll(d+".castor-new", 0o755)
			e2etest.WriteFiles(t, d+".castor-new", map[string]string{"gemini-extension.json": `{"name": "my-ext", "version": "2.0.0"}`})
		}, "2.0.0", "finished it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t)
			src := filepath.Join(filepath.Dir(e.WS), "src", "my-ext")
			e2etest.WriteFiles(t, src, map[string]string{"gemini-extension.json": `{"name": "my-ext", "version": "1.0.0"}`})
			if r := e.Run("extensions", "install", src, "--consent"); r.Code != 0 {
				t.Fatalf("install: %s", r.Stderr)
			}
			root := filepath.Join(e.Home, ".gemini", "extensions")
			tt.leave(filepath.Join(root, "my-ext"))
			r := e.Run("extensions", "list")
			if r.Code != 0 || !strings.Contains(r.Stdout, "my-ext ("+tt.version+")") {
				t.Fatalf("list after the crash: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
			}
			if n := strings.Count(r.Stderr, "an update was interrupted"); n != 1 || !strings.Contains(r.Stderr, tt.says) {
				t.Errorf("stderr %q: want one line saying %q", r.Stderr, tt.says)
			}
			entries, _ := os.ReadDir(root)
			for _, d := range entries {
				if strings.Contains(d.Name(), ".castor-") && d.IsDir() {
					t.Errorf("left behind: %s", d.Name())
				}
			}
			if r := e.Run("extensions", "list"); strings.Contains(r.Stderr, "interrupted") {
				t.Errorf("second start repeats the repair: %s", r.Stderr)
			}
		})
	}
}

// bareRepo makes a local bare git repository serving extension name at
// version 1.0.0 and returns its file:// URL and a function that pushes a
// new version to it. No network is used.
func bareRepo(t *testing.T, name string) (url string, release func(version string)) {
	t.Helper()
	npmtest.LookPath(t, "git")
	root := t.TempDir()
	work, bare := filepath.Join(root, "work"), filepath.Join(root, name+".git")
	git := func(dir string, args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	commit := func(v string) {
		e2etest.WriteFiles(t, work, map[string]string{"gemini-extension.json": `{"name": "` + name + `", "version": "` + v + `"}`})
		git(work, "add", "-A")
		git(work, "commit", "-q", "-m", v)
	}
	git(root, "init", "-q", "-b", "main", work)
	commit("1.0.0")
	git(root, "clone", "-q", "--bare", work, bare)
	return "file://" + bare, func(v string) {
		commit(v)
		git(work, "push", "-q", bare, "main")
	}
}

// TestAutoUpdateAtInteractiveStart: as in Gemini CLI, the interactive
// terminal checks installed extensions in the background once started; one
// installed with --auto-update from git is updated and says so in the
// session, one without is announced; a -p run does not check at all.
func TestAutoUpdateAtInteractiveStart(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("done"))
	autoURL, autoRelease := bareRepo(t, "ax")
	manualURL, manualRelease := bareRepo(t, "mx")
	if r := e.Run("extensions", "install", autoURL, "--auto-update", "--consent"); r.Code != 0 {
		t.Fatalf("install: %s", r.Stderr)
	}
	if r := e.Run("extensions", "install", manualURL, "--consent"); r.Code != 0 {
		t.Fatalf("install: %s", r.Stderr)
	}
	autoRelease("1.1.0")
	manualRelease("2.0.0")
	manifest := filepath.Join(e.Home, ".gemini", "extensions", "ax", "gemini-extension.json")

	if r := e.Run("-p", "hi"); r.Code != 0 || strings.Contains(r.Stderr, "update") {
		t.Fatalf("-p run: exit %d, stderr %s", r.Code, r.Stderr)
	}
	if data, _ := os.ReadFile(manifest); !strings.Contains(string(data), "1.0.0") {
		t.Fatalf("a -p run updated the extension: %s", data)
	}

	tm := e.StartTUI()
	tm.WaitFor(`Extension "ax" successfully updated: 1.0.0 → 1.1.0.`)
	screen := tm.WaitFor(`You have 1 extension with an update available (mx 1.0.0 → 2.0.0).`)
	// Information, as in Gemini CLI, not warnings.
	for _, w := range []string{`ℹ Extension "ax" successfully updated`, `ℹ You have 1 extension`} {
		if !strings.Contains(screen, w) {
			t.Errorf("screen lacks %q:\n%s", w, screen)
		}
	}
	if data, _ := os.ReadFile(manifest); !strings.Contains(string(data), "1.1.0") {
		t.Errorf("installed manifest after the update: %s", data)
	}
	if r := e.Run("extensions", "list"); !strings.Contains(r.Stdout, "ax (1.1.0)") || !strings.Contains(r.Stdout, "mx (1.0.0)") {
		t.Errorf("list: %s", r.Stdout)
	}
}

// TestMCPServerTemplate: `extensions new <path> mcp-server` writes an
// extension whose MCP server runs with Node.js alone: once linked, a
// session calls its tool and gets the answer.
func TestMCPServerTemplate(t *testing.T) {
	t.Parallel()
	npmtest.LookPath(t, "node")
	e := e2etest.New(t,
		fakegemini.Call("count_words", map[string]any{"text": "the quick brown fox"}),
		fakegemini.Text("Four words."))
	dir := filepath.Join(filepath.Dir(e.WS), "my-mcp")
	if r := e.Run("extensions", "new", dir, "mcp-server"); r.Code != 0 {
		t.Fatalf("new: %s", r.Stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "README.md")); !strings.Contains(string(data), "Node.js") {
		t.Errorf("the README does not say Node.js is needed:\n%s", data)
	}
	if r := e.Run("extensions", "validate", dir); r.Code != 0 {
		t.Fatalf("validate: %s", r.Stderr)
	}
	if r := e.Run("extensions", "link", dir, "--consent"); r.Code != 0 {
		t.Fatalf("link: %s", r.Stderr)
	}
	r := e.Run("-p", "count the words of: the quick brown fox", "--yolo")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Four words.") {
		t.Fatalf("run: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	// As in Gemini CLI, an MCP tool's text follows its function response.
	last := reqs[1].LastContent()
	if name, _ := e2etest.FunctionResponse(t, last, 0); name != "count_words" || !strings.Contains(e2etest.MustJSON(last), `{\"words\":4,\"lines\":1}`) {
		t.Errorf("tool answer %s: %s", name, e2etest.MustJSON(last))
	}
}

// TestSensitiveSettingsNeverPlain: a sensitive extension setting, even
// configured for the workspace, is kept in ~/.gemini's 0600 secrets file,
// never in a .env (the workspace's is committed); it still reaches the
// extension. A plain value an earlier build wrote keeps working, is warned
// about once per run, and moves to the secrets file at the next config.
func TestSensitiveSettingsNeverPlain(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("one"), fakegemini.Text("two"), fakegemini.Text("three"))
	src := filepath.Join(filepath.Dir(e.WS), "src", "sec-ext")
	out := filepath.Join(filepath.Dir(e.WS), "hook-env.txt")
	e2etest.WriteFiles(t, src, map[string]string{
		"gemini-extension.json": `{"name": "sec-ext", "version": "1.0.0",
			"settings": [{"name": "Region", "envVar": "SEC_REGION"},
			             {"name": "Token", "envVar": "SEC_TOKEN", "sensitive": true},
			             {"name": "Old", "envVar": "SEC_OLD", "sensitive": true}]}`,
		"hooks/hooks.json": `{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command",
			"command": "echo \"$SEC_REGION|$SEC_TOKEN|$SEC_OLD\" >> ` + out + `; cat >/dev/null"}]}]}}`,
	})
	if r := e.Run("extensions", "install", src, "--consent", "--skip-settings"); r.Code != 0 {
		t.Fatalf("install: %s", r.Stderr)
	}
	wsEnv := filepath.Join(e.WS, ".env")
	extEnv := filepath.Join(e.Home, ".gemini", "extensions", "sec-ext", ".env")
	secrets := filepath.Join(e.Home, ".gemini", "castor_extension_secrets.json")
	os.WriteFile(wsEnv, []byte("APP_PORT=8080\n"), 0o644)

	r := e.RunWithStdin("s3cret\n", "extensions", "config", "--scope", "workspace", "sec-ext", "SEC_TOKEN")
	if r.Code != 0 || !strings.Contains(r.Stdout, `Setting "Token" updated.`) {
		t.Fatalf("config: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	for _, f := range []string{wsEnv, extEnv} {
		if data, _ := os.ReadFile(f); strings.Contains(string(data), "s3cret") {
			t.Errorf("the secret is in plain text in %s", f)
		}
	}
	if fi, err := os.Stat(secrets); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file: %v %v", fi, err)
	}
	if data, _ := os.ReadFile(wsEnv); string(data) != "APP_PORT=8080\n" {
		t.Errorf("workspace .env changed: %q", data)
	}
	if r := e.RunWithStdin("eu\n", "extensions", "config", "sec-ext", "Region"); r.Code != 0 {
		t.Fatalf("config region: %s", r.Stderr)
	}
	if r := e.Run("-p", "hi"); r.Code != 0 || strings.Contains(r.Stderr, "plain text") {
		t.Fatalf("run: exit %d, stderr %s", r.Code, r.Stderr)
	}

	// What an earlier build left: a sensitive value in the extension's
	// .env.
	extData, _ := os.ReadFile(extEnv)
	os.WriteFile(extEnv, append(extData, "SEC_OLD=legacy\n"...), 0o600)
	r = e.Run("-p", "hi")
	if r.Code != 0 || strings.Count(r.Stderr, "is stored in plain text in "+extEnv) != 1 {
		t.Fatalf("legacy value: exit %d, stderr %s", r.Code, r.Stderr)
	}
	r = e.RunWithStdin("", "extensions", "config", "sec-ext", "Region")
	if !strings.Contains(r.Stderr, `Moved the sensitive setting "Old" (SEC_OLD) of "sec-ext" from `+extEnv) {
		t.Fatalf("no migration: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if data, _ := os.ReadFile(extEnv); strings.Contains(string(data), "legacy") {
		t.Errorf("extension .env after the migration: %q", data)
	}
	if r := e.Run("-p", "hi"); r.Code != 0 || strings.Contains(r.Stderr, "plain text") {
		t.Fatalf("run after migration: exit %d, stderr %s", r.Code, r.Stderr)
	}
	// The workspace's .env is the project's: a sensitive variable there
	// (its app may read it too) is never moved or rewritten; configuring
	// the extension says it is there.
	ws := "APP_PORT=8080\nSEC_OLD=project\n"
	os.WriteFile(wsEnv, []byte(ws), 0o644)
	r = e.RunWithStdin("", "extensions", "config", "sec-ext", "Region")
	if !strings.Contains(r.Stderr, "Note: "+wsEnv+" sets SEC_OLD") || strings.Contains(r.Stderr, "Moved") {
		t.Fatalf("workspace .env: exit %d\nstderr %s", r.Code, r.Stderr)
	}
	if data, _ := os.ReadFile(wsEnv); string(data) != ws {
		t.Errorf("workspace .env rewritten: %q", data)
	}
	data, _ := os.ReadFile(out)
	if got, want := string(data), "eu|s3cret|\neu|s3cret|legacy\neu|s3cret|legacy\n"; got != want {
		t.Errorf("hook saw %q, want %q", got, want)
	}
	// Uninstalling forgets its secrets.
	if r := e.Run("extensions", "uninstall", "sec-ext"); r.Code != 0 {
		t.Fatalf("uninstall: %s", r.Stderr)
	}
	if data, _ := os.ReadFile(secrets); strings.Contains(string(data), "s3cret") || strings.Contains(string(data), "legacy") {
		t.Errorf("secrets kept after uninstall: %s", data)
	}
}

// TestInstallOverInterruptedUpdate: installing again over what a killed
// update left brings the old copy back (with the user's settings) and
// refuses, as installing over an installed extension does, instead of
// replacing it.
func TestInstallOverInterruptedUpdate(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	src := filepath.Join(filepath.Dir(e.WS), "src", "my-ext")
	e2etest.WriteFiles(t, src, map[string]string{"gemini-extension.json": `{"name": "my-ext", "version": "1.0.0"}`})
	if r := e.Run("extensions", "install", src, "--consent"); r.Code != 0 {
		t.Fatalf("install: %s", r.Stderr)
	}
	dir := filepath.Join(e.Home, ".gemini", "extensions", "my-ext")
	os.WriteFile(filepath.Join(dir, ".env"), []byte("REGION=eu\n"), 0o600)
	os.Rename(dir, dir+".castor-old")
	r := e.Run("extensions", "install", src, "--consent")
	if r.Code == 0 || !strings.Contains(r.Stderr, `Extension "my-ext" is already installed.`) || !strings.Contains(r.Stderr, "rolled it back") {
		t.Fatalf("install over the leftover: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".env")); string(data) != "REGION=eu\n" {
		t.Errorf("settings after the refused install: %q", data)
	}
}
