package host

import (
	"context"
	"time"
)

// retain deletes expired items once at start, so that a server that was
// down for a while does not carry them until the first tick, and then
// periodically until Shutdown.
func (h *Host[T]) retain() {
	r := h.cfg.Retention
	if r <= 0 {
		return
	}
	if h.cfg.Prune == nil {
		h.cfg.Log.Info("the store cannot delete; retention only drops items from memory")
	}
	h.PruneExpired(h.base)
	// A tenth of the retention, at most hourly: an item outlives its
	// retention by that much at worst.
	h.every(min(r/10, time.Hour), func() { h.PruneExpired(h.base) })
}

// PruneExpired deletes the items idle since before the retention cutoff,
// from memory and from the store, and returns the ids deleted from the
// store. Items in use (a turn running, a client watching) are kept
// whatever their age.
func (h *Host[T]) PruneExpired(ctx context.Context) []string {
	r := h.cfg.Retention
	if r <= 0 {
		return nil
	}
	cutoff := h.cfg.Now().Add(-r)
	// Expired idle items leave memory first, saved as eviction saves
	// them: every item still in memory afterwards is in use or recently
	// was, and the store decides for the rest by their last activity.
	h.EvictIdle(cutoff)
	if h.cfg.Prune == nil {
		return nil
	}
	ids, err := h.cfg.Prune(ctx, cutoff, func(id string) bool {
		_, live := h.Get(id)
		return live
	})
	if len(ids) > 0 {
		h.cfg.Log.Info("deleted expired items", "count", len(ids), "idle since before", cutoff.UTC().Format(time.RFC3339))
	}
	if err != nil && ctx.Err() == nil {
		h.cfg.Log.Error("deleting expired items failed", "error", err)
	}
	return ids
}
