package spend_test

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/spend"
)

// TestLedger: additions from many writers all count, a new day starts at
// zero, and a corrupt file is an error naming it.
func TestLedger(t *testing.T) {
	dir := t.TempDir()
	day := time.Date(2026, 12, 7, 10, 0, 0, 0, time.Local)
	l := spend.Open(dir)
	l.Now = func() time.Time { return day }
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			other := spend.Open(dir)
			other.Now = l.Now
			if err := other.Add(0.5); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, err := l.Spent(); err != nil || got != 10 {
		t.Fatalf("spent %v, %v; want 10", got, err)
	}
	l.Now = func() time.Time { return day.AddDate(0, 0, 1) }
	if got, _ := l.Spent(); got != 0 {
		t.Errorf("the next day starts at %v", got)
	}
	if err := os.WriteFile(l.Path(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Spent(); err == nil || !strings.Contains(err.Error(), l.Path()) {
		t.Errorf("corrupt file: %v", err)
	}
}

// TestLedgerKeepsAMonth: days older than the newest 31 are dropped.
func TestLedgerKeepsAMonth(t *testing.T) {
	l := spend.Open(t.TempDir())
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.Local)
	for i := range 40 {
		l.Now = func() time.Time { return start.AddDate(0, 0, i) }
		if err := l.Add(1); err != nil {
			t.Fatal(err)
		}
	}
	l.Now = func() time.Time { return start.AddDate(0, 0, 8) }
	if got, _ := l.Spent(); got != 0 {
		t.Errorf("day 9 of 40 kept: %v", got)
	}
	l.Now = func() time.Time { return start.AddDate(0, 0, 9) }
	if got, _ := l.Spent(); got != 1 {
		t.Errorf("day 10 of 40 dropped: %v", got)
	}
}

// BenchmarkLedgerAdd: what each priced model call pays to keep the day's
// total (lock, read, atomic replace with fsync).
func BenchmarkLedgerAdd(b *testing.B) {
	l := spend.Open(b.TempDir())
	for b.Loop() {
		if err := l.Add(0.001); err != nil {
			b.Fatal(err)
		}
	}
}
