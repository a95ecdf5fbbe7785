package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ideEnv isolates a test: its own temp dir for discovery files, home,
// workspace (the current directory) and IDE process id.
func ideEnv(t *testing.T) (tmp, ws string) {
	t.Helper()
	tmp = t.TempDir()
	ws, _ = filepath.EvalSymlinks(t.TempDir())
	t.Setenv("TMPDIR", tmp)
	t.Setenv("GEMINI_CLI_HOME", t.TempDir())
	t.Setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", filepath.Join(tmp, "no-system.json"))
	t.Setenv("GEMINI_CLI_IDE_PID", "5151")
	t.Setenv("GEMINI_CLI_IDE_SERVER_PORT", "")
	t.Setenv("GEMINI_CLI_IDE_WORKSPACE_PATH", "")
	t.Chdir(ws)
	return tmp, ws
}

func TestIDEStatusWithoutCompanion(t *testing.T) {
	tmp, _ := ideEnv(t)
	code, out, errOut := runCLI(t, "ide", "status")
	if code != ExitError {
		t.Errorf("exit %d", code)
	}
	for _, want := range []string{"Discovery directory: " + filepath.Join(tmp, "gemini", "ide"), "Not connected: no IDE companion found", "IDE mode: off"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if errOut != "Error: not connected to an IDE companion\n" {
		t.Errorf("stderr %q", errOut)
	}

	code, out, _ = runCLI(t, "ide", "status", "--json")
	var r struct {
		Connected bool
		Problem   string
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != ExitError || r.Connected || r.Problem != "no-discovery-file" {
		t.Errorf("json %s (%v), exit %d", out, err, code)
	}
}

func TestIDEServeAndStatus(t *testing.T) {
	_, ws := ideEnv(t)
	inW, discoveryFile, done := startIDEServe(t, ws)
	main := filepath.Join(ws, "main.go")
	io.WriteString(inW, `{"type":"focused","path":"`+main+`","cursor":{"line":2,"character":1}}`+"\n")

	deadline := time.Now().Add(20 * time.Second)
	var out string
	for {
		var code int
		code, out, _ = runCLI(t, "ide", "status")
		// The focus event may not have reached the companion yet.
		if code == ExitOK && strings.Contains(out, main+" (active") || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range []string{"Connected to Neovim at http://127.0.0.1:", "Diffs: shown in the IDE", main + " (active, line 2, character 1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}

	inW.Close()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("serve exit %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop at the end of its input")
	}
	if _, err := os.Stat(discoveryFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("discovery file left: %v", err)
	}
}

// startIDEServe runs `castor ide serve` for ws as Neovim (pid 5151) until
// the returned input is closed, and returns once it wrote its discovery
// file; done receives its exit code.
func startIDEServe(t *testing.T, ws string) (in io.WriteCloser, discoveryFile string, done <-chan int) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		code := Run(context.Background(), []string{"ide", "serve", "--workspace", ws, "--pid", "5151", "--ide-name", "neovim", "--ide-display-name", "Neovim"},
			IO{Stdin: inR, Stdout: outW, Stderr: io.Discard})
		outW.Close()
		exit <- code
	}()
	lines := bufio.NewScanner(outR)
	if !lines.Scan() {
		t.Fatal("no output from ide serve")
	}
	var ready struct{ Type, DiscoveryFile string }
	if err := json.Unmarshal(lines.Bytes(), &ready); err != nil || ready.Type != "ready" {
		t.Fatalf("first line %s", lines.Text())
	}
	go io.Copy(io.Discard, outR)
	return inW, ready.DiscoveryFile, exit
}

func TestIDEServeBadWorkspace(t *testing.T) {
	ideEnv(t)
	var o, e bytes.Buffer
	code := Run(context.Background(), []string{"ide", "serve", "--workspace", "/no/such/dir"}, IO{Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e})
	if code != ExitInput || !strings.Contains(e.String(), "is not a directory") {
		t.Errorf("exit %d, stderr %q", code, e.String())
	}
}
