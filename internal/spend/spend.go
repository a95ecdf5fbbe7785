// Package spend keeps a project's spending per day, in US dollars, for
// the daily budget (model.dailyBudgetUsd): a journal beside the project's
// chats folder, ~/.gemini/tmp/<project>/spending.journal/<date>.jsonl,
// one file a day (local date), to which every session of the project
// appends one line per priced model call, {"usd":0.0123}. The day's
// total is the sum of the day's lines.
//
// A ledger rather than a sum over the recorded sessions: the session
// files hold the main loop's tokens only (not subagents', compression's
// or the router's calls), retention deletes them, recording can be off,
// and summing them would read every session at every call.
//
// A journal rather than a total replaced at each call: a call's cost is
// one write with O_APPEND, which the kernel keeps whole among the writes
// of every process appending to the file (on a local file system), so
// sessions running at once need no lock and none of their entries is
// lost, and a call costs no read of the ledger and no fsync. Without
// fsync a process that crashes or is killed loses nothing once write
// returned (the data is in the page cache, which the kernel writes out
// whatever becomes of the process); only a power loss or a kernel crash
// can lose the last seconds' entries, which then count a little less
// toward a budget that is an estimate anyway (its next call is guessed
// at four characters a token). The lock, read, atomic replace and fsync
// of each call before the journal were 8 % of a short headless run's
// CPU. A write cut short (a full disk, a power loss) leaves a line that
// is not a whole record, or a fragment the next record is glued to;
// reading skips the fragment and keeps the records.
//
// Old days are dropped when a day's file is made (once a day): the newest
// keepDays days stay, for a look back. Ledgers written before the journal
// (spending.json, {"days": {"2026-12-07": 0.1234}}, replaced under
// spending.json.lock) are read too, and removed once they hold no day the
// journal would keep.
package spend

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/castor-dev/castor/internal/fsutil"
)

// DirName is the journal's folder in the project's temporary directory.
// Its dot keeps it apart from the folders named after session ids there,
// which deleting a session removes (ids are letters, digits, - and _).
const DirName = "spending.journal"

// LegacyFileName is the ledger Castor kept before the journal: totals by
// day in one JSON file, replaced at each call.
const LegacyFileName = "spending.json"

// keepDays is how many days of journal the folder keeps.
const keepDays = 31

// Ledger is one project's spending journal. It implements model.Ledger
// for today (local time).
type Ledger struct {
	dir    string // the journal's folder
	legacy string // spending.json
	// Now is the clock (default time.Now); a test moves it a day on.
	Now func() time.Time
	// Debug, when set, hears what reading passed over: a line cut short
	// (a write torn by a crash or a full disk), named with its file, once.
	Debug func(string)

	mu   sync.Mutex
	told string // the last thing Debug heard
}

// Open returns the ledger of the project whose temporary directory is
// dir; nothing is read or written yet.
func Open(dir string) *Ledger {
	return &Ledger{dir: filepath.Join(dir, DirName), legacy: filepath.Join(dir, LegacyFileName), Now: time.Now}
}

// Dir is the journal's folder.
func (l *Ledger) Dir() string { return l.dir }

// DayPath is the journal file of a day, "2006-01-02".
func (l *Ledger) DayPath(day string) string { return filepath.Join(l.dir, day+".jsonl") }

func (l *Ledger) today() string { return l.Now().Format(time.DateOnly) }

// Spent is what the project's sessions spent today.
func (l *Ledger) Spent() (float64, error) {
	day := l.today()
	old, err := l.readLegacy()
	if err != nil {
		return 0, err
	}
	path := l.DayPath(day)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return old[day], nil
	}
	if err != nil {
		return 0, err
	}
	sum, err := sumJournal(path, raw, l.debug)
	return old[day] + sum, err
}

// debug tells Debug s unless it was the last thing told: every call of a
// session reads the day again and would repeat it.
func (l *Ledger) debug(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Debug == nil || s == l.told {
		return
	}
	l.told = s
	l.Debug(s)
}

// Add adds usd to today's total: one line appended to today's file.
func (l *Ledger) Add(usd float64) error {
	line := record(usd)
	day := l.today()
	path := l.DayPath(day)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	made := false
	if errors.Is(err, fs.ErrNotExist) {
		// The day's first call, in this project or ever.
		if err := os.MkdirAll(l.dir, 0o700); err != nil {
			return err
		}
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
		made = err == nil
		if errors.Is(err, fs.ErrExist) { // another session made it meanwhile
			f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		}
	}
	if err != nil {
		return err
	}
	// One write: O_APPEND keeps it whole among other processes' (see the
	// package comment for why no fsync follows).
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if made {
		// The call is counted; old days left over are only untidy.
		if err := l.prune(day); err != nil {
			l.debug(fmt.Sprintf("spending journal %s: dropping old days: %v", l.dir, err))
		}
	}
	return nil
}

// record is the journal line of a call that cost usd: the shortest
// decimal that reads back as the same float64.
func record(usd float64) []byte {
	b := append(make([]byte, 0, 32), `{"usd":`...)
	b = strconv.AppendFloat(b, usd, 'g', -1, 64)
	return append(b, "}\n"...)
}

// sumJournal adds up the records of a day's file. A record is
// {"usd":<number>} and every write one whole line, so anything else is a
// write cut short: the last line alone, or a fragment the next write's
// record was glued to ({"usd":0.0{"usd":0.5}, or the zeros a power loss
// can leave before it). Each piece of a line that starts with '{' counts
// if it is a whole record; the fragments are skipped, which debug hears
// of. A whole line holding no record was not written by Castor: an error
// naming the file and line.
func sumJournal(path string, raw []byte, debug func(string)) (float64, error) {
	var sum float64
	var torn []int
	for n := 1; len(raw) > 0; n++ {
		line, rest, whole := bytes.Cut(raw, []byte{'\n'})
		raw = rest
		if v, ok := parseRecord(line); ok {
			sum += v
			continue
		}
		found, cut := false, false
		for piece := range pieces(line) {
			if v, ok := parseRecord(piece); ok {
				sum += v
				found = true
			} else if len(bytes.TrimSpace(piece)) > 0 {
				cut = true
			}
		}
		switch {
		case !found && whole && cut:
			return 0, fmt.Errorf("%s: line %d is not a spending record: %.40q (delete the file to start the day's count from zero)", path, n, line)
		case cut:
			torn = append(torn, n)
		}
	}
	if len(torn) > 0 && debug != nil {
		debug(fmt.Sprintf("spending journal %s: skipped what a write cut short on line(s) %s", path, joinInts(torn)))
	}
	return sum, nil
}

// pieces splits a line at each '{' (a record holds no other), keeping
// the brace with the piece it starts; what comes before the first brace
// is a piece too.
func pieces(line []byte) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(line) > 0 {
			i := bytes.IndexByte(line[1:], '{')
			if i < 0 {
				yield(line)
				return
			}
			if !yield(line[:i+1]) {
				return
			}
			line = line[i+1:]
		}
	}
}

// parseRecord reads {"usd":<number>}, a finite number.
func parseRecord(b []byte) (float64, bool) {
	s, ok := strings.CutPrefix(string(b), `{"usd":`)
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, "}")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// legacyFile is spending.json: totals by local date, "2006-01-02".
type legacyFile struct {
	Days map[string]float64 `json:"days"`
}

// readLegacy reads spending.json's totals, none without the file.
func (l *Ledger) readLegacy() (map[string]float64, error) {
	raw, err := os.ReadFile(l.legacy)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f legacyFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("%s: %v (delete it to start the day's count from zero)", l.legacy, err)
	}
	return f.Days, nil
}

// prune drops the journal's days older than the newest keepDays from
// today, and spending.json once every day it holds is that old. Other
// sessions may prune at once: a file already gone is no error. The old
// ledger is checked and removed under its lock, which versions before
// the journal took to replace it, so that a call such a version adds
// meanwhile is not removed with it.
func (l *Ledger) prune(today string) error {
	t, err := time.ParseInLocation(time.DateOnly, today, time.Local)
	if err != nil {
		return err
	}
	oldest := t.AddDate(0, 0, -(keepDays - 1)).Format(time.DateOnly)
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		day, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || day >= oldest {
			continue
		}
		if _, err := time.Parse(time.DateOnly, day); err != nil {
			continue // not the journal's
		}
		if err := os.Remove(filepath.Join(l.dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if _, err := os.Lstat(l.legacy); err != nil {
		return nil
	}
	lock, err := fsutil.Lock(l.legacy + ".lock")
	if err != nil {
		return fmt.Errorf("%s: %v", l.legacy, err)
	}
	defer lock.Unlock()
	days, err := l.readLegacy()
	if err != nil {
		return err
	}
	for d := range days {
		if d >= oldest {
			return nil
		}
	}
	if err := os.Remove(l.legacy); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
