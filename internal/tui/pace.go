package tui

import (
	"reflect"
	"sync"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"
)

// Bubble Tea (v2.0.10) draws on a ticker that fires 60 times a second for
// as long as the program runs, whether or not anything changed: an idle
// session woke the process 60 times a second and used about 1 % of a core
// doing nothing. The pacer slows that ticker down to nothing once the
// program has had no message for quietAfter, and restores its rate on the
// next message (a key, a chunk of an answer, a spinner frame), before the
// frame that message changes is due. The ticker is the Program's own,
// reached by reflection: Bubble Tea offers no way to draw on demand. If a
// new Bubble Tea renames the field, the pacer does nothing (the test
// TestPacerFindsTicker fails first).

const (
	// frameEvery is Bubble Tea's default frame period (60 fps).
	frameEvery = time.Second / 60
	// quietAfter is how long after the last message the ticker stops;
	// several frames, so the last change is surely drawn.
	quietAfter = 250 * time.Millisecond
)

// pacer starts and stops the renderer's ticker.
type pacer struct {
	mu     sync.Mutex
	ticker *time.Ticker
	find   func() *time.Ticker
	quiet  *time.Timer
	last   time.Time
	fast   bool
}

// newPacer paces p's renderer.
func newPacer(p *tea.Program) *pacer {
	return &pacer{find: func() *time.Ticker { return programTicker(p) }, fast: true}
}

// programTicker is p's renderer ticker, nil before Run starts it or if
// Bubble Tea no longer has one.
func programTicker(p *tea.Program) *time.Ticker {
	v := reflect.ValueOf(p).Elem().FieldByName("ticker")
	if !v.IsValid() || v.Type() != reflect.TypeFor[*time.Ticker]() {
		return nil
	}
	return *(**time.Ticker)(unsafe.Pointer(v.UnsafeAddr()))
}

// wake is called on the program's goroutine for every message: the
// ticker runs at full rate until quietAfter has passed without another.
func (pc *pacer) wake() {
	if pc == nil {
		return
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.ticker == nil {
		if pc.ticker = pc.find(); pc.ticker == nil {
			return
		}
	}
	pc.last = time.Now()
	if !pc.fast {
		pc.ticker.Reset(frameEvery)
		pc.fast = true
	}
	if pc.quiet == nil {
		pc.quiet = time.AfterFunc(quietAfter, pc.rest)
	} else {
		pc.quiet.Reset(quietAfter)
	}
}

// rest stops the ticker once the program has been quiet long enough.
func (pc *pacer) rest() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if d := time.Since(pc.last); d < quietAfter {
		pc.quiet.Reset(quietAfter - d)
		return
	}
	pc.ticker.Stop()
	pc.fast = false
}
