package headless_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestBrokenStdout: when nobody reads stdout any more (the reader of a
// pipe exited, or the disk of a redirect is full), a headless run exits 1
// with one line on stderr instead of 0 (or dying of SIGPIPE with no
// word), so a script does not take the exit for an answer; the session
// file is left whole. Gemini CLI 0.61 exits 0 on a broken pipe.
func TestBrokenStdout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		stdin string
	}{
		{"text", []string{"-p", "hi"}, ""},
		{"json", []string{"-o", "json", "-p", "hi"}, ""},
		{"stream-json", []string{"-o", "stream-json", "-p", "hi"}, ""},
		{"stream-json input", []string{"-o", "stream-json", "--input-format", "stream-json"}, `{"type":"message","role":"user","content":"hi"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t, fakegemini.Text("an answer nobody reads"))
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close() // the reader is gone before castor writes
			cmd := e2etest.Command(t, tt.args...)
			cmd.Dir, cmd.Env = e.WS, e.Environ()
			cmd.Stdin = strings.NewReader(tt.stdin)
			cmd.Stdout = w
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err = cmd.Run()
			w.Close()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			const want = "Error: writing the output to stdout failed (broken pipe); the answer was not delivered\n"
			if code != 1 || stderr.String() != want {
				t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr.String(), want)
			}
			checkWholeSession(t, e)
		})
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		t.Run("full disk", func(t *testing.T) {
			e := e2etest.New(t, fakegemini.Text("an answer with no room"))
			full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
			if err != nil {
				t.Skip("cannot open /dev/full:", err)
			}
			defer full.Close()
			cmd := e2etest.Command(t, "-o", "json", "-p", "hi")
			cmd.Dir, cmd.Env, cmd.Stdout = e.WS, e.Environ(), full
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err = cmd.Run()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "(no space left on device)") {
				t.Errorf("exit %v, stderr %q", err, stderr.String())
			}
		})
	}
}

// checkWholeSession fails unless e's session file, if any, holds only
// whole JSON lines, the user's prompt among them. There is none when the
// run stopped at its first write, before the turn (stream-json's init
// event).
func checkWholeSession(t *testing.T, e *e2etest.Env) {
	t.Helper()
	files := e.SessionFiles()
	if len(files) == 0 {
		return
	}
	if len(files) > 1 {
		t.Fatalf("session files %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(b, []byte("\n")) || !bytes.Contains(b, []byte(`"text":"hi"`)) {
		t.Errorf("session file:\n%s", b)
	}
	for i, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if !json.Valid(l) {
			t.Errorf("session line %d is not JSON: %s", i+1, l)
		}
	}
}

// TestClosedStdout: a headless run started with stdout closed (`>&-`)
// used to exit 0 with its answer written to the /dev/null the Go runtime
// puts in place of a closed descriptor. It now exits 1 with one line on
// stderr before reaching the model, as a stdout that breaks mid-run
// does; `>/dev/null`, a choice to discard the answer, still runs.
func TestClosedStdout(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("needs sh to start castor with a closed stdout")
	}
	const want = "Error: stdout is closed: nothing would read the answer, so the prompt was not run\n"
	for _, format := range []string{"text", "json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			e := e2etest.New(t, fakegemini.Text("an answer for no one"))
			for _, redirect := range []string{">&-", ">/dev/null"} {
				cmd := e2etest.DieWithTest(exec.Command("sh", "-c", `exec "$0" "$@" `+redirect, e2etest.Binary(t), "-o", format, "-p", "hi"))
				cmd.Dir, cmd.Env = e.WS, e.Environ()
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				switch redirect {
				case ">&-":
					if code != 1 || stderr.String() != want {
						t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", redirect, code, stderr.String(), want)
					}
					if n := len(e.Srv.Requests()); n != 0 || len(e.SessionFiles()) != 0 {
						t.Errorf("%s: %d model requests, session files %v; want none", redirect, n, e.SessionFiles())
					}
				default:
					if code != 0 || stderr.String() != "" {
						t.Errorf("%s: exit %d, stderr %q", redirect, code, stderr.String())
					}
				}
			}
		})
	}
}

// TestACPClosedStdout: castor --acp started with stdout closed refuses at
// once (exit 1, one line) instead of answering into the runtime's
// /dev/null for as long as its input stays open.
func TestACPClosedStdout(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("needs sh to start castor with a closed stdout")
	}
	e := e2etest.New(t)
	cmd := e2etest.DieWithTest(exec.Command("sh", "-c", `exec "$0" "$@" >&-`, e2etest.Binary(t), "--acp"))
	cmd.Dir, cmd.Env = e.WS, e.Environ()
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	const want = "Error: stdout is closed: an ACP client reads castor's answers there\n"
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || stderr.String() != want {
		t.Errorf("exit %v, stderr %q; want exit 1 and %q", err, stderr.String(), want)
	}
}
