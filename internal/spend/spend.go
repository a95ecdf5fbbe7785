// Package spend keeps a project's spending per day, in US dollars, for
// the daily budget (model.dailyBudgetUsd): one small JSON file beside the
// project's chats folder, ~/.gemini/tmp/<project>/spending.json, that
// every session of the project adds each model call's cost to.
//
// A ledger rather than a sum over the recorded sessions: the session
// files hold the main loop's tokens only (not subagents', compression's
// or the router's calls), retention deletes them, recording can be off,
// and summing them would read every session at every call. The file is
// read whole and replaced atomically under a lock, so two sessions
// adding at once both count and a crash leaves the old or the new total.
package spend

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/castor-dev/castor/internal/fsutil"
)

// FileName is the ledger's name in the project's temporary directory.
const FileName = "spending.json"

// keepDays is how many days of totals the file keeps.
const keepDays = 31

// Ledger is one project's spending file. It implements model.Ledger for
// today (local time).
type Ledger struct {
	path string
	// Now is the clock (default time.Now); a test moves it a day on.
	Now func() time.Time
}

// file is the ledger's JSON: totals by local date, "2006-01-02".
type file struct {
	Days map[string]float64 `json:"days"`
}

// Open returns the ledger of the project whose temporary directory is
// dir; nothing is read or written yet.
func Open(dir string) *Ledger {
	return &Ledger{path: filepath.Join(dir, FileName), Now: time.Now}
}

// Path is the ledger file's path.
func (l *Ledger) Path() string { return l.path }

func (l *Ledger) today() string { return l.Now().Format(time.DateOnly) }

func (l *Ledger) read() (file, error) {
	f := file{Days: map[string]float64{}}
	raw, err := os.ReadFile(l.path)
	if os.IsNotExist(err) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return f, fmt.Errorf("%s: %v (delete it to start the day's count from zero)", l.path, err)
	}
	if f.Days == nil {
		f.Days = map[string]float64{}
	}
	return f, nil
}

// Spent is what the project's sessions spent today.
func (l *Ledger) Spent() (float64, error) {
	f, err := l.read()
	return f.Days[l.today()], err
}

// Add adds usd to today's total.
func (l *Ledger) Add(usd float64) error {
	lock, err := fsutil.Lock(l.path + ".lock")
	if err != nil {
		return fmt.Errorf("%s: %v", l.path, err)
	}
	defer lock.Unlock()
	f, err := l.read()
	if err != nil {
		return err
	}
	f.Days[l.today()] += usd
	// Old days go; the newest keepDays stay, for a look back.
	days := slices.Sorted(maps.Keys(f.Days))
	for _, d := range days[:max(0, len(days)-keepDays)] {
		delete(f.Days, d)
	}
	raw, _ := json.Marshal(f)
	if err := fsutil.WriteFileAtomic(l.path, raw, 0o600); err != nil {
		return fmt.Errorf("%s: %v", l.path, err)
	}
	return nil
}
