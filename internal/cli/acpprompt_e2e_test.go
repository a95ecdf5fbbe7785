package cli_test

import (
	"context"
	"strings"
	"sync"
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
