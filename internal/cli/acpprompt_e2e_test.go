package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestACPNewPromptCancelsRunningTurn sends a second session/prompt while
// the first is still waiting on the model, as an editor does when the user
// presses Escape and types the next message at once: as in Gemini CLI the
// new prompt cancels the running turn and is answered, rather than
// refused because the session is busy.
func TestACPNewPromptCancelsRunningTurn(t *testing.T) {
	e := newEnv(t, fakegemini.Hang(), fakegemini.Text("second answer"))
	var mu sync.Mutex
	var text strings.Builder
	c, sid, stderr := startACPClient(t, e, acp.Handler{Update: func(_ context.Context, n sdk.SessionNotification) {
		if u := n.Update.AgentMessageChunk; u != nil && u.Content.Text != nil {
			mu.Lock()
			text.WriteString(u.Content.Text.Text)
			mu.Unlock()
		}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang, not a timing assertion
	defer cancel()
	type answer struct {
		r   sdk.PromptResponse
		err error
	}
	first := make(chan answer, 1)
	go func() {
		r, err := c.PromptText(ctx, sid, "first, never answered")
		first <- answer{r, err}
	}()
	for len(e.srv.Requests()) == 0 {
		time.Sleep(10 * time.Millisecond) // waiting for the first turn to reach the model
	}
	r, err := c.PromptText(ctx, sid, "second")
	if err != nil {
		t.Fatalf("second prompt: %v; stderr:\n%s", err, stderr.String())
	}
	if r.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("second prompt stopped with %s", r.StopReason)
	}
	a := <-first
	if a.err != nil || a.r.StopReason != sdk.StopReasonCancelled {
		t.Errorf("first prompt: %+v, %v", a.r, a.err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("close: %v; stderr:\n%s", err, stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if text.String() != "second answer" {
		t.Errorf("text %q", text.String())
	}
}

// TestACPSignalMidTurn sends SIGTERM to castor --acp while a prompt waits
// on the model and the client keeps its pipes open, as an editor shutting
// its agent down does: the turn is cancelled, the prompt answered as
// cancelled, and the process exits with the session file keeping the
// prompt, instead of running on until the client closes stdin.
func TestACPSignalMidTurn(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM to a child on Windows")
	}
	e := newEnv(t, fakegemini.Hang())
	cmd := exec.Command(castorBinary(t), "--acp")
	cmd.Dir = e.ws
	cmd.Env = e.environ()
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// answer returns the response to request id, skipping notifications.
	answer := func(id int) map[string]any {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stdout closed before answer %d; stderr:\n%s", id, stderr.String())
				}
				var m map[string]any
				if json.Unmarshal([]byte(l), &m) == nil && m["id"] == float64(id) {
					return m
				}
			case <-time.After(time.Minute): // a hang, not a timing assertion
				_ = cmd.Process.Kill()
				t.Fatalf("no answer %d; stderr:\n%s", id, stderr.String())
			}
		}
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	answer(1)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+mustJSON(e.ws)+`,"mcpServers":[]}}`+"\n")
	res, _ := answer(2)["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		t.Fatalf("no session; stderr:\n%s", stderr.String())
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"signalled"}]}}`+"\n")
	for len(e.srv.Requests()) == 0 {
		time.Sleep(10 * time.Millisecond) // waiting for the turn to reach the model
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if res, _ := answer(3)["result"].(map[string]any); res["stopReason"] != "cancelled" {
		t.Errorf("prompt answer %v", res)
	}
	done := make(chan error, 1)
	go func() {
		for range lines {
		}
		done <- cmd.Wait()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang, not a timing assertion
		_ = cmd.Process.Kill()
		t.Fatalf("castor --acp did not exit after SIGTERM; stderr:\n%s", stderr.String())
	}
	if s := stderr.String(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
		t.Fatalf("stack trace:\n%s", s)
	}
	if b, err := os.ReadFile(e.sessionFile()); err != nil || !strings.Contains(string(b), "signalled") {
		t.Errorf("session file lost the turn: %v\n%s", err, b)
	}
}
