package acp_test

import (
	"context"
	"encoding/json"
	"fmt"
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
	e2etest.AwaitModelCall(t, e.Srv)
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
	sid := w.session(e.WS)
	w.prompt(3, sid, "signalled")
	e2etest.AwaitModelCall(t, e.Srv)
	w.Signal(syscall.SIGTERM)
	if res, _ := w.answer(3)["result"].(map[string]any); res["stopReason"] != "cancelled" {
		t.Errorf("prompt answer %v", res)
	}
	_ = w.Wait()
	assertTurnKept(e, t, w.Stderr.String(), "signalled")
}

// rawACP is castor --acp driven line by line: its stdin written with
// Send, its answers read with answer.
type rawACP struct {
	*e2etest.Process
	t *testing.T
}

// startRawACP starts the built binary with --acp and args in e's
// workspace.
func startRawACP(t *testing.T, e *e2etest.Env, args ...string) *rawACP {
	t.Helper()
	return &rawACP{e.Start(e2etest.Options{Stdin: true}, append([]string{"--acp"}, args...)...), t}
}

// answer returns the response to request id, skipping notifications.
func (w *rawACP) answer(id int) map[string]any {
	w.t.Helper()
	var m map[string]any
	w.LineWhere(fmt.Sprintf("answer %d", id), func(line string) bool {
		m = nil
		return json.Unmarshal([]byte(line), &m) == nil && m["id"] == float64(id)
	})
	return m
}

// session initializes the connection (request 1) and opens a session in
// ws (request 2), and returns its id.
func (w *rawACP) session(ws string) string {
	w.t.Helper()
	w.Send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	w.answer(1)
	w.Send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + e2etest.MustJSON(ws) + `,"mcpServers":[]}}`)
	res, _ := w.answer(2)["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		w.t.Fatalf("no session; stderr:\n%s", w.Stderr)
	}
	return sid
}

// prompt sends request id, a session/prompt of text to session sid.
func (w *rawACP) prompt(id int, sid, text string) {
	w.t.Helper()
	w.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"%s","prompt":[{"type":"text","text":"%s"}]}}`, id, sid, text))
}

// TestACPMessageTooLarge sends a prompt larger than the protocol reader
// takes (a big paste or attached file): castor answers it with an error
// naming the limit and goes on serving, instead of ending the connection
// without a word.
func TestACPMessageTooLarge(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("still here"))
	w := startRawACP(t, e)
	sid := w.session(e.WS)
	w.prompt(3, sid, strings.Repeat("x", 11<<20))
	errObj, _ := w.answer(3)["error"].(map[string]any)
	if data, _ := errObj["data"].(map[string]any); errObj["code"] != -32600.0 || !strings.Contains(fmt.Sprint(data["error"]), "too large") {
		t.Errorf("answer to the large prompt: %v", errObj)
	}
	w.prompt(4, sid, "small")
	if res, _ := w.answer(4)["result"].(map[string]any); res["stopReason"] != "end_turn" {
		t.Errorf("next prompt: %v; stderr:\n%s", res, w.Stderr.String())
	}
	if !strings.Contains(w.Stderr.String(), "refused") {
		t.Errorf("stderr:\n%s", w.Stderr.String())
	}
}
