package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// When the terminal narrows while the live area animates (an answer
// streaming, a spinner), Bubble Tea draws frames at the old width into
// the narrowed terminal before it learns the new size; they wrap into
// more rows than the renderer counts, its next frame starts below rows it
// no longer knows about, and the old live area stays on the screen: two
// input boxes, the answer's tail twice. Nothing in the terminal says
// where those rows are, so after such a narrowing Castor does what Gemini
// CLI does on a resize: it clears the screen and draws it again, printing
// anew, at the new width, the output that was on it. What the terminal
// had already pushed into its scrollback stays there, so a few lines may
// be there twice. An idle live area is redrawn right by Bubble Tea, and
// widening reflows nothing that matters: both are left alone.

// shownKeep bounds the printed lines kept to draw the screen again.
const shownKeep = 500

// clearToEnd erases the screen and leaves the cursor at the top left,
// without pushing what was on the screen into the scrollback, which would
// keep the stale rows there next to their redrawn copy: erasing the whole
// display does (tmux's scroll-on-clear, several terminals), and tmux
// treats erasing below the top left corner as the same clear. So the
// second row down is erased below, then the first row.
const clearToEnd = "\x1b[2;1H\x1b[J\x1b[H\x1b[2K"

// remember keeps a printed line for redrawScreen.
func (m *model) remember(s string) {
	m.shown = append(m.shown, s)
	if len(m.shown) > 2*shownKeep {
		m.shown = append([]string(nil), m.shown[len(m.shown)-shownKeep:]...)
	}
}

// noteResize is called before a new size is applied: narrower, the
// screen is drawn again at the next flush, with the printed lines that
// were on it and are still (the terminal pushed the top rows into its
// scrollback when the reflowed rows outgrew the screen; those stay there).
func (m *model) noteResize(width, height int) {
	if !m.sizeSeen {
		m.sizeSeen = true
		return
	}
	if width >= m.width || m.quitting {
		return
	}
	if !m.running && !m.shellRunning() && !m.mcpWaiting {
		// Nothing animates the live area: no frame was drawn at the old
		// width into the narrowed terminal, and Bubble Tea's own redraw
		// replaces the old live area (TestTUIResize).
		return
	}
	frame := m.render()
	r := &redraw{
		oldWidth: m.width,
		oldRows:  m.height - strings.Count(frame, "\n") - 1,
		newWidth: width,
		newRows:  height - rowsAt(frame, width),
	}
	if m.redraw != nil {
		// Narrowed again before the screen was drawn again: what was on
		// the screen then is what counts.
		r.oldWidth, r.oldRows = m.redraw.oldWidth, m.redraw.oldRows
		r.newRows = min(r.newRows, m.redraw.newRows)
	}
	m.redraw = r
}

// redraw is a screen to draw again: the printed output filled oldRows
// rows at oldWidth columns above the live area, and at most newRows rows
// of it are still on the screen, reflowed to newWidth columns.
type redraw struct {
	oldWidth, oldRows int
	newWidth, newRows int
}

// rowsAt is how many rows text takes on a screen width columns wide.
func rowsAt(text string, width int) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		n += max(1, (ansi.StringWidth(l)+width-1)/max(width, 1))
	}
	return n
}

// redrawLines are the last lines of shown that were on the screen before
// and are still, as r says.
func redrawLines(shown []string, r redraw) []string {
	before, after := 0, 0
	i := len(shown)
	for i > 0 && before < r.oldRows && after < r.newRows {
		i--
		text := wrapLines(shown[i], max(r.oldWidth-1, 10))
		before += strings.Count(text, "\n") + 1
		after += rowsAt(text, r.newWidth)
	}
	return shown[i:]
}

// redrawCmds starts a redraw of the screen: the lines that were on it go
// back in front of the output waiting to be printed, and the commands
// that clear the screen come first.
func (m *model) redrawCmds() []tea.Cmd {
	r := m.redraw
	m.redraw = nil
	printed := m.shown[:max(len(m.shown)-len(m.out), 0)]
	again := redrawLines(printed, *r)
	m.out = append(append([]string(nil), again...), m.out...)
	// The clear is written at once, not as a command: Bubble Tea writes
	// commands' raw output after the lines printed above the live area,
	// and the reprinted lines would be cleared with the stale ones. Then
	// ClearScreen has the renderer draw the live area again from the top
	// of the screen, where its cursor now is, and the lines are printed
	// above it.
	if m.rawOut != nil {
		m.rawOut(clearToEnd)
	}
	return []tea.Cmd{tea.ClearScreen}
}
