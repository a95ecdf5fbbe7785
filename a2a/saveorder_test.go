package a2a

import (
	"context"
	"sync"
	"testing"
	"time"
)

// slowFirstStore holds the first Save of a task until release is closed,
// as a disk or bucket slow to answer one write does, and keeps what was
// written last.
type slowFirstStore struct {
	*MemoryStore
	mu      sync.Mutex
	saves   int
	held    chan struct{}
	release chan struct{}
}

func (s *slowFirstStore) Save(ctx context.Context, t *StoredTask) error {
	s.mu.Lock()
	s.saves++
	first := s.saves == 1
	s.mu.Unlock()
	if first {
		close(s.held)
		<-s.release
	}
	return s.MemoryStore.Save(ctx, t)
}

// TestSavesOfATaskKeepTheirOrder: two saves of one task at once (a
// message accepted for a queue while the running turn saves its
// progress) reach the store in the order their snapshots were taken, so
// the newer one is what stays. Before, a save slow to write could land
// after a newer one and take the accepted message out of the store.
func TestSavesOfATaskKeepTheirOrder(t *testing.T) {
	st := &slowFirstStore{MemoryStore: NewMemoryStore(), held: make(chan struct{}), release: make(chan struct{})}
	s, err := NewServer(Config{AllowedRoot: t.TempDir(), Store: st, NewSession: noSession})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(t.Context())
	tk := s.newTask("ordered-task", "ctx", AgentSettings{})
	older := make(chan struct{})
	go func() { s.save(tk); close(older) }()
	<-st.held
	tk.mu.Lock()
	tk.history = append(tk.history, Message{Kind: "message", Role: "user", MessageID: "m2"})
	tk.mu.Unlock()
	newer := make(chan struct{})
	go func() { s.save(tk); close(newer) }()
	// The newer save either ends first (the defect) or waits for the
	// older one; give it a moment to show which.
	select {
	case <-newer:
	case <-time.After(200 * time.Millisecond):
	}
	close(st.release)
	<-older
	<-newer
	got, err := st.Load(t.Context(), "ordered-task")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.History) != 1 {
		t.Fatalf("the store kept a history of %d messages, want the newer save's 1", len(got.History))
	}
}
