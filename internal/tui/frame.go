package tui

import (
	"bytes"
	"os"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Nothing is printed above the live area before Bubble Tea has drawn its
// first frame. Its inline renderer (v2.0.10) places a print relative to
// the last frame it drew; before the first one it assumes a frame as tall
// as the screen, so a print scrolled the screen, jumped to its top row and
// wrote there, and the first frame then erased everything below: the
// shell output the user could still see above castor was wiped, leaving a
// stray row of it above the banner.

// frameWatch is the terminal as Bubble Tea's output: it reports the write
// that carries the first frame. That write is the only one that turns on
// bracketed paste (the renderer does so with the first frame it flushes),
// which is why that sequence marks it. The embedded file keeps Fd, so
// Bubble Tea still sees a terminal (size, colour profile).
type frameWatch struct {
	*os.File
	once  sync.Once
	drawn func()
}

func (w *frameWatch) Write(p []byte) (int, error) {
	n, err := w.File.Write(p)
	if w.drawn != nil && bytes.Contains(p, []byte(ansi.SetModeBracketedPaste)) {
		w.once.Do(w.drawn)
	}
	return n, err
}

// frameDrawnMsg says the first frame is on screen, so output may be
// printed above it.
type frameDrawnMsg struct{}

// frameGrace bounds the wait for the first frame should it never be
// seen, so that output is late rather than lost; it is not how the
// first frame is normally noticed.
const frameGrace = 2 * time.Second

func waitFirstFrame() tea.Cmd {
	return tea.Tick(frameGrace, func(time.Time) tea.Msg { return frameDrawnMsg{} })
}
