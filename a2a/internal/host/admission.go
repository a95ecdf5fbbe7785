package host

import (
	"context"
	"sync"
	"sync/atomic"
)

// Busy is the error of work refused for lack of room; the client may
// retry later.
type Busy struct {
	// What says which limit was met.
	What string
}

func (b *Busy) Error() string { return "busy: " + b.What }

// AcquireTurn takes one of the MaxConcurrentTurns slots, waiting in a
// queue of at most MaxQueuedTurns turns when they are all taken, as long
// as ctx lasts and the host runs: a burst of clients gets served in turn
// rather than told to retry. It fails as Busy; ReleaseTurn gives the slot
// back.
func (h *Host[T]) AcquireTurn(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		return nil
	default:
	}
	if h.cfg.Limits.MaxQueuedTurns <= 0 {
		return &Busy{What: "too many turns running"}
	}
	if h.queued.Add(1) > int64(h.cfg.Limits.MaxQueuedTurns) {
		h.queued.Add(-1)
		return &Busy{What: "too many turns running and waiting"}
	}
	defer h.queued.Add(-1)
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return &Busy{What: "the client left while the turn waited to run"}
	case <-h.base.Done():
		return &Busy{What: "the server is shutting down"}
	}
}

// ReleaseTurn gives back a slot AcquireTurn took.
func (h *Host[T]) ReleaseTurn() { <-h.slots }

// Queued is the number of turns waiting for a slot.
func (h *Host[T]) Queued() int64 { return h.queued.Load() }

// AcquireStream counts an open stream against MaxStreams, reporting false
// when there is no room; ReleaseStream uncounts it.
func (h *Host[T]) AcquireStream() bool {
	if h.streams.Add(1) > int64(h.cfg.Limits.MaxStreams) {
		h.streams.Add(-1)
		return false
	}
	return true
}

// ReleaseStream uncounts a stream AcquireStream counted.
func (h *Host[T]) ReleaseStream() { h.streams.Add(-1) }

// Streams is the number of open streams.
func (h *Host[T]) Streams() int64 { return h.streams.Load() }

// Stats is a snapshot of a host's load.
type Stats struct {
	// Live and Running count the items in memory and those running a
	// turn; Streams and Queued the open streams and the turns waiting
	// for a slot.
	Live, Running   int
	Streams, Queued int64
}

// Stats returns the host's load now.
func (h *Host[T]) Stats() Stats {
	live := h.Live()
	st := Stats{Live: len(live), Streams: h.Streams(), Queued: h.Queued()}
	for _, it := range live {
		if it.Usage().Running {
			st.Running++
		}
	}
	return st
}

// Place is a turn's claim on one of the MaxConcurrentTurns slots, taken
// when the face accepts the turn (Reserve, Line) and used when the turn
// starts (Begin): a client hears at once whether its turn fits, and need
// not wait for the turn to start. Drop gives the claim back.
type Place struct {
	slots  chan struct{}
	queued *atomic.Int64
	once   sync.Once
	// held: the place holds a slot; else it is counted in Queued.
	held bool
}

// Reserve takes a place for a turn: a free slot, or a place in the
// queue of at most MaxQueuedTurns turns waiting for one. It fails as
// Busy past both, and once the host is shutting down.
func (h *Host[T]) Reserve() (*Place, error) {
	if h.Closing() {
		return nil, &Busy{What: "the server is shutting down"}
	}
	p := &Place{slots: h.slots, queued: &h.queued}
	select {
	case h.slots <- struct{}{}:
		p.held = true
		return p, nil
	default:
	}
	if h.cfg.Limits.MaxQueuedTurns <= 0 {
		return nil, &Busy{What: "too many turns running"}
	}
	if h.queued.Add(1) > int64(h.cfg.Limits.MaxQueuedTurns) {
		h.queued.Add(-1)
		return nil, &Busy{What: "too many turns running and waiting"}
	}
	return p, nil
}

// Line takes a place whatever the queue's bound: for a turn the face
// accepted earlier (a message queued behind its item's previous turn),
// which it can no longer refuse.
func (h *Host[T]) Line() *Place {
	p := &Place{slots: h.slots, queued: &h.queued}
	select {
	case h.slots <- struct{}{}:
		p.held = true
	default:
		h.queued.Add(1)
	}
	return p
}

// Drop gives the place back: its slot, or its place in the queue. It is
// safe to call more than once.
func (p *Place) Drop() {
	p.once.Do(func() {
		if p.held {
			<-p.slots
		} else {
			p.queued.Add(-1)
		}
	})
}

// Begin starts the turn of the item behind gate on place p: it waits for
// p's slot and for the gate as long as ctx lasts and the host runs. The
// turn then holds the slot (End, FreeSlot give it back); on failure, a
// Busy error, p is dropped.
func (h *Host[T]) Begin(ctx context.Context, p *Place, gate Gate) (*Turn, error) {
	if !p.held {
		select {
		case p.slots <- struct{}{}:
		case <-ctx.Done():
			p.Drop()
			return nil, &Busy{What: "the turn was dropped while it waited to run"}
		case <-h.base.Done():
			p.Drop()
			return nil, &Busy{What: "the server is shutting down"}
		}
		// The slot is taken: the place leaves the queue and holds it.
		p.queued.Add(-1)
		p.held = true
	}
	if h.Closing() {
		p.Drop()
		return nil, &Busy{What: "the server is shutting down"}
	}
	if !gate.Enter(ctx) {
		p.Drop()
		return nil, &Busy{What: "the turn was dropped while it waited to run"}
	}
	return h.newTurn(gate, p.Drop), nil
}
