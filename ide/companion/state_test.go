package companion

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/castor-dev/castor/ide"
)

// fakeClock hands out timers that fire only when the test says so, so that
// the debounce is tested without waiting.
type fakeClock struct {
	mu     sync.Mutex
	timers []*fakeTimer
}

type fakeTimer struct {
	d       time.Duration
	f       func()
	stopped bool
}

func (t *fakeTimer) Stop() bool {
	was := !t.stopped
	t.stopped = true
	return was
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{d: d, f: f}
	c.timers = append(c.timers, t)
	return t
}

// pending returns the timers not stopped yet.
func (c *fakeClock) pending() []*fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*fakeTimer
	for _, t := range c.timers {
		if !t.stopped {
			out = append(out, t)
		}
	}
	return out
}

// fire runs every pending timer, as time passing would.
func (c *fakeClock) fire() {
	for _, t := range c.pending() {
		t.stopped = true
		t.f()
	}
}

type sent struct {
	method string
	params any
}

// newTestServer returns a server whose notifications are recorded, with a
// fake clock and timestamps counting up from 1000 ms.
func newTestServer() (*Server, *fakeClock, *[]sent) {
	clock := &fakeClock{}
	now := time.UnixMilli(1000)
	s := New(Options{AfterFunc: clock.AfterFunc, Now: func() time.Time { now = now.Add(time.Millisecond); return now }})
	var out []sent
	var mu sync.Mutex
	s.notify = func(method string, params any) {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, sent{method, params})
	}
	return s, clock, &out
}

func TestDebounce(t *testing.T) {
	s, clock, out := newTestServer()
	s.FileFocused("/a")
	s.CursorMoved("/a", 1, 1)
	s.CursorMoved("/a", 2, 5)
	s.SelectionChanged("/a", "sel")
	if len(*out) != 0 {
		t.Fatalf("sent before the debounce elapsed: %v", *out)
	}
	p := clock.pending()
	if len(p) != 1 || p[0].d != DefaultDebounce {
		t.Fatalf("%d pending timers (want one of 50ms): %+v", len(p), p)
	}
	clock.fire()
	if len(*out) != 1 || (*out)[0].method != "ide/contextUpdate" {
		t.Fatalf("sent %+v, want one update", *out)
	}
	c := (*out)[0].params.(*ide.Context)
	if f := c.Active(); f == nil || *f.Cursor != (ide.Cursor{Line: 2, Character: 5}) || f.SelectedText != "sel" {
		t.Errorf("the update does not carry the final state: %+v", c)
	}
	clock.fire()
	if len(*out) != 1 {
		t.Errorf("a second update without a change")
	}

	// A timer stopped too late (already firing) must not send twice.
	s.CursorMoved("/a", 3, 1)
	stale := clock.pending()[0]
	s.CursorMoved("/a", 4, 1)
	stale.f()
	if len(*out) != 1 {
		t.Errorf("a superseded timer sent an update")
	}
	clock.fire()
	if len(*out) != 2 || (*out)[1].params.(*ide.Context).Active().Cursor.Line != 4 {
		t.Errorf("updates %+v", *out)
	}
}

func TestDebounceStopsWithServer(t *testing.T) {
	s, clock, out := newTestServer()
	s.FileFocused("/a")
	s.Stop(t.Context())
	clock.fire()
	s.FileFocused("/b")
	clock.fire()
	if len(*out) != 0 {
		t.Errorf("sent after Stop: %+v", *out)
	}
}

func paths(c *ide.Context) string {
	var ps []string
	for _, f := range c.Files() {
		p := f.Path
		if f.IsActive {
			p += "*"
		}
		ps = append(ps, p)
	}
	return strings.Join(ps, " ")
}

func TestEditorState(t *testing.T) {
	type step func(s *Server) error
	focus := func(p string) step { return func(s *Server) error { return s.FileFocused(p) } }
	open := func(p string) step { return func(s *Server) error { return s.FileOpened(p) } }
	closeF := func(p string) step { return func(s *Server) error { return s.FileClosed(p) } }
	cursor := func(p string, l int) step { return func(s *Server) error { return s.CursorMoved(p, l, 1) } }
	tests := []struct {
		name  string
		steps []step
		want  string
	}{
		{"focus order", []step{focus("/a"), focus("/b"), focus("/c"), focus("/a")}, "/a* /c /b"},
		{"opened files go last and never first", []step{focus("/a"), open("/b"), open("/a")}, "/a* /b"},
		{"closed", []step{focus("/a"), focus("/b"), closeF("/b")}, "/a"},
		{"closing an unknown file", []step{focus("/a"), closeF("/z")}, "/a*"},
		{"cursor focuses", []step{focus("/a"), focus("/b"), cursor("/a", 3)}, "/a* /b"},
		{"ten files", []step{
			focus("/1"), focus("/2"), focus("/3"), focus("/4"), focus("/5"), focus("/6"),
			focus("/7"), focus("/8"), focus("/9"), focus("/10"), focus("/11"), open("/12"),
		}, "/11* /10 /9 /8 /7 /6 /5 /4 /3 /2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _ := newTestServer()
			for _, st := range tt.steps {
				if err := st(s); err != nil {
					t.Fatal(err)
				}
			}
			if got := paths(s.Context()); got != tt.want {
				t.Errorf("files %q, want %q", got, tt.want)
			}
			// Whatever the editor reports, the CLI sees the same order.
			if got := paths(ide.Normalize(s.Context())); got != tt.want {
				t.Errorf("normalised %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFocusClearsPreviousActiveState(t *testing.T) {
	s, _, _ := newTestServer()
	s.FileFocused("/a")
	s.CursorMoved("/a", 5, 5)
	s.SelectionChanged("/a", "x")
	s.FileFocused("/b")
	want := []ide.File{{Path: "/b", Timestamp: 1002, IsActive: true}, {Path: "/a", Timestamp: 1001}}
	if diff := cmp.Diff(want, s.Context().Files()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStateRejectsVirtualFiles(t *testing.T) {
	s, clock, _ := newTestServer()
	for _, err := range []error{
		s.FileFocused("untitled:1"),
		s.FileOpened("relative.go"),
		s.CursorMoved("", 1, 1),
		s.SelectionChanged("settings://x", "y"),
	} {
		if err != ErrVirtualFile {
			t.Errorf("err = %v", err)
		}
	}
	if len(clock.pending()) != 0 || len(s.Context().Files()) != 0 {
		t.Error("a virtual file changed the state")
	}
}

func TestSelectionCut(t *testing.T) {
	s, _, _ := newTestServer()
	s.SelectionChanged("/a", strings.Repeat("é", ide.MaxSelectedTextLen+5))
	if got := s.Context().Active().SelectedText; got != strings.Repeat("é", ide.MaxSelectedTextLen) {
		t.Errorf("selection of %d runes", len([]rune(got)))
	}
}

// FuzzReadLines: the plugin's input is cut into lines without loss: the
// lines, joined again, are the input without its line ends.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte("a\nb\r\n\nc"), 4)
	f.Add([]byte("toolong\nok\n"), 3)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max <= 0 || max > 1<<16 {
			max = 1 << 16
		}
		var got []string
		lastN := 0
		readLines(strings.NewReader(string(in)), max, func(n int, line []byte, err error) bool {
			if n != lastN+1 {
				t.Fatalf("line %d after %d", n, lastN)
			}
			lastN = n
			if err != nil {
				got = append(got, "\x00")
				return true
			}
			if len(line) > max {
				t.Fatalf("line of %d bytes past the limit %d", len(line), max)
			}
			got = append(got, string(line))
			return true
		})
		var want []string
		for _, l := range strings.SplitAfter(string(in), "\n") {
			if l == "" {
				continue
			}
			if len(l) > max {
				want = append(want, "\x00")
				continue
			}
			want = append(want, strings.TrimRight(l, "\r\n"))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("lines %q, want %q", got, want)
		}
	})
}
