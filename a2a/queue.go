package a2a

import "context"

// acquireTurnSlot takes one of the MaxConcurrentTurns slots, waiting in a
// queue of at most MaxQueuedTurns turns when they are all taken, as long
// as the client waits and the server runs: a burst of clients gets served
// in turn rather than told to retry.
func (s *Server) acquireTurnSlot(ctx context.Context) *Error {
	select {
	case s.turnSlots <- struct{}{}:
		return nil
	default:
	}
	if int64(s.cfg.Limits.MaxQueuedTurns) <= 0 {
		return errBusy("too many turns running")
	}
	if s.queued.Add(1) > int64(s.cfg.Limits.MaxQueuedTurns) {
		s.queued.Add(-1)
		return errBusy("too many turns running and waiting")
	}
	defer s.queued.Add(-1)
	select {
	case s.turnSlots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return errBusy("the client left while the turn waited to run")
	case <-s.base.Done():
		return errBusy("the server is shutting down")
	}
}
