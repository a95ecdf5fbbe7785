package host

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestFinishTurn: the slot is free while the item saves, clients hear of
// the end only once it is saved, and the item's next turn waits for both.
func TestFinishTurn(t *testing.T) {
	h := newHost(t, Config{Limits: Limits{MaxConcurrentTurns: 1, MaxQueuedTurns: -1}})
	g := NewGate()
	turn, err := h.StartTurn(t.Context(), g)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	h.FinishTurn(turn, func() {
		steps = append(steps, "save")
		if turn.Context().Err() == nil {
			t.Error("the turn's context is still live while the item saves")
		}
		other, err := h.StartTurn(t.Context(), NewGate())
		if err != nil {
			t.Errorf("another item's turn while this one saves: %v", err)
			return
		}
		other.End()
		gone, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := h.StartTurn(gone, g); err == nil {
			t.Error("the item's next turn started before its end was told")
		}
	}, func() {
		steps = append(steps, "announce")
		select {
		case <-turn.Done():
			t.Error("Done before clients were told")
		default:
		}
	})
	if fmt.Sprint(steps) != "[save announce]" {
		t.Errorf("steps %v, want save then announce", steps)
	}
	next, err := h.StartTurn(t.Context(), g)
	if err != nil {
		t.Fatalf("the item's next turn: %v", err)
	}
	next.End()
}

// TestStop: a stopped turn's cause is the one given, and Stop returns
// when the turn ends or the caller gives up.
func TestStop(t *testing.T) {
	h := newHost(t, Config{})
	turn, err := h.StartTurn(t.Context(), NewGate())
	if err != nil {
		t.Fatal(err)
	}
	gone, cancel := context.WithCancel(t.Context())
	cancel()
	turn.Stop(gone, ErrCanceled) // the caller gave up: no wait
	if !errors.Is(context.Cause(turn.Context()), ErrCanceled) {
		t.Errorf("cause %v", context.Cause(turn.Context()))
	}
	go func() {
		<-turn.Context().Done()
		turn.End()
	}()
	ctx, stop := context.WithTimeout(t.Context(), hang)
	defer stop()
	turn.Stop(ctx, ErrCanceled)
	select {
	case <-turn.Done():
	default:
		t.Error("Stop returned before the turn's end")
	}
}

func TestEnding(t *testing.T) {
	failure := errors.New("model unavailable")
	deadline, stop := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer stop()
	tests := []struct {
		name  string
		cause error // the turn's cancellation cause; nil: not cancelled
		ctx   context.Context
		want  Ending
		text  string
	}{
		{"a failure", nil, nil, Failed, "model unavailable"},
		{"the user cancelled", ErrCanceled, nil, Canceled, ErrCanceled.Error()},
		{"the server shuts down", ErrShuttingDown, nil, Interrupted, ErrShuttingDown.Error()},
		{"the client left", ErrClientLeft, nil, Interrupted, ErrClientLeft.Error()},
		{"out of time", nil, deadline, Failed, "the turn exceeded its time limit of 1m0s"},
	}
	h := newHost(t, Config{Limits: Limits{TurnTimeout: time.Minute}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				c, cancel := context.WithCancelCause(t.Context())
				defer cancel(nil)
				if tt.cause != nil {
					cancel(tt.cause)
				}
				ctx = c
			}
			end, err := h.Ending(ctx, failure)
			if end != tt.want || err == nil || err.Error() != tt.text {
				t.Errorf("Ending = %v, %v; want %v, %q", end, err, tt.want, tt.text)
			}
		})
	}
}
