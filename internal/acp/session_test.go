package acp

import (
	"context"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// TestPromptWaitingRefusedOnceClosing checks that a prompt waiting for
// the running turn to unwind does not start its own turn when the server
// began closing meanwhile (the client's input ended, or a signal): no one
// would read that turn, and the drain would wait for it.
func TestPromptWaitingRefusedOnceClosing(t *testing.T) {
	ss := &session{id: "s1", srv: &Server{}}
	cancelled := make(chan struct{})
	done := make(chan struct{})
	ss.turn, ss.done = context.Background(), done
	ss.cancel = func() { close(cancelled) }

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang, not a timing assertion
	defer cancel()
	type answer struct {
		r   sdk.PromptResponse
		err error
	}
	got := make(chan answer, 1)
	go func() {
		r, err := ss.prompt(ctx, []sdk.ContentBlock{sdk.TextBlock("next")})
		got <- answer{r, err}
	}()
	<-cancelled // the new prompt is waiting for the old turn
	ss.srv.closing.Store(true)
	ss.mu.Lock()
	ss.turn, ss.cancel, ss.done = nil, nil, nil
	ss.mu.Unlock()
	close(done)
	a := <-got
	if a.err != nil || a.r.StopReason != sdk.StopReasonCancelled {
		t.Errorf("prompt = %+v, %v; want cancelled", a.r, a.err)
	}
	if ss.cancel != nil {
		t.Error("a turn was started on a closing server")
	}
}

// TestAfterTurnCalled: the server's AfterTurn runs as each prompt's turn
// ends (castor --acp gives memory back to the system there).
func TestAfterTurnCalled(t *testing.T) {
	turns := 0
	ss := &session{id: "s1", srv: &Server{AfterTurn: func() { turns++ }}}
	for range 2 {
		if r, err := ss.prompt(context.Background(), nil); err != nil || r.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt = %+v, %v; want end_turn", r, err)
		}
	}
	if turns != 2 {
		t.Errorf("AfterTurn called %d times after 2 turns", turns)
	}
}
