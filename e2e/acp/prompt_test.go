package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestACPNewPromptCancelsRunningTurn sends a second session/prompt while
// the first is still waiting on the model, as an editor does when the user
// presses Escape and types the next message at once: as in Gemini CLI the
// new prompt cancels the running turn and is answered, rather than
// refused because the session is busy.
func TestACPNewPromptCancelsRunningTurn(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Hang(), fakegemini.Text("second answer"))
	var mu sync.Mutex
	var text strings.Builder
	c, sid, stderr := e2etest.StartACPClient(t, e, acp.Handler{Update: func(_ context.Context, n sdk.SessionNotification) {
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
	for len(e.Srv.Requests()) == 0 {
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
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM to a child on Windows")
	}
	e := e2etest.New(t, fakegemini.Hang())
	w := startRawACP(t, e)
	cmd, stdin, stderr, lines, answer := w.cmd, w.stdin, &w.Stderr, w.lines, w.answer
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	answer(1)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+e2etest.MustJSON(e.WS)+`,"mcpServers":[]}}`+"\n")
	res, _ := answer(2)["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		t.Fatalf("no session; stderr:\n%s", stderr.String())
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"signalled"}]}}`+"\n")
	for len(e.Srv.Requests()) == 0 {
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
	assertTurnKept(e, t, stderr.String(), "signalled")
}

// rawACP is castor --acp driven line by line.
type rawACP struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	Stderr bytes.Buffer
	lines  chan string
	t      *testing.T
}

// startRawACP starts the built binary with --acp and args in e's
// workspace.
func startRawACP(t *testing.T, e *e2etest.Env, args ...string) *rawACP {
	t.Helper()
	w := &rawACP{cmd: e2etest.Command(t, append([]string{"--acp"}, args...)...), lines: make(chan string), t: t}
	w.cmd.Dir = e.WS
	w.cmd.Env = e.Environ()
	w.stdin, _ = w.cmd.StdinPipe()
	t.Cleanup(func() { w.stdin.Close() })
	stdout, _ := w.cmd.StdoutPipe()
	w.cmd.Stderr = &w.Stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
	}()
	return w
}

// answer returns the response to request id, skipping notifications.
func (w *rawACP) answer(id int) map[string]any {
	w.t.Helper()
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				w.t.Fatalf("stdout closed before answer %d; stderr:\n%s", id, w.Stderr.String())
			}
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["id"] == float64(id) {
				return m
			}
		case <-time.After(time.Minute): // a hang, not a timing assertion
			_ = w.cmd.Process.Kill()
			w.t.Fatalf("no answer %d; stderr:\n%s", id, w.Stderr.String())
		}
	}
}

// TestACPMessageTooLarge sends a prompt larger than the protocol reader
// takes (a big paste or attached file): castor answers it with an error
// naming the limit and goes on serving, instead of ending the connection
// without a word.
func TestACPMessageTooLarge(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("still here"))
	w := startRawACP(t, e)
	io.WriteString(w.stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	w.answer(1)
	io.WriteString(w.stdin, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+e2etest.MustJSON(e.WS)+`,"mcpServers":[]}}`+"\n")
	res, _ := w.answer(2)["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		t.Fatalf("no session; stderr:\n%s", w.Stderr.String())
	}
	big := strings.Repeat("x", 11<<20)
	io.WriteString(w.stdin, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"`+big+`"}]}}`+"\n")
	errObj, _ := w.answer(3)["error"].(map[string]any)
	if data, _ := errObj["data"].(map[string]any); errObj["code"] != -32600.0 || !strings.Contains(fmt.Sprint(data["error"]), "too large") {
		t.Errorf("answer to the large prompt: %v", errObj)
	}
	io.WriteString(w.stdin, `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"small"}]}}`+"\n")
	if res, _ := w.answer(4)["result"].(map[string]any); res["stopReason"] != "end_turn" {
		t.Errorf("next prompt: %v; stderr:\n%s", res, w.Stderr.String())
	}
	if !strings.Contains(w.Stderr.String(), "refused") {
		t.Errorf("stderr:\n%s", w.Stderr.String())
	}
}
