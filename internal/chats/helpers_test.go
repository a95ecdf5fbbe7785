package chats

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/golden"
)

// fakeClock hands out strictly increasing times so that every record has a
// distinct, reproducible timestamp.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock(start string) *fakeClock {
	t, err := time.Parse(time.RFC3339, start)
	if err != nil {
		panic(err)
	}
	return &fakeClock{t: t}
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// seqIDs returns a generator of readable, ordered ids.
func seqIDs(prefix string) func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("%s-%04d", prefix, n)
	}
}

// testStore is a store in a temp dir with a deterministic clock and ids.
func testStore(t *testing.T, start string) *Store {
	t.Helper()
	s := NewStore(filepath.Join(t.TempDir(), "tmp", "proj", "chats"), "hash-of-project")
	s.now = newFakeClock(start).now
	s.newID = seqIDs("msg")
	return s
}

// assertGolden compares got with testdata/name.
func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, name, got)
}

// assertJSONEqual compares two JSON documents by meaning, not by bytes, so
// that hand-written expectations need not match Go's key order.
func assertJSONEqual(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	if !reflect.DeepEqual(g, w) {
		gi, _ := json.MarshalIndent(g, "", "  ")
		wi, _ := json.MarshalIndent(w, "", "  ")
		t.Errorf("JSON mismatch\n--- got ---\n%s\n--- want ---\n%s", gi, wi)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func copyFixture(t *testing.T, name, dir, as string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, as)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
