package castor

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// confirmErrKey carries a turn's *confirmErr in the context the engine
// hands to the confirm function.
type confirmErrKey struct{}

// confirmErr keeps the first error a WithConfirm function returned during
// one turn. The engine reads such an error as "not answered" and pauses
// the turn; without this the program's error would be lost.
type confirmErr struct {
	mu  sync.Mutex
	err error
}

func (c *confirmErr) set(call *agent.ToolCall, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = fmt.Errorf("castor: confirming %s (call %s): %w; the call is pending: answer it with Session().Answer, then Resume", call.Name, call.ID, err)
	}
}

func (c *confirmErr) get() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// reportingConfirm wraps a WithConfirm function so that its errors reach
// the turn's watchConfirm.
func reportingConfirm(f func(context.Context, *agent.ToolCall) (tool.Decision, error)) func(context.Context, *agent.ToolCall) (tool.Decision, error) {
	return func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error) {
		d, err := f(ctx, call)
		if err != nil {
			if c, ok := ctx.Value(confirmErrKey{}).(*confirmErr); ok {
				c.set(call, err)
			}
		}
		return d, err
	}
}

// watchConfirm runs a turn with a place for confirm errors in its context
// and, when the turn ended without an error of its own (it paused),
// yields the first such error last.
func watchConfirm(ctx context.Context, turn func(context.Context) iter.Seq2[*agent.Event, error]) iter.Seq2[*agent.Event, error] {
	return func(yield func(*agent.Event, error) bool) {
		c := &confirmErr{}
		failed := false
		for ev, err := range turn(context.WithValue(ctx, confirmErrKey{}, c)) {
			failed = failed || err != nil
			if !yield(ev, err) {
				return
			}
		}
		if err := c.get(); err != nil && !failed {
			yield(nil, err)
		}
	}
}
