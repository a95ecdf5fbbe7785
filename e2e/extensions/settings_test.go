package extensions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestExtensionSettingsConfigured: an extension declaring settings asks
// for them at install (values piped on stdin), `extensions config` changes
// them, and the values reach the extension's hook as environment
// variables, as in Gemini CLI.
func TestExtensionSettingsConfigured(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("one"), fakegemini.Text("two"))
	src := filepath.Join(filepath.Dir(e.WS), "src", "set-ext")
	out := filepath.Join(e.WS, "hook-env.txt")
	e2etest.WriteFiles(t, src, map[string]string{
		"gemini-extension.json": `{"name": "set-ext", "version": "1.0.0",
			"settings": [{"name": "Api Key", "description": "The service key", "envVar": "SET_EXT_KEY"},
			             {"name": "Region", "envVar": "SET_EXT_REGION"},
			             {"name": "Token", "envVar": "SET_EXT_TOKEN", "sensitive": true}]}`,
		"hooks/hooks.json": `{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command",
			"command": "echo \"$SET_EXT_KEY|$SET_EXT_REGION\" >> ` + out + `; cat >/dev/null"}]}]}}`,
	})
	r := e.RunWithStdin("y\nmy key #1\n", "extensions", "install", src)
	if r.Code != 0 || !strings.Contains(r.Stdout, `Setting "Api Key" updated.`) || !strings.Contains(r.Stderr, "The service key") {
		t.Fatalf("install: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	// Input ran out before the second setting: it is left unset, and said.
	if !strings.Contains(r.Stderr, `castor extensions config set-ext "SET_EXT_REGION"`) {
		t.Errorf("no hint for the unset setting: %s", r.Stderr)
	}
	envFile := filepath.Join(e.Home, ".gemini", "extensions", "set-ext", ".env")
	if fi, err := os.Stat(envFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf(".env: %v %v", fi, err)
	}
	if r := e.Run("-p", "hi"); r.Code != 0 {
		t.Fatalf("run: %s", r.Stderr)
	}
	r = e.RunWithStdin("eu-west\n", "extensions", "config", "set-ext", "Region")
	if r.Code != 0 || !strings.Contains(r.Stdout, `Setting "Region" updated.`) {
		t.Fatalf("config: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	// Without a setting named, a set value is only replaced on "y".
	r = e.RunWithStdin("n\n", "extensions", "config", "set-ext")
	if r.Code != 0 || !strings.Contains(r.Stderr, "is already set. Overwrite?") {
		t.Fatalf("config all: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := e.Run("-p", "again"); r.Code != 0 {
		t.Fatalf("run: %s", r.Stderr)
	}
	data, _ := os.ReadFile(out)
	if got, want := string(data), "my key #1|\nmy key #1|eu-west\n"; got != want {
		t.Errorf("hook saw %q, want %q", got, want)
	}
	if r := e.RunWithStdin("s3cret\n", "extensions", "config", "set-ext", "SET_EXT_TOKEN"); r.Code != 0 {
		t.Fatalf("config token: %s", r.Stderr)
	}
	if r := e.Run("extensions", "list"); !strings.Contains(r.Stdout, "Region: eu-west") || !strings.Contains(r.Stdout, "Token: ***") || strings.Contains(r.Stdout, "s3cret") {
		t.Errorf("list: %s", r.Stdout)
	}
	for _, args := range [][]string{{"config", "nope"}, {"config", "set-ext", "NOPE"}, {"config", "--scope", "system", "set-ext"}} {
		if r := e.RunWithStdin("", append([]string{"extensions"}, args...)...); r.Code == 0 {
			t.Errorf("%v: exit 0, stdout %s", args, r.Stdout)
		}
	}
	// --skip-settings asks nothing.
	e2 := e2etest.New(t)
	if r := e2.RunWithStdin("never read\n", "extensions", "install", "--consent", "--skip-settings", src); r.Code != 0 || strings.Contains(r.Stdout, "updated") {
		t.Errorf("--skip-settings: exit %d, stdout %s", r.Code, r.Stdout)
	}
}

// TestExtensionInstallConsent: install asks "Do you want to continue?"
// as Gemini CLI does; "n" cancels and leaves nothing behind, --consent
// skips the question, and Enter or closed stdin take the default, yes.
func TestExtensionInstallConsent(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	src := filepath.Join(filepath.Dir(e.WS), "src", "ask-ext")
	e2etest.WriteFiles(t, src, map[string]string{"gemini-extension.json": `{"name": "ask-ext", "version": "1.0.0"}`})
	dest := filepath.Join(e.Home, ".gemini", "extensions", "ask-ext")
	r := e.RunWithStdin("n\n", "extensions", "install", src)
	if r.Code == 0 || !strings.Contains(r.Stderr, "Do you want to continue? [Y/n]") || !strings.Contains(r.Stderr, `Installation cancelled for "ask-ext".`) {
		t.Fatalf("answer n: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(dest); err == nil {
		t.Fatal("a cancelled install left the extension installed")
	}
	for _, tc := range []struct {
		stdin string
		args  []string
	}{
		{"n\n", []string{"extensions", "install", "--consent", src}},
		{"\n", []string{"extensions", "install", src}},
		{"", []string{"extensions", "link", src}},
	} {
		r := e.RunWithStdin(tc.stdin, tc.args...)
		if r.Code != 0 {
			t.Fatalf("%v with stdin %q: exit %d: %s", tc.args, tc.stdin, r.Code, r.Stderr)
		}
		if strings.Contains(tc.stdin, "n") && strings.Contains(r.Stderr, "Do you want to continue") {
			t.Errorf("--consent still asked: %s", r.Stderr)
		}
		if r := e.Run("extensions", "uninstall", "ask-ext"); r.Code != 0 {
			t.Fatalf("uninstall: %s", r.Stderr)
		}
	}
}
