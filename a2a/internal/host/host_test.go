package host

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// hang bounds waits for another goroutine: a generous deadline that turns
// a hang into a failure, never a speed check.
const hang = 20 * time.Second

var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// item is a fake Item recording what the host did to it.
type item struct {
	id string

	mu       sync.Mutex
	usage    Usage
	saves    int
	released bool
	closed   bool
}

func newItem(id string, last time.Duration, u Usage) *item {
	u.LastActive = t0.Add(last)
	return &item{id: id, usage: u}
}

func (i *item) ID() string { return i.id }

func (i *item) Usage() Usage {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.usage
}

func (i *item) Save() {
	i.mu.Lock()
	i.saves++
	i.mu.Unlock()
}

func (i *item) ReleaseSession() {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.usage.Session && !i.usage.Running && !i.usage.Watched {
		i.usage.Session = false
		i.released = true
	}
}

func (i *item) CloseSession() {
	i.mu.Lock()
	i.closed = true
	i.mu.Unlock()
}

// clock is an injectable clock for Config.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func newHost(t *testing.T, cfg Config) *Host[*item] {
	t.Helper()
	h := New[*item](cfg)
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	return h
}

func ids(items []*item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.id)
	}
	return out
}

// waitFor polls cond until it holds, failing after hang.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(hang); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s after %v", what, hang)
		}
	}
}

func busyWhat(err error) string {
	var b *Busy
	if errors.As(err, &b) {
		return b.What
	}
	if err != nil {
		return "not busy: " + err.Error()
	}
	return ""
}

// TestAdmission: a turn takes a free slot, waits in the queue while there
// is room in it, and fails as busy otherwise, or when its client leaves
// or the host shuts down while it waits.
func TestAdmission(t *testing.T) {
	tests := []struct {
		name    string
		queue   int // MaxQueuedTurns; one slot, taken
		waiting int // turns already queued
		then    string
		want    string
	}{
		{"no queue", -1, 0, "", "too many turns running"},
		{"full queue", 1, 1, "", "too many turns running and waiting"},
		{"queued then served", 1, 0, "release", ""},
		{"client left", 1, 0, "leave", "the client left while the turn waited to run"},
		{"shutdown", 1, 0, "shutdown", "the server is shutting down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, Config{Limits: Limits{MaxConcurrentTurns: 1, MaxQueuedTurns: tt.queue}})
			if err := h.AcquireTurn(t.Context()); err != nil {
				t.Fatalf("a free slot: %v", err)
			}
			// The turns already waiting give up when the test ends.
			wctx, stopWaiting := context.WithCancel(t.Context())
			defer stopWaiting()
			for range tt.waiting {
				go h.AcquireTurn(wctx)
			}
			waitFor(t, "the queued turns", func() bool { return h.Queued() == int64(tt.waiting) })
			ctx, leave := context.WithCancel(t.Context())
			defer leave()
			got := make(chan error, 1)
			go func() { got <- h.AcquireTurn(ctx) }()
			if tt.then != "" {
				waitFor(t, "the turn to queue", func() bool { return h.Queued() == int64(tt.waiting+1) })
			}
			switch tt.then {
			case "release":
				h.ReleaseTurn()
			case "leave":
				leave()
			case "shutdown":
				h.Shutdown(context.Background())
			}
			select {
			case err := <-got:
				if w := busyWhat(err); w != tt.want {
					t.Errorf("AcquireTurn: %q, want %q", w, tt.want)
				}
			case <-time.After(hang):
				t.Fatal("AcquireTurn hangs")
			}
			if h.Queued() != int64(tt.waiting) {
				t.Errorf("%d turns queued afterwards, want %d", h.Queued(), tt.waiting)
			}
		})
	}
}

func TestStreams(t *testing.T) {
	h := newHost(t, Config{Limits: Limits{MaxStreams: 2}})
	for i, want := range []bool{true, true, false} {
		if got := h.AcquireStream(); got != want {
			t.Errorf("stream %d: %v, want %v", i, got, want)
		}
	}
	h.ReleaseStream()
	if h.Streams() != 1 || !h.AcquireStream() {
		t.Errorf("after a release: %d streams and no room", h.Streams())
	}
}

// TestEvictionOrder: a full live set makes room by saving and evicting
// its least recently active idle item, never one in use.
func TestEvictionOrder(t *testing.T) {
	tests := []struct {
		name    string
		a, b    Usage // a is older than b
		evicted string
		busy    bool
	}{
		{"oldest idle", Usage{Session: true}, Usage{}, "a", false},
		{"running kept", Usage{Running: true}, Usage{Session: true}, "b", false},
		{"watched kept", Usage{Watched: true}, Usage{}, "b", false},
		{"all in use", Usage{Running: true}, Usage{Watched: true}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, Config{Limits: Limits{MaxLiveTasks: 2}})
			items := map[string]*item{"a": newItem("a", -2*time.Minute, tt.a), "b": newItem("b", -time.Minute, tt.b)}
			for _, id := range []string{"a", "b"} {
				if err := h.Add(items[id]); err != nil {
					t.Fatal(err)
				}
			}
			err := h.Add(newItem("c", 0, Usage{}))
			if got := busyWhat(err) == "too many live tasks"; got != tt.busy {
				t.Fatalf("adding to a full set: %v", err)
			}
			want := []string{"a", "b", "c"}
			if tt.busy {
				want = []string{"a", "b"}
			} else {
				want = slices.DeleteFunc(want, func(id string) bool { return id == tt.evicted })
			}
			if got := ids(h.Live()); !slices.Equal(got, want) {
				t.Errorf("live %v, want %v", got, want)
			}
			had := map[string]bool{"a": tt.a.Session, "b": tt.b.Session}
			for id, it := range items {
				gone := id == tt.evicted
				if (it.saves == 1) != gone || it.released != (gone && had[id]) {
					t.Errorf("%s: saved %d times, session released %v", id, it.saves, it.released)
				}
			}
		})
	}
}

func TestAdopt(t *testing.T) {
	h := newHost(t, Config{})
	first := newItem("x", 0, Usage{})
	if got, err := h.Adopt(first); got != first || err != nil {
		t.Fatalf("Adopt = %v, %v", got, err)
	}
	if got, _ := h.Adopt(newItem("x", 0, Usage{})); got != first {
		t.Error("a second copy replaced the item in memory")
	}
	h.Remove("x")
	if _, ok := h.Get("x"); ok {
		t.Error("removed, still there")
	}
}

func TestEvictIdle(t *testing.T) {
	h := newHost(t, Config{})
	old := newItem("old", -time.Hour, Usage{Session: true})
	for _, it := range []*item{
		old,
		newItem("old-running", -time.Hour, Usage{Running: true, Session: true}),
		newItem("old-watched", -time.Hour, Usage{Watched: true}),
		newItem("young", 0, Usage{Session: true}),
	} {
		h.Add(it)
	}
	if n := h.EvictIdle(t0.Add(-time.Minute)); n != 1 {
		t.Errorf("evicted %d, want 1", n)
	}
	if got := ids(h.Live()); !slices.Equal(got, []string{"old-running", "old-watched", "young"}) {
		t.Errorf("live %v", got)
	}
	if old.saves != 1 || !old.released {
		t.Errorf("the evicted item: saved %d times, session released %v", old.saves, old.released)
	}
}

// TestTrimSessions: past MaxIdleSessions, the least recently active items
// between turns give their sessions up; running ones are not counted.
func TestTrimSessions(t *testing.T) {
	tests := []struct {
		name     string
		max      int
		released []string
	}{
		{"within", 3, nil},
		{"one over", 2, []string{"a"}},
		{"two over", 1, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, Config{Limits: Limits{MaxIdleSessions: tt.max}})
			items := []*item{
				newItem("a", -4*time.Minute, Usage{Session: true}),
				newItem("b", -3*time.Minute, Usage{Session: true}),
				newItem("run", -2*time.Minute, Usage{Session: true, Running: true}),
				newItem("c", -time.Minute, Usage{Session: true}),
				newItem("none", -5*time.Minute, Usage{}),
			}
			for _, it := range items {
				h.Add(it)
			}
			h.TrimSessions()
			var got []string
			for _, it := range items {
				if it.released {
					got = append(got, it.id)
				}
			}
			if !slices.Equal(got, tt.released) {
				t.Errorf("released %v, want %v", got, tt.released)
			}
		})
	}
}

// TestRetention: expired idle items leave memory, then the store deletes
// what it holds but what the keep callback (items in memory) spares.
func TestRetention(t *testing.T) {
	tests := []struct {
		name      string
		retention time.Duration
		pruner    bool
		live      []string
		cutoff    time.Time // that the store is asked with; zero: not asked
	}{
		{"expired", time.Hour, true, []string{"old-running", "young"}, t0.Add(-time.Hour)},
		{"no pruner", time.Hour, false, []string{"old-running", "young"}, time.Time{}},
		{"forever", 0, true, []string{"old", "old-running", "young"}, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{now: t0.Add(-2 * time.Hour)}
			var mu sync.Mutex
			var cutoff time.Time
			var kept []string
			started := make(chan struct{})
			cfg := Config{Retention: tt.retention, Now: c.Now}
			if tt.pruner {
				cfg.Prune = func(_ context.Context, cut time.Time, keep func(string) bool) ([]string, error) {
					if cut.Before(t0.Add(-2 * time.Hour)) {
						close(started) // the pass at start, before the items
						return nil, nil
					}
					mu.Lock()
					defer mu.Unlock()
					cutoff = cut
					for _, id := range []string{"old", "old-running", "stored"} {
						if keep(id) {
							kept = append(kept, id)
						}
					}
					return []string{"old", "stored"}, nil
				}
			}
			h := newHost(t, cfg)
			if tt.pruner && tt.retention > 0 {
				select {
				case <-started:
				case <-time.After(hang):
					t.Fatal("no pass at start")
				}
			}
			for _, it := range []*item{
				newItem("old", -2*time.Hour, Usage{}),
				newItem("old-running", -2*time.Hour, Usage{Running: true}),
				newItem("young", -time.Minute, Usage{}),
			} {
				h.Add(it)
			}
			c.mu.Lock()
			c.now = t0
			c.mu.Unlock()
			h.PruneExpired(t.Context())
			if got := ids(h.Live()); !slices.Equal(got, tt.live) {
				t.Errorf("live %v, want %v", got, tt.live)
			}
			mu.Lock()
			defer mu.Unlock()
			if !cutoff.Equal(tt.cutoff) {
				t.Errorf("store asked with cutoff %v, want %v", cutoff, tt.cutoff)
			}
			if !tt.cutoff.IsZero() && !slices.Equal(kept, []string{"old-running"}) {
				t.Errorf("kept %v, want the item in use", kept)
			}
		})
	}
}

// TestShutdown: Shutdown cancels the work with ErrShuttingDown, waits for
// it, or for ctx, and saves every item and closes its session.
func TestShutdown(t *testing.T) {
	for _, ends := range []bool{true, false} {
		h := New[*item](Config{})
		it := newItem("a", 0, Usage{Running: true})
		h.Add(it)
		release := make(chan struct{})
		var cause error
		h.Work().Go(func() {
			<-h.Context().Done()
			cause = context.Cause(h.Context())
			if !ends {
				<-release
			}
		})
		ctx, cancel := context.WithCancel(context.Background())
		if !ends {
			cancel()
		}
		err := h.Shutdown(ctx)
		cancel()
		if ends && (err != nil || !errors.Is(cause, ErrShuttingDown)) {
			t.Errorf("Shutdown = %v, work cancelled with %v", err, cause)
		}
		if !ends && !errors.Is(err, context.Canceled) {
			t.Errorf("Shutdown of hanging work = %v", err)
		}
		if it.saves != 1 || !it.closed || !h.Closing() {
			t.Errorf("ends %v: saved %d, closed %v, closing %v", ends, it.saves, it.closed, h.Closing())
		}
		if err := h.AcquireTurn(context.Background()); err != nil {
			h.ReleaseTurn()
		}
		close(release)
	}
}

func TestLimitsDefaults(t *testing.T) {
	tests := []struct {
		in   Limits
		want func(Limits) bool
	}{
		{Limits{}, func(l Limits) bool {
			return l.MaxConcurrentTurns == 256 && l.MaxQueuedTurns == 4096 && l.MaxLiveTasks == 1024 && l.IdleTTL == 30*time.Minute
		}},
		{Limits{MaxQueuedTurns: -1, MaxStreams: -5}, func(l Limits) bool { return l.MaxQueuedTurns == -1 && l.MaxStreams == 1024 }},
		{Limits{MaxIdleSessions: 3, TurnTimeout: time.Second}, func(l Limits) bool { return l.MaxIdleSessions == 3 && l.TurnTimeout == time.Second }},
	}
	for i, tt := range tests {
		l := tt.in
		l.Defaults()
		if !tt.want(l) {
			t.Errorf("%d: %+v", i, l)
		}
	}
}

func TestDisconnectMode(t *testing.T) {
	tests := []struct {
		mode             DisconnectMode
		valid            bool
		running, watched bool
		cancels          bool
	}{
		{"", true, true, false, false},
		{DisconnectContinue, true, true, false, false},
		{DisconnectCancel, true, true, false, true},
		{DisconnectCancel, true, true, true, false},
		{DisconnectCancel, true, false, false, false},
		{"drop", false, true, false, false},
	}
	for _, tt := range tests {
		if err := tt.mode.Check(); (err == nil) != tt.valid {
			t.Errorf("%q: Check = %v", tt.mode, err)
		}
		if got := tt.mode.Cancels(tt.running, tt.watched); got != tt.cancels {
			t.Errorf("%q running %v watched %v: Cancels = %v", tt.mode, tt.running, tt.watched, got)
		}
	}
}

// TestTurns: an item's turns run one at a time, each holding a slot, and
// a turn ends with the cause it was cancelled with.
func TestTurns(t *testing.T) {
	h := newHost(t, Config{Limits: Limits{MaxConcurrentTurns: 1, MaxQueuedTurns: -1}})
	g := NewGate()
	first, err := h.StartTurn(t.Context(), g)
	if err != nil {
		t.Fatal(err)
	}
	// The item's next turn waits for the first; one that gives up is busy.
	gone, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := h.StartTurn(gone, g); busyWhat(err) != "the task is still running its previous turn" {
		t.Errorf("a second turn of the item: %v", err)
	}
	// Another item's turn finds no slot.
	if _, err := h.StartTurn(t.Context(), NewGate()); busyWhat(err) != "too many turns running" {
		t.Errorf("another item's turn with every slot taken: %v", err)
	}
	first.Cancel(ErrCanceled)
	if !errors.Is(context.Cause(first.Context()), ErrCanceled) {
		t.Errorf("cancelled with %v", context.Cause(first.Context()))
	}
	first.FreeSlot()
	other, err := h.StartTurn(t.Context(), NewGate())
	if err != nil {
		t.Fatalf("a freed slot: %v", err)
	}
	other.End()
	first.End() // the slot is given back once
	select {
	case <-first.Done():
	default:
		t.Error("Done is open after End")
	}
	next, err := h.StartTurn(t.Context(), g)
	if err != nil {
		t.Fatalf("the item's next turn: %v", err)
	}
	h.Shutdown(context.Background())
	if !errors.Is(context.Cause(next.Context()), ErrShuttingDown) {
		t.Errorf("at shutdown, the turn's cause is %v", context.Cause(next.Context()))
	}
	next.End()
	if _, err := h.StartTurn(t.Context(), NewGate()); busyWhat(err) != "the server is shutting down" {
		t.Errorf("a turn after shutdown: %v", err)
	}
}

func TestStats(t *testing.T) {
	h := newHost(t, Config{})
	h.Add(newItem("a", 0, Usage{Running: true}))
	h.Add(newItem("b", 0, Usage{Watched: true}))
	h.AcquireStream()
	if got, want := h.Stats(), (Stats{Live: 2, Running: 1, Streams: 1}); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}
