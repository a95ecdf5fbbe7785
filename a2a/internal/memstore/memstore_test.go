package memstore

import (
	"slices"
	"sync"
	"testing"
	"time"
)

type record struct {
	Active time.Time
	Tags   []string
}

func newStore() *Store[record] {
	return New(func(r *record) *record {
		cp := *r
		cp.Tags = slices.Clone(r.Tags)
		return &cp
	}, func(r *record) time.Time { return r.Active })
}

func TestPutGetCopies(t *testing.T) {
	s := newStore()
	in := &record{Tags: []string{"a"}}
	s.Put("x", in)
	in.Tags[0] = "changed after Put"
	out, ok := s.Get("x")
	if !ok || out.Tags[0] != "a" {
		t.Fatalf("Get = %+v, %v; want the record as it was put", out, ok)
	}
	out.Tags[0] = "changed after Get"
	if again, _ := s.Get("x"); again.Tags[0] != "a" {
		t.Errorf("a returned copy's change reached the store: %+v", again)
	}
	if _, ok := s.Get("missing"); ok {
		t.Error("Get of a missing id reported a record")
	}
}

func TestIDsAndDelete(t *testing.T) {
	s := newStore()
	for _, id := range []string{"b", "c", "a"} {
		s.Put(id, &record{})
	}
	s.Delete("c")
	s.Delete("never stored")
	if got := s.IDs(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("IDs = %q, want [a b]", got)
	}
}

func TestPrune(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tt := range []struct {
		name string
		keep func(string) bool
		want []string
	}{
		{"nil keep", nil, []string{"old1", "old2"}},
		{"keep claims one", func(id string) bool { return id == "old1" }, []string{"old2"}},
		{"keep claims all", func(string) bool { return true }, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore()
			s.Put("old2", &record{Active: now.Add(-2 * time.Hour)})
			s.Put("old1", &record{Active: now.Add(-3 * time.Hour)})
			s.Put("new", &record{Active: now})
			s.Put("edge", &record{Active: now.Add(-time.Hour)})
			got := s.Prune(now.Add(-time.Hour), tt.keep)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Prune = %q, want %q", got, tt.want)
			}
			for _, id := range tt.want {
				if _, ok := s.Get(id); ok {
					t.Errorf("%s survived its pruning", id)
				}
			}
			if _, ok := s.Get("edge"); !ok {
				t.Error("a record active exactly at the cutoff was pruned")
			}
		})
	}
}

// A record that comes back to life while keep is asked about it survives.
func TestPruneSparesRevived(t *testing.T) {
	now := time.Now()
	s := newStore()
	s.Put("x", &record{Active: now.Add(-time.Hour)})
	got := s.Prune(now.Add(-time.Minute), func(id string) bool {
		s.Put(id, &record{Active: now}) // the store's lock is not held here
		return false
	})
	if len(got) != 0 {
		t.Errorf("Prune deleted %q, which became active again", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := newStore()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := string(rune('a' + i))
			s.Put(id, &record{Tags: []string{id}})
			s.Get(id)
			s.IDs()
			s.Prune(time.Time{}, nil)
		}()
	}
	wg.Wait()
	if n := len(s.IDs()); n != 8 {
		t.Errorf("%d records, want 8", n)
	}
}
