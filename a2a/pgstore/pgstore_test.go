package pgstore_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/pgstore"
	"github.com/castor-dev/castor/a2a/pgstore/pgtest"
	"github.com/castor-dev/castor/a2a/storetest"
)

func open(t *testing.T, url string, o pgstore.Options) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(t.Context(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) a2a.TaskStore {
		return open(t, pgtest.Database(t), pgstore.Options{})
	})
}

// Two replicas (two stores on one database): a save from a stale copy
// fails, a pending call is claimed once, and a lease waits for the other
// replica's release.
func TestReplicas(t *testing.T) {
	url := pgtest.Database(t)
	a := open(t, url, pgstore.Options{Holder: "a"})
	b := open(t, url, pgstore.Options{Holder: "b"})
	ctx := t.Context()
	now := time.Now()

	v1, err := a.SaveVersioned(ctx, storetest.Task("t1", now, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.SaveVersioned(ctx, storetest.Task("t1", now, 1), 0); !errors.Is(err, a2a.ErrConcurrentModification) {
		t.Fatalf("second first save = %v, want ErrConcurrentModification", err)
	}
	got, vb, err := b.LoadVersioned(ctx, "t1")
	if err != nil || vb != v1 {
		t.Fatalf("b loads version %d, %v; want %d", vb, err, v1)
	}
	got.History = append(got.History, got.History[0])
	v2, err := b.SaveVersioned(ctx, got, vb)
	if err != nil {
		t.Fatal(err)
	}
	// a still holds v1: its save must fail, not drop b's message.
	if _, err := a.SaveVersioned(ctx, storetest.Task("t1", now, 1), v1); !errors.Is(err, a2a.ErrConcurrentModification) {
		t.Fatalf("stale save = %v, want ErrConcurrentModification", err)
	}
	if v, err := a.Version(ctx, "t1"); err != nil || v != v2 {
		t.Fatalf("Version = %d, %v; want %d", v, err, v2)
	}
	if back, _ := a.Load(ctx, "t1"); len(back.History) != 3 {
		t.Fatalf("history has %d messages, want 3", len(back.History))
	}

	// The pending call c1 is claimed by exactly one of many tries.
	var claimed atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			ok, _, err := s.ClaimPending(ctx, "t1", "c1")
			if err != nil {
				t.Error(err)
			}
			if ok {
				claimed.Add(1)
			}
		})
	}
	wg.Wait()
	if n := claimed.Load(); n != 1 {
		t.Fatalf("c1 claimed %d times, want 1", n)
	}
	if back, _ := b.Load(ctx, "t1"); len(back.Pending) != 1 || back.Pending[0].ID != "c2" {
		t.Fatalf("pending after the claim = %+v", back.Pending)
	}

	// a's lease keeps b waiting until a releases it.
	la, err := a.Lease(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if busy, err := b.LeasedElsewhere(ctx, "t1"); err != nil || !busy {
		t.Fatalf("b sees the lease as held elsewhere: %v, %v", busy, err)
	}
	got2 := make(chan a2a.Lease, 1)
	var released atomic.Bool
	go func() {
		lb, err := b.Lease(ctx, "t1")
		if err != nil {
			t.Error(err)
		}
		if !released.Load() {
			t.Error("b took the lease a holds")
		}
		got2 <- lb
	}()
	released.Store(true)
	la.Release()
	lb := <-got2
	if busy, _ := a.LeasedElsewhere(ctx, "t1"); !busy {
		t.Fatal("a does not see b's lease")
	}
	lb.Release()
	if err := a.WaitReleased(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
}

// A lease whose holder stops renewing it (the replica died) expires and
// another replica takes it.
func TestLeaseExpires(t *testing.T) {
	url := pgtest.Database(t)
	a := open(t, url, pgstore.Options{Holder: "a", LeaseTTL: 300 * time.Millisecond})
	b := open(t, url, pgstore.Options{Holder: "b", LeaseTTL: 300 * time.Millisecond})
	if _, err := a.Lease(t.Context(), "t1"); err != nil {
		t.Fatal(err)
	}
	a.Close() // renewals stop, as when the process is killed
	lb, err := b.Lease(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	lb.Release()
}

// versioned saves through SaveVersioned, naming the version it last saved
// or loaded, as the server does.
type versioned struct {
	*pgstore.Store
	mu       sync.Mutex
	versions map[string]int64
}

func (v *versioned) Save(ctx context.Context, t *a2a.StoredTask) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	n, err := v.SaveVersioned(ctx, t, v.versions[t.ID])
	if err == nil {
		v.versions[t.ID] = n
	}
	return err
}

func (v *versioned) Load(ctx context.Context, id string) (*a2a.StoredTask, error) {
	t, n, err := v.LoadVersioned(ctx, id)
	if err == nil {
		v.mu.Lock()
		v.versions[id] = n
		v.mu.Unlock()
	}
	return t, err
}

func TestConformanceVersioned(t *testing.T) {
	storetest.Run(t, func(t *testing.T) a2a.TaskStore {
		return &versioned{Store: open(t, pgtest.Database(t), pgstore.Options{}), versions: map[string]int64{}}
	})
}

func (v *versioned) Prune(ctx context.Context, cutoff time.Time, keep func(id string) bool) ([]string, error) {
	ids, err := v.Store.Prune(ctx, cutoff, keep)
	v.mu.Lock()
	for _, id := range ids {
		delete(v.versions, id)
	}
	v.mu.Unlock()
	return ids, err
}

// TestLeaseOutlivesBusyPool holds a lease while every pooled connection
// stays busy for three lease times (saves queued behind a slow one): the
// lease is renewed all the same, and another replica cannot take it.
// Renewals waiting for the pool lost leases of turns that ran well.
func TestLeaseOutlivesBusyPool(t *testing.T) {
	url := pgtest.Database(t)
	const ttl = 300 * time.Millisecond
	a := open(t, url, pgstore.Options{Holder: "a", LeaseTTL: ttl, MaxConns: 1})
	b := open(t, url, pgstore.Options{Holder: "b", LeaseTTL: ttl})
	la, err := a.Lease(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.Pool().Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// While a's only pooled connection is taken, b tries for the lease
	// for three lease times.
	ctx, cancel := context.WithTimeout(t.Context(), 3*ttl)
	defer cancel()
	lb, err := b.Lease(ctx, "t1")
	c.Release()
	if err == nil {
		lb.Release()
		t.Fatal("another replica took the lease while its holder's pool was busy")
	}
	select {
	case <-la.Lost():
		t.Fatal("the lease was lost while its holder's pool was busy")
	default:
	}
	la.Release()
}
