package headless_test

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestInterruptMidTurn signals castor -p while the model has not answered,
// in each output format: it exits 130 and says "Operation cancelled." as
// Gemini CLI does, on stderr and in the JSON outputs' error, never Go's
// "context canceled"; the session file keeps the prompt.
func TestInterruptMidTurn(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no signals to a child on Windows")
	}
	for _, tc := range []struct {
		format string
		sig    syscall.Signal
	}{
		{"text", syscall.SIGINT},
		{"json", syscall.SIGTERM},
		{"stream-json", syscall.SIGINT},
	} {
		t.Run(tc.format, func(t *testing.T) {
			e := e2etest.New(t, fakegemini.Hang())
			p := e.Start(e2etest.Options{}, "-o", tc.format, "-p", "never answered")
			e2etest.InterruptMidTurn(t, p, e.Srv, tc.sig)
			stdout := p.Stdout.String()
			if got := p.Stderr.String(); got != "Error: Operation cancelled.\n" {
				t.Errorf("stderr = %q", got)
			}
			var msg any
			switch tc.format {
			case "text":
				if stdout != "" {
					t.Errorf("stdout = %q", stdout)
				}
			case "json":
				var out struct {
					Error struct {
						Type    string `json:"type"`
						Message string `json:"message"`
						Code    int    `json:"code"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(stdout), &out); err != nil {
					t.Fatalf("%v: %s", err, stdout)
				}
				if out.Error.Type != "FatalCancellationError" || out.Error.Code != 130 {
					t.Errorf("error = %+v", out.Error)
				}
				msg = out.Error.Message
			case "stream-json":
				lines := strings.Split(strings.TrimSpace(stdout), "\n")
				var res struct {
					Type   string `json:"type"`
					Status string `json:"status"`
					Error  struct {
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Type != "result" || res.Status != "error" {
					t.Fatalf("last line %q (%v)", lines[len(lines)-1], err)
				}
				msg = res.Error.Message
			}
			if msg != nil && msg != "Operation cancelled." {
				t.Errorf("error message = %q", msg)
			}
			if b, err := os.ReadFile(e.SessionFile()); err != nil || !strings.Contains(string(b), "never answered") {
				t.Errorf("session file lost the prompt: %v\n%s", err, b)
			}
		})
	}
}

// TestKilledDuringToolKeepsModelText: castor killed (SIGKILL) while a tool
// the model called runs keeps the model's words of that response in the
// session file, as Gemini CLI records a response when its stream ends, and
// the session resumes.
func TestKilledDuringToolKeepsModelText(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no shell tool marker on Windows")
	}
	e := e2etest.New(t,
		fakegemini.Parts(fakegemini.TextPart("Let me look around first."),
			fakegemini.CallPart("run_shell_command", map[string]any{"command": "touch started && sleep 60"})),
		fakegemini.Text("Resumed."))
	p := e.Start(e2etest.Options{}, "--approval-mode", "yolo", "-p", "look around")
	marker := e.WS + "/started"
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) { // a hang, not a timing assertion
			t.Fatalf("the tool never started; stderr:\n%s", p.Stderr.String())
		}
	}
	p.Signal(os.Kill)
	_ = p.Wait()
	b, err := os.ReadFile(e.SessionFile())
	if err != nil || !strings.Contains(string(b), "Let me look around first.") {
		t.Fatalf("session file lost the model's words: %v\n%s", err, b)
	}
	if r := e.Run("--resume", "latest", "-p", "go on"); r.Code != 0 || !strings.Contains(r.Stdout, "Resumed.") {
		t.Fatalf("resume: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
}
