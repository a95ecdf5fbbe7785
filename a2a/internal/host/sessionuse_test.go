package host

import (
	"context"
	"testing"
	"time"
)

// TestTrimSessionsCountsSessionUse: a session used without updating its
// item (a metadata request listing its tools) counts as recent, so the
// trimmer releases another item's session rather than the one just used.
func TestTrimSessionsCountsSessionUse(t *testing.T) {
	h := newHost(t, Config{Limits: Limits{MaxIdleSessions: 1}})
	used := newItem("used", -4*time.Minute, Usage{Session: true})
	used.usage.SessionUsed = t0
	other := newItem("other", -time.Minute, Usage{Session: true})
	h.Add(used)
	h.Add(other)
	h.TrimSessions()
	if used.released || !other.released {
		t.Errorf("released: used %v, other %v; want the other's only", used.released, other.released)
	}
}

// TestPlaces: Reserve answers at once, with a slot, a place in the
// bounded queue or Busy; Begin waits for the slot; Line ignores the
// bound; Drop gives the claim back.
func TestPlaces(t *testing.T) {
	h := newHost(t, Config{Limits: Limits{MaxConcurrentTurns: 1, MaxQueuedTurns: 1}})
	first, err := h.Reserve()
	if err != nil {
		t.Fatal(err)
	}
	waiting, err := h.Reserve()
	if err != nil || h.Queued() != 1 {
		t.Fatalf("second Reserve: %v, queued %d", err, h.Queued())
	}
	if _, err := h.Reserve(); busyWhat(err) != "too many turns running and waiting" {
		t.Errorf("third Reserve: %v", err)
	}
	extra := h.Line()
	if h.Queued() != 2 {
		t.Errorf("Line did not queue: %d", h.Queued())
	}
	extra.Drop()
	extra.Drop() // twice is harmless
	turn, err := h.Begin(t.Context(), first, NewGate())
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		next, err := h.Begin(t.Context(), waiting, NewGate())
		if err == nil {
			next.End()
		}
		got <- err
	}()
	turn.End()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("the waiting place: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the waiting place never got the slot")
	}
	if h.Queued() != 0 {
		t.Errorf("queued %d after every place was used", h.Queued())
	}
	// A place whose wait is given up leaves the queue.
	hold, _ := h.Reserve()
	gone, _ := h.Reserve()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := h.Begin(ctx, gone, NewGate()); err == nil || h.Queued() != 0 {
		t.Errorf("Begin with a dead context: %v, queued %d", err, h.Queued())
	}
	hold.Drop()
	if p, err := h.Reserve(); err != nil || !p.held {
		t.Errorf("after Drop, no free slot: %v", err)
	}
}
