// Package host keeps many agent sessions alive across requests for a
// server face. A face (the A2A server, or any other that serves many
// clients at once) holds its conversations as items; the host decides
// which stay in memory and which run:
//
//   - admission: at most Limits.MaxConcurrentTurns turns run at once, and
//     a bounded queue of turns waits for a slot (admission.go); a Place
//     claims a turn's slot when the face accepts the turn, so that the
//     client is answered before the turn starts;
//   - the live set: at most Limits.MaxLiveTasks items in memory, the least
//     recently active idle one saved and evicted to make room, idle items
//     evicted after Limits.IdleTTL, and idle items' sessions released past
//     Limits.MaxIdleSessions;
//   - retention: items idle past Config.Retention are deleted from memory
//     and from the store (retention.go);
//   - turns: one at a time per item (Gate), each holding a slot, cancelled
//     with a cause that tells the face how to end it (Turn, ErrCanceled,
//     ErrClientLeft, Ending, and DisconnectMode for a client that leaves),
//     and ended in the order clients rely on (FinishTurn);
//   - an item's engine session (Session): built on first use, released
//     between turns, rebuilt from the conversation it kept;
//   - open streams counted against Limits.MaxStreams, each fed by a
//     bounded Subscriber;
//   - Shutdown: janitors stopped, running turns cancelled with
//     ErrShuttingDown, their end awaited, every item saved;
//   - the door: a bearer Token (Token.Guard), ReadBody and ReadJSON within
//     the body limit, Loopback listen addresses, and Workspace, which keeps
//     the directories clients name under an allowed root (request.go,
//     workspace.go). The Host, Origin and Content-Type checks every
//     listener shares are internal/httpguard's, which the face applies
//     before the token.
//
// The host knows nothing of the face's protocol: an item says its id, what
// uses it (Usage), how to save itself and how to release its session.
package host

import (
	"context"
	"io"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Item is one conversation a face keeps: a task, a session.
type Item interface {
	// ID names the item; it is unique within a host.
	ID() string
	// Usage says what uses the item now.
	Usage() Usage
	// Save persists the item. The host calls it before the item leaves
	// memory and at Shutdown, where the saves of several items run at
	// once; failures are the item's to report.
	Save()
	// ReleaseSession gives up the item's engine session, if it holds one
	// and no turn or client uses it (the host's view may be stale by
	// then); the item rebuilds it from what it saved at its next turn.
	ReleaseSession()
	// CloseSession releases what the session holds at Shutdown, whatever
	// still uses it.
	CloseSession()
}

// Usage is what an item is doing.
type Usage struct {
	// Running: a turn runs.
	Running bool
	// Watched: a client's stream or a webhook delivery uses the item.
	Watched bool
	// Session: the item holds an engine session.
	Session bool
	// LastActive is the time of the item's last update.
	LastActive time.Time
	// SessionUsed is the time of the last use of the item's session
	// (Session.LastUsed): a turn, or a request that needed it without
	// updating the item (its tools listed). TrimSessions counts it as
	// activity.
	SessionUsed time.Time
}

// idle reports whether an item may leave memory.
func (u Usage) idle() bool { return !u.Running && !u.Watched }

// Config configures a Host.
type Config struct {
	// Limits bound the host; zero fields take their defaults.
	Limits Limits
	// Retention is how long an idle item is kept after its last
	// activity; zero or negative keeps items forever.
	Retention time.Duration
	// Prune deletes the stored items last active before cutoff but those
	// keep reports, and returns the ids deleted; nil means the store
	// cannot delete, and retention only drops items from memory.
	Prune func(ctx context.Context, cutoff time.Time, keep func(id string) bool) ([]string, error)
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
	// Log receives operational messages; nil discards them.
	Log *slog.Logger
}

// Host keeps a face's items; its methods are safe for concurrent use.
type Host[T Item] struct {
	cfg Config

	mu    sync.Mutex
	items map[string]T

	slots   chan struct{}
	queued  atomic.Int64
	streams atomic.Int64
	closing atomic.Bool

	base      context.Context
	stop      context.CancelCauseFunc
	work      sync.WaitGroup
	janitor   chan struct{}
	closeOnce sync.Once
}

// New returns a host and starts its janitors (idle eviction and
// retention), which Shutdown stops.
func New[T Item](cfg Config) *Host[T] {
	cfg.Limits.Defaults()
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h := &Host[T]{
		cfg: cfg, items: map[string]T{},
		slots:   make(chan struct{}, cfg.Limits.MaxConcurrentTurns),
		janitor: make(chan struct{}),
	}
	h.base, h.stop = context.WithCancelCause(context.Background())
	go h.every(cfg.Limits.IdleTTL/4, func() { h.EvictIdle(h.cfg.Now().Add(-h.cfg.Limits.IdleTTL)) })
	h.work.Go(h.retain)
	return h
}

// Context is the parent of every turn's context: Shutdown cancels it with
// ErrShuttingDown.
func (h *Host[T]) Context() context.Context { return h.base }

// Work counts the work Shutdown waits for (turns, deliveries): Add before
// starting it, Done at its end, or Go.
func (h *Host[T]) Work() *sync.WaitGroup { return &h.work }

// Closing reports whether Shutdown was called.
func (h *Host[T]) Closing() bool { return h.closing.Load() }

// Get returns the item id if it is in memory.
func (h *Host[T]) Get(id string) (T, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	it, ok := h.items[id]
	return it, ok
}

// Add puts a new item in memory, evicting the least recently active idle
// item when memory is full; it fails as Busy when none is idle.
func (h *Host[T]) Add(it T) error {
	_, err := h.Adopt(it)
	return err
}

// Adopt is Add for an item that may have come in meanwhile (one loaded
// from the store by two requests at once): the item already in memory
// wins and is returned.
func (h *Host[T]) Adopt(it T) (T, error) {
	h.mu.Lock()
	if cur, ok := h.items[it.ID()]; ok {
		h.mu.Unlock()
		return cur, nil
	}
	victim, evicted, err := h.makeRoomLocked()
	if err == nil {
		h.items[it.ID()] = it
	}
	h.mu.Unlock()
	if evicted {
		victim.ReleaseSession()
	}
	if err != nil {
		var zero T
		return zero, err
	}
	return it, nil
}

// makeRoomLocked evicts the least recently active idle item when memory
// is full, and returns it so that its session is released outside the
// lock. It saves under the lock: a request loading the item meanwhile
// must find it saved.
func (h *Host[T]) makeRoomLocked() (victim T, evicted bool, err error) {
	if len(h.items) < h.cfg.Limits.MaxLiveTasks {
		return victim, false, nil
	}
	var oldest time.Time
	for _, it := range h.items {
		u := it.Usage()
		if u.idle() && (!evicted || u.LastActive.Before(oldest)) {
			victim, evicted, oldest = it, true, u.LastActive
		}
	}
	if !evicted {
		return victim, false, &Busy{What: "too many live tasks"}
	}
	victim.Save()
	delete(h.items, victim.ID())
	return victim, true, nil
}

// Remove drops an item from memory without saving it (one whose first
// turn could not start).
func (h *Host[T]) Remove(id string) {
	h.mu.Lock()
	delete(h.items, id)
	h.mu.Unlock()
}

// Live returns the items in memory, by id.
func (h *Host[T]) Live() []T {
	h.mu.Lock()
	out := make([]T, 0, len(h.items))
	for _, it := range h.items {
		out = append(out, it)
	}
	h.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
	return out
}

// EvictIdle saves and drops from memory the idle items last active
// before cutoff, releasing their sessions; they stay in the store. It
// returns how many left.
func (h *Host[T]) EvictIdle(cutoff time.Time) int {
	h.mu.Lock()
	var idle []T
	for id, it := range h.items {
		if u := it.Usage(); u.idle() && u.LastActive.Before(cutoff) {
			idle = append(idle, it)
			delete(h.items, id)
		}
	}
	h.mu.Unlock()
	for _, it := range idle {
		it.Save()
		it.ReleaseSession()
	}
	return len(idle)
}

// TrimSessions releases the sessions of the least recently active items
// between turns past Limits.MaxIdleSessions (a use of the session counts
// as activity). A released item keeps what
// it saved, from which its next turn rebuilds the session as after a
// restart.
func (h *Host[T]) TrimSessions() {
	type cand struct {
		it   T
		last time.Time
	}
	var cands []cand
	h.mu.Lock()
	for _, it := range h.items {
		if u := it.Usage(); u.Session && !u.Running {
			last := u.LastActive
			if u.SessionUsed.After(last) {
				last = u.SessionUsed
			}
			cands = append(cands, cand{it, last})
		}
	}
	h.mu.Unlock()
	extra := len(cands) - h.cfg.Limits.MaxIdleSessions
	if extra <= 0 {
		return
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].last.Before(cands[j].last) })
	for _, c := range cands[:extra] {
		c.it.ReleaseSession()
	}
}

// every runs fn every period (at least a second) until Shutdown.
func (h *Host[T]) every(period time.Duration, fn func()) {
	tick := time.NewTicker(max(period, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-h.janitor:
			return
		case <-tick.C:
			fn()
		}
	}
}

// Shutdown stops the janitors, cancels every running turn with
// ErrShuttingDown, waits for the work counted by Work to finish or ctx to
// expire, saves every item (several at once) and closes every session.
// Turns refused afterwards fail as Busy.
func (h *Host[T]) Shutdown(ctx context.Context) error {
	h.closing.Store(true)
	h.closeOnce.Do(func() { close(h.janitor) })
	h.stop(ErrShuttingDown)
	done := make(chan struct{})
	go func() { h.work.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	// Saves run side by side: a store that makes a save durable (the
	// file store folds a task's journal into its files, with fsyncs)
	// waits for the disk, which serves the saves in flight together.
	live := h.Live()
	var saves sync.WaitGroup
	sem := make(chan struct{}, shutdownSaves)
	for _, it := range live {
		sem <- struct{}{}
		saves.Go(func() {
			defer func() { <-sem }()
			it.Save()
		})
	}
	saves.Wait()
	for _, it := range live {
		it.CloseSession()
	}
	return err
}

// shutdownSaves is how many items Shutdown saves at once.
const shutdownSaves = 16
