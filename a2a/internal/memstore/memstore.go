// Package memstore keeps records in memory by id: each goes in and comes
// out as a copy, and the ones last active before a cutoff can be pruned.
// It is the in-memory form of a durable store, for servers that keep
// nothing across restarts and for tests.
package memstore

import (
	"sort"
	"sync"
	"time"
)

// Store holds records of type T by id. It is safe for concurrent use.
type Store[T any] struct {
	mu      sync.Mutex
	records map[string]*T
	clone   func(*T) *T
	active  func(*T) time.Time
}

// New returns an empty store. clone copies a record as it goes in and
// out, deep enough that neither side sees the other's changes; active
// says when a record was last active, which Prune compares.
func New[T any](clone func(*T) *T, active func(*T) time.Time) *Store[T] {
	return &Store[T]{records: map[string]*T{}, clone: clone, active: active}
}

// Put stores a copy of v under id, replacing what was there.
func (s *Store[T]) Put(id string, v *T) {
	cp := s.clone(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records[id] = cp
}

// Get returns a copy of the record stored under id.
func (s *Store[T]) Get(id string) (*T, bool) {
	s.mu.Lock()
	v, ok := s.records[id]
	s.mu.Unlock()
	if !ok {
		return nil, false
	}
	return s.clone(v), true
}

// Delete removes the record stored under id, if any.
func (s *Store[T]) Delete(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.records, id)
}

// IDs returns the stored ids, sorted.
func (s *Store[T]) IDs() []string {
	s.mu.Lock()
	ids := make([]string, 0, len(s.records))
	for id := range s.records {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	sort.Strings(ids)
	return ids
}

// Prune deletes the records last active before cutoff, except those keep
// (which may be nil) reports true for, and returns the deleted ids,
// sorted. keep is asked without the store's lock held, just before each
// deletion, since it may take the caller's own locks (held elsewhere while
// the caller stores into this store); a record that became active again
// meanwhile is kept.
func (s *Store[T]) Prune(cutoff time.Time, keep func(id string) bool) []string {
	s.mu.Lock()
	var old []string
	for id, v := range s.records {
		if s.active(v).Before(cutoff) {
			old = append(old, id)
		}
	}
	s.mu.Unlock()
	sort.Strings(old)
	var deleted []string
	for _, id := range old {
		if keep != nil && keep(id) {
			continue
		}
		s.mu.Lock()
		if v, ok := s.records[id]; ok && s.active(v).Before(cutoff) {
			delete(s.records, id)
			deleted = append(deleted, id)
		}
		s.mu.Unlock()
	}
	return deleted
}
