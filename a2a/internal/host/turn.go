package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Gate lets one turn of an item run at a time: a message for a busy item
// waits for the turn before it. Each item has its own (NewGate).
type Gate chan struct{}

// NewGate returns an open gate.
func NewGate() Gate { return make(Gate, 1) }

// Enter waits, as long as ctx lasts, for the gate to open, and shuts it
// behind the caller; it reports whether it got in.
func (g Gate) Enter(ctx context.Context) bool {
	select {
	case g <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// Leave opens the gate Enter shut.
func (g Gate) Leave() { <-g }

// Turn is a turn admitted to run: it holds its item's gate and one of the
// host's turn slots until End.
type Turn struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   context.CancelFunc
	done   chan struct{}
	gate   Gate
	slot   func()
}

// StartTurn admits a turn of the item behind gate: it waits for the
// item's previous turn and for a turn slot (AcquireTurn) as long as ctx
// lasts, and fails as Busy otherwise or once the host is shutting down.
// The turn's context ends with Cancel, Shutdown (ErrShuttingDown) or
// after Limits.TurnTimeout.
func (h *Host[T]) StartTurn(ctx context.Context, gate Gate) (*Turn, error) {
	if h.Closing() {
		return nil, &Busy{What: "the server is shutting down"}
	}
	if !gate.Enter(ctx) {
		return nil, &Busy{What: "the task is still running its previous turn"}
	}
	if err := h.AcquireTurn(ctx); err != nil {
		gate.Leave()
		return nil, err
	}
	return h.newTurn(gate, h.ReleaseTurn), nil
}

// newTurn returns a turn holding gate and a slot, which release gives
// back.
func (h *Host[T]) newTurn(gate Gate, release func()) *Turn {
	cctx, cancel := context.WithCancelCause(h.base)
	tctx, stop := context.WithTimeout(cctx, h.cfg.Limits.TurnTimeout)
	return &Turn{ctx: tctx, cancel: cancel, stop: stop, done: make(chan struct{}), gate: gate, slot: sync.OnceFunc(release)}
}

// Context is the context the turn runs in.
func (t *Turn) Context() context.Context { return t.ctx }

// Cancel ends the turn's context with cause (ErrCanceled,
// ErrClientLeft), which tells the face how the turn should end.
func (t *Turn) Cancel(cause error) {
	t.cancel(cause)
	t.stop()
}

// Done is closed when the turn has ended.
func (t *Turn) Done() <-chan struct{} { return t.done }

// FreeSlot gives the host's slot back ahead of End: a turn saving its
// item after its work then does not make bursts of other turns wait or
// fail as busy.
func (t *Turn) FreeSlot() { t.slot() }

// End ends the turn: its context, its slot, Done, and last the gate, so
// that the item's next turn starts after everything this one did.
func (t *Turn) End() {
	t.Cancel(nil)
	t.slot()
	close(t.done)
	t.gate.Leave()
}

// Stop cancels the turn with cause and waits for its end, as long as ctx
// lasts.
func (t *Turn) Stop(ctx context.Context, cause error) {
	t.Cancel(cause)
	select {
	case <-t.done:
	case <-ctx.Done():
	}
}

// FinishTurn ends turn in the order a face's clients rely on. The turn's
// context ends and its slot is freed first, so that turns saving their
// items do not make bursts of other turns wait or fail as busy, while the
// item's gate stays shut. save then persists the item before announce
// shows clients the turn's end: a client that goes straight to another
// replica must load this turn, not the previous one. Last, End lets the
// item's next turn in, and idle sessions past Limits.MaxIdleSessions are
// released (TrimSessions).
func (h *Host[T]) FinishTurn(t *Turn, save, announce func()) {
	t.Cancel(nil)
	t.FreeSlot()
	save()
	announce()
	t.End()
	h.TrimSessions()
}

// Ending is how a turn that stopped with an error ends; the face shows it
// in its own terms.
type Ending int

// Endings.
const (
	// Failed: the turn failed; the face reports the error and the item
	// goes on with its next turn.
	Failed Ending = iota
	// Canceled: the user cancelled the turn (ErrCanceled).
	Canceled
	// Interrupted: the server is shutting down or the client left
	// (ErrShuttingDown, ErrClientLeft); the item goes on with its next
	// turn.
	Interrupted
)

// Ending says how the turn whose context is ctx ends after it stopped with
// err, by the context's cause, and the error to tell: the cause of a
// cancelled or interrupted turn (its text is Gemini CLI's), a sentence
// naming the limit for a turn that ran out of time, else err.
func (h *Host[T]) Ending(ctx context.Context, err error) (Ending, error) {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, ErrCanceled):
		return Canceled, cause
	case errors.Is(cause, ErrShuttingDown), errors.Is(cause, ErrClientLeft):
		return Interrupted, cause
	case errors.Is(cause, context.DeadlineExceeded):
		return Failed, fmt.Errorf("the turn exceeded its time limit of %s", h.cfg.Limits.TurnTimeout)
	}
	return Failed, err
}
