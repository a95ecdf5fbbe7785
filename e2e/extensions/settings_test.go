package cli_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// runWithStdin is e.run with stdin fed from in.
func (e *env) runWithStdin(in string, args ...string) result {
	e.t.Helper()
	cmd := exec.Command(castorBinary(e.t), args...)
	cmd.Dir, cmd.Env, cmd.Stdin = e.ws, e.environ(), strings.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return result{code, stdout.String(), stderr.String()}
}

// TestExtensionSettingsConfigured: an extension declaring settings asks
// for them at install (values piped on stdin), `extensions config` changes
// them, and the values reach the extension's hook as environment
// variables, as in Gemini CLI.
func TestExtensionSettingsConfigured(t *testing.T) {
	e := newEnv(t, fakegemini.Text("one"), fakegemini.Text("two"))
	src := filepath.Join(filepath.Dir(e.ws), "src", "set-ext")
	out := filepath.Join(e.ws, "hook-env.txt")
	writeFiles(t, src, map[string]string{
		"gemini-extension.json": `{"name": "set-ext", "version": "1.0.0",
			"settings": [{"name": "Api Key", "description": "The service key", "envVar": "SET_EXT_KEY"},
			             {"name": "Region", "envVar": "SET_EXT_REGION"},
			             {"name": "Token", "envVar": "SET_EXT_TOKEN", "sensitive": true}]}`,
		"hooks/hooks.json": `{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command",
			"command": "echo \"$SET_EXT_KEY|$SET_EXT_REGION\" >> ` + out + `; cat >/dev/null"}]}]}}`,
	})
	r := e.runWithStdin("y\nmy key #1\n", "extensions", "install", src)
	if r.code != 0 || !strings.Contains(r.stdout, `Setting "Api Key" updated.`) || !strings.Contains(r.stderr, "The service key") {
		t.Fatalf("install: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	// Input ran out before the second setting: it is left unset, and said.
	if !strings.Contains(r.stderr, `castor extensions config set-ext "SET_EXT_REGION"`) {
		t.Errorf("no hint for the unset setting: %s", r.stderr)
	}
	envFile := filepath.Join(e.home, ".gemini", "extensions", "set-ext", ".env")
	if fi, err := os.Stat(envFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf(".env: %v %v", fi, err)
	}
	if r := e.run("-p", "hi"); r.code != 0 {
		t.Fatalf("run: %s", r.stderr)
	}
	r = e.runWithStdin("eu-west\n", "extensions", "config", "set-ext", "Region")
	if r.code != 0 || !strings.Contains(r.stdout, `Setting "Region" updated.`) {
		t.Fatalf("config: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	// Without a setting named, a set value is only replaced on "y".
	r = e.runWithStdin("n\n", "extensions", "config", "set-ext")
	if r.code != 0 || !strings.Contains(r.stderr, "is already set. Overwrite?") {
		t.Fatalf("config all: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if r := e.run("-p", "again"); r.code != 0 {
		t.Fatalf("run: %s", r.stderr)
	}
	data, _ := os.ReadFile(out)
	if got, want := string(data), "my key #1|\nmy key #1|eu-west\n"; got != want {
		t.Errorf("hook saw %q, want %q", got, want)
	}
	if r := e.runWithStdin("s3cret\n", "extensions", "config", "set-ext", "SET_EXT_TOKEN"); r.code != 0 {
		t.Fatalf("config token: %s", r.stderr)
	}
	if r := e.run("extensions", "list"); !strings.Contains(r.stdout, "Region: eu-west") || !strings.Contains(r.stdout, "Token: ***") || strings.Contains(r.stdout, "s3cret") {
		t.Errorf("list: %s", r.stdout)
	}
	for _, args := range [][]string{{"config", "nope"}, {"config", "set-ext", "NOPE"}, {"config", "--scope", "system", "set-ext"}} {
		if r := e.runWithStdin("", append([]string{"extensions"}, args...)...); r.code == 0 {
			t.Errorf("%v: exit 0, stdout %s", args, r.stdout)
		}
	}
	// --skip-settings asks nothing.
	e2 := newEnv(t)
	if r := e2.runWithStdin("never read\n", "extensions", "install", "--consent", "--skip-settings", src); r.code != 0 || strings.Contains(r.stdout, "updated") {
		t.Errorf("--skip-settings: exit %d, stdout %s", r.code, r.stdout)
	}
}

// TestExtensionInstallConsent: install asks "Do you want to continue?"
// as Gemini CLI does; "n" cancels and leaves nothing behind, --consent
// skips the question, and Enter or closed stdin take the default, yes.
func TestExtensionInstallConsent(t *testing.T) {
	e := newEnv(t)
	src := filepath.Join(filepath.Dir(e.ws), "src", "ask-ext")
	writeFiles(t, src, map[string]string{"gemini-extension.json": `{"name": "ask-ext", "version": "1.0.0"}`})
	dest := filepath.Join(e.home, ".gemini", "extensions", "ask-ext")
	r := e.runWithStdin("n\n", "extensions", "install", src)
	if r.code == 0 || !strings.Contains(r.stderr, "Do you want to continue? [Y/n]") || !strings.Contains(r.stderr, `Installation cancelled for "ask-ext".`) {
		t.Fatalf("answer n: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
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
		r := e.runWithStdin(tc.stdin, tc.args...)
		if r.code != 0 {
			t.Fatalf("%v with stdin %q: exit %d: %s", tc.args, tc.stdin, r.code, r.stderr)
		}
		if strings.Contains(tc.stdin, "n") && strings.Contains(r.stderr, "Do you want to continue") {
			t.Errorf("--consent still asked: %s", r.stderr)
		}
		if r := e.run("extensions", "uninstall", "ask-ext"); r.code != 0 {
			t.Fatalf("uninstall: %s", r.stderr)
		}
	}
}
