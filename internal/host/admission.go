package host

import "context"

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
