package a2a

import (
	"context"
	"time"
)

// retention returns how long tasks are kept after their last activity, or
// a negative duration to keep them forever (see Config.Retention).
func (s *Server) retention() time.Duration {
	if s.cfg.Retention == 0 {
		return DefaultRetention
	}
	return s.cfg.Retention
}

// retentionLoop deletes expired tasks once at start, so that a server
// that was down for a while does not carry them until the first tick, and
// then periodically until Shutdown.
func (s *Server) retentionLoop() {
	defer s.wg.Done()
	r := s.retention()
	if r < 0 {
		return
	}
	if _, ok := s.store.(TaskPruner); !ok {
		s.log.Info("a2a: the task store cannot delete tasks; retention only drops them from memory")
	}
	s.pruneExpired(s.base)
	// A tenth of the retention, at most hourly: a task outlives its
	// retention by that much at worst.
	s.every(min(r/10, time.Hour), func() { s.pruneExpired(s.base) })
}

// pruneExpired deletes the tasks idle since before the retention cutoff,
// from memory and from the store, and returns the ids deleted from the
// store. Tasks in use (a turn running, a stream open, a webhook being
// delivered) are kept whatever their age.
func (s *Server) pruneExpired(ctx context.Context) []string {
	r := s.retention()
	if r < 0 {
		return nil
	}
	cutoff := s.now().Add(-r)
	// Expired idle tasks leave memory first, saved as eviction saves them:
	// every task still in memory afterwards is in use or recently was, and
	// the store decides for the rest by their last activity.
	s.evictIdle(cutoff)
	p, ok := s.store.(TaskPruner)
	if !ok {
		return nil
	}
	ids, err := p.Prune(ctx, cutoff, func(id string) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		_, live := s.tasks[id]
		return live
	})
	if len(ids) > 0 {
		s.log.Info("a2a: deleted expired tasks", "count", len(ids), "idle since before", cutoff.UTC().Format(time.RFC3339))
	}
	if err != nil && ctx.Err() == nil {
		s.log.Error("a2a: deleting expired tasks failed", "error", err)
	}
	return ids
}
