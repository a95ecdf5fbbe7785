package blobstore

import (
	"strings"
	"testing"
)

// A second store opening a bucket another store has open says so; one
// opening it after the other closed does not.
func TestPresence(t *testing.T) {
	b := NewMemBucket()
	first, second := New(b), New(b)
	if err := first.announce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if w := first.Shared(); w != "" {
		t.Errorf("the first store says %q", w)
	}
	if err := second.announce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if w := second.Shared(); !strings.Contains(w, "another process") || !strings.Contains(w, "postgres://") {
		t.Errorf("the second store says %q", w)
	}
	first.leave()
	second.leave()
	third := New(b)
	if err := third.announce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if w := third.Shared(); w != "" {
		t.Errorf("a store opened after the others left says %q", w)
	}
	third.leave()
}

// Two file:// stores on one directory: the second says so.
func TestSharedDirectory(t *testing.T) {
	u, err := FileURL(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	first, err := Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if w := first.Shared(); w != "" {
		t.Errorf("the first store says %q", w)
	}
	second, err := Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if w := second.Shared(); !strings.Contains(w, "another process") {
		t.Errorf("the second store says %q", w)
	}
}
