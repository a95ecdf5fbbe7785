package a2a

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// hang bounds the wait for the start-up pass: a generous deadline that
// turns a hang into a failure, never a speed check.
const hang = 20 * time.Second

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

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func storedIDs(t *testing.T, s TaskStore) []string {
	t.Helper()
	ids, err := s.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func seed(t *testing.T, s TaskStore, id string, ts time.Time) {
	t.Helper()
	if err := s.Save(t.Context(), &StoredTask{ID: id, ContextID: "ctx", State: StateInputRequired, Timestamp: ts}); err != nil {
		t.Fatal(err)
	}
}

// TestRetentionAtStart: a server deletes the tasks that expired while it
// was down as soon as it starts, not an hour later.
func TestRetentionAtStart(t *testing.T) {
	c := &clock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	store := NewMemoryStore()
	seed(t, store, "ancient", c.now.Add(-DefaultRetention-time.Minute))
	seed(t, store, "recent", c.now.Add(-DefaultRetention+time.Minute))
	s, err := NewServer(Config{AllowedRoot: t.TempDir(), Store: store, Now: c.Now, NewSession: noSession})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	deadline := time.Now().Add(hang)
	for slices.Contains(storedIDs(t, store), "ancient") {
		if time.Now().After(deadline) {
			t.Fatalf("the expired task is still stored %v after start", hang)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := storedIDs(t, store); !slices.Equal(got, []string{"recent"}) {
		t.Errorf("stored %v, want [recent]", got)
	}
}

// TestRetention: idle tasks older than the retention leave memory and the
// store; tasks in use stay whatever their age, and so do young ones.
func TestRetention(t *testing.T) {
	tests := []struct {
		name      string
		retention time.Duration
		advance   time.Duration
		want      []string // stored afterwards
	}{
		{"default keeps a month", 0, 29 * 24 * time.Hour, []string{"busy", "idle", "stored", "streamed"}},
		{"default", 0, 31 * 24 * time.Hour, []string{"busy", "streamed"}},
		{"custom", time.Hour, 2 * time.Hour, []string{"busy", "streamed"}},
		{"custom keeps younger", 3 * time.Hour, 2 * time.Hour, []string{"busy", "idle", "stored", "streamed"}},
		{"forever", -1, 10 * 365 * 24 * time.Hour, []string{"busy", "idle", "stored", "streamed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
			store := NewMemoryStore()
			s, err := NewServer(Config{AllowedRoot: t.TempDir(), Store: store, Now: c.Now, Retention: tt.retention, NewSession: noSession})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Shutdown(context.Background())
			// Only in the store, as after an eviction or a restart.
			seed(t, store, "stored", c.now)
			// In memory and saved: one idle, one with a turn running, one
			// with a client's stream open.
			for _, id := range []string{"idle", "busy", "streamed"} {
				tk := s.newTask(id, "ctx", AgentSettings{})
				tk.state = StateInputRequired
				switch id {
				case "busy":
					tk.running = true
				case "streamed":
					tk.subs[&subscriber{}] = struct{}{}
				}
				if err := s.host.Add(tk); err != nil {
					t.Fatal(err)
				}
				s.save(tk)
			}
			c.advance(tt.advance)
			s.host.PruneExpired(t.Context())
			if got := storedIDs(t, store); !slices.Equal(got, tt.want) {
				t.Errorf("stored %v, want %v", got, tt.want)
			}
			_, idleLive := s.host.Get("idle")
			_, busyLive := s.host.Get("busy")
			if idleGone := !slices.Contains(tt.want, "idle"); idleGone == idleLive {
				t.Errorf("idle task in memory: %v, in the store: %v", idleLive, !idleGone)
			}
			if !busyLive {
				t.Error("the running task left memory")
			}
			// A deleted task is unknown to clients, not an error.
			if !slices.Contains(tt.want, "idle") {
				if _, err := s.lookupTask(t.Context(), "idle"); err == nil {
					t.Error("the deleted task can still be looked up")
				}
			}
		})
	}
}
