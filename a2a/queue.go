package a2a

import (
	"context"
	"sort"
	"time"
)

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

// trimSessions releases the sessions of the least recently active idle
// tasks past Limits.MaxIdleSessions. A released task keeps its
// conversation and pending calls, from which its next turn rebuilds the
// session as after a restart.
func (s *Server) trimSessions() {
	type idle struct {
		t    *task
		last time.Time
	}
	var cands []idle
	s.mu.Lock()
	for _, t := range s.tasks {
		t.mu.Lock()
		if t.agent != nil && !t.running {
			cands = append(cands, idle{t, t.lastActive})
		}
		t.mu.Unlock()
	}
	s.mu.Unlock()
	extra := len(cands) - s.cfg.Limits.MaxIdleSessions
	if extra <= 0 {
		return
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].last.Before(cands[j].last) })
	for _, c := range cands[:extra] {
		t := c.t
		t.mu.Lock()
		var a *taskAgent
		if !t.running && len(t.subs) == 0 {
			// Its conversation and pending calls are those finishTurn
			// kept from this session.
			a, t.agent = t.agent, nil
		}
		t.mu.Unlock()
		if a != nil {
			a.Close()
		}
	}
}
