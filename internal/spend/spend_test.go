package spend_test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/spend"
)

var day = time.Date(2026, 12, 7, 10, 0, 0, 0, time.Local)

// openAt is the ledger of dir with its clock stopped at t.
func openAt(dir string, t time.Time) *spend.Ledger {
	l := spend.Open(dir)
	l.Now = func() time.Time { return t }
	return l
}

// TestLedger: additions from many goroutines all count, a new day starts
// at zero.
func TestLedger(t *testing.T) {
	dir := t.TempDir()
	l := openAt(dir, day)
	if got, err := l.Spent(); err != nil || got != 0 {
		t.Fatalf("a ledger never written: %v, %v", got, err)
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if err := openAt(dir, day).Add(0.5); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, err := l.Spent(); err != nil || got != 10 {
		t.Fatalf("spent %v, %v; want 10", got, err)
	}
	if got, err := openAt(dir, day.AddDate(0, 0, 1)).Spent(); err != nil || got != 0 {
		t.Errorf("the next day starts at %v, %v", got, err)
	}
}

// TestLedgerProcesses: sessions in several processes appending at once
// lose no entry (no lock between them: one O_APPEND write each).
func TestLedgerProcesses(t *testing.T) {
	const procs, each = 4, 200
	if dir := os.Getenv("SPEND_TEST_DIR"); dir != "" {
		l := openAt(dir, day)
		for range each {
			if err := l.Add(0.25); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(3)
			}
		}
		os.Exit(0)
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	for range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLedgerProcesses$")
		cmd.Env = append(os.Environ(), "SPEND_TEST_DIR="+dir)
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child: %v\n%s", err, out)
			}
		})
	}
	wg.Wait()
	if got, err := openAt(dir, day).Spent(); err != nil || got != procs*each*0.25 {
		t.Fatalf("spent %v, %v; want %v", got, err, procs*each*0.25)
	}
}

// TestLedgerAddIsWrittenOnReturn: a process that ends the moment Add
// returned, as a kill would end it, leaves the call counted.
func TestLedgerAddIsWrittenOnReturn(t *testing.T) {
	if dir := os.Getenv("SPEND_TEST_EXIT_DIR"); dir != "" {
		if err := openAt(dir, day).Add(1.25); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLedgerAddIsWrittenOnReturn$")
	cmd.Env = append(os.Environ(), "SPEND_TEST_EXIT_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if got, err := openAt(dir, day).Spent(); err != nil || got != 1.25 {
		t.Fatalf("spent %v, %v; want 1.25", got, err)
	}
}

// TestLedgerJournal: what a day's file may hold after writes cut short,
// and what it sums to; fragments are skipped and named under --debug
// (once, however often the day is read), a line that is no record at all
// is an error naming the file.
func TestLedgerJournal(t *testing.T) {
	for _, c := range []struct {
		name, file string
		want       float64
		debug      string // in the debug line, "" for none
		err        string
	}{
		{name: "records", file: "{\"usd\":0.5}\n{\"usd\":1.25}\n{\"usd\":1e-3}\n", want: 1.751},
		{name: "torn last line", file: "{\"usd\":0.5}\n{\"usd\":0.2", want: 0.5, debug: "line(s) 2"},
		{name: "whole last line without its newline", file: "{\"usd\":0.5}\n{\"usd\":0.25}", want: 0.75},
		{name: "a fragment the next record is glued to", file: "{\"usd\":0.5}\n{\"usd\":0.{\"usd\":2}\n{\"usd\":1}\n", want: 3.5, debug: "line(s) 2"},
		{name: "zeros a power loss left", file: "{\"usd\":0.5}\n\x00\x00\x00\x00{\"usd\":2}\n", want: 2.5, debug: "line(s) 2"},
		{name: "zeros at the end", file: "{\"usd\":0.5}\n\x00\x00\x00", want: 0.5, debug: "line(s) 2"},
		{name: "records glued whole", file: "{\"usd\":1}{\"usd\":2}\n", want: 3, debug: ""},
		{name: "empty lines", file: "\n{\"usd\":1}\n\n", want: 1},
		{name: "not a record", file: "{\"usd\":1}\nhello\n{\"usd\":1}\n", err: "line 2 is not a spending record"},
		{name: "not a number", file: "{\"usd\":NaN}\n", err: "line 1 is not a spending record"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := openAt(t.TempDir(), day)
			var heard []string
			l.Debug = func(s string) { heard = append(heard, s) }
			path := l.DayPath(day.Format(time.DateOnly))
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.file), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := l.Spent()
			if again, err2 := l.Spent(); err == nil && (err2 != nil || again != got) {
				t.Fatalf("read again: %v, %v; first %v", again, err2, got)
			}
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), path) {
					t.Fatalf("error %v, want one naming %s and %q", err, path, c.err)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("spent %v, %v; want %v", got, err, c.want)
			}
			switch {
			case c.debug == "" && len(heard) > 0:
				t.Errorf("debug heard %q", heard)
			case c.debug != "" && (len(heard) != 1 || !strings.Contains(heard[0], c.debug) || !strings.Contains(heard[0], path)):
				t.Errorf("debug heard %q, want one line naming %s and %q", heard, path, c.debug)
			}
		})
	}
}

// TestLedgerReadsOldLedger: a spending.json from before the journal
// counts toward today beside the journal, a corrupt one is an error
// naming it, and one whose days have all aged out goes when a new day's
// file is made.
func TestLedgerReadsOldLedger(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, spend.LegacyFileName)
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(old, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"days":{"2026-12-06":3,"2026-12-07":1.5}}`)
	l := openAt(dir, day)
	if err := l.Add(0.25); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Spent(); err != nil || got != 1.75 {
		t.Fatalf("spent %v, %v; want 1.75 (1.5 in the old ledger)", got, err)
	}
	if got, err := openAt(dir, day.AddDate(0, 0, -1)).Spent(); err != nil || got != 3 {
		t.Errorf("the day before: %v, %v; want the old ledger's 3", got, err)
	}
	// Thirty days on, 12-07 is still kept; thirty-one days on it is not.
	if err := openAt(dir, day.AddDate(0, 0, 30)).Add(1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("the old ledger went while it held a kept day: %v", err)
	}
	if err := openAt(dir, day.AddDate(0, 0, 31)).Add(1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the old ledger stays with its days aged out: %v", err)
	}
	write("{")
	if _, err := l.Spent(); err == nil || !strings.Contains(err.Error(), old) {
		t.Errorf("corrupt old ledger: %v", err)
	}
}

// TestLedgerKeepsAMonth: days older than the newest 31 are dropped.
func TestLedgerKeepsAMonth(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.Local)
	for i := range 40 {
		if err := openAt(dir, start.AddDate(0, 0, i)).Add(1); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := openAt(dir, start.AddDate(0, 0, 8)).Spent(); got != 0 {
		t.Errorf("day 9 of 40 kept: %v", got)
	}
	if got, _ := openAt(dir, start.AddDate(0, 0, 9)).Spent(); got != 1 {
		t.Errorf("day 10 of 40 dropped: %v", got)
	}
	files, _ := os.ReadDir(spend.Open(dir).Dir())
	if len(files) != 31 {
		t.Errorf("%d days kept, want 31", len(files))
	}
}

// BenchmarkLedgerAdd: what each priced model call pays to keep the day's
// total (one appended line).
func BenchmarkLedgerAdd(b *testing.B) {
	l := spend.Open(b.TempDir())
	for b.Loop() {
		if err := l.Add(0.001); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLedgerSpent: what a call pays under a daily budget to read
// the day's total, after a thousand calls.
func BenchmarkLedgerSpent(b *testing.B) {
	l := spend.Open(b.TempDir())
	for i := range 1000 {
		if err := l.Add(0.001 * float64(i)); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := l.Spent(); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzJournal: whatever a day's file holds, reading it neither panics
// nor counts less than its whole lines of records.
func FuzzJournal(f *testing.F) {
	f.Add([]byte("{\"usd\":0.5}\n{\"usd\":0.{\"usd\":2}\n"))
	f.Add([]byte("\x00\x00{\"usd\":1e-3}\n{"))
	f.Add([]byte("{\"usd\":-0}\n\n{}{\"usd\":\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l := openAt(t.TempDir(), day)
		path := l.DayPath(day.Format(time.DateOnly))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Spent(); err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("error does not name the file: %v", err)
		}
		// Records appended after whatever was there still count, once
		// the fragment before them is ended.
		before, err := l.Spent()
		if err != nil {
			return
		}
		if err := l.Add(0.5); err != nil {
			t.Fatal(err)
		}
		after, err := l.Spent()
		if err != nil {
			t.Fatalf("a record appended made the file unreadable: %v", err)
		}
		if d := after - before; math.Abs(before) < 1e6 && math.Abs(d-0.5) > 1e-6 {
			t.Errorf("an appended 0.5 added %v (before %v)", d, before)
		}
	})
}
