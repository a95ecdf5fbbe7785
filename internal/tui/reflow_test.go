package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestNoteResize: the screen is drawn again only when the terminal
// narrows while the live area animates.
func TestNoteResize(t *testing.T) {
	tests := []struct {
		name    string
		running bool
		width   int
		want    bool
	}{
		{"narrower while streaming", true, 60, true},
		{"narrower while idle", false, 60, false},
		{"wider while streaming", true, 120, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTestModel(t)
			m.Update(tea.WindowSizeMsg{Width: 80, Height: 24}) // the first size
			m.running = tt.running
			cleared := false
			m.rawOut = func(string) { cleared = true }
			m.Update(tea.WindowSizeMsg{Width: tt.width, Height: 24})
			if got := cleared; got != tt.want {
				t.Errorf("screen cleared = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRedrawLines: the lines drawn again are the last ones that filled
// the rows above the live area, and no more than the narrowed screen
// still shows.
func TestRedrawLines(t *testing.T) {
	shown := []string{"banner", "> prompt", "", strings.Repeat("x", 70), "last"}
	tests := []struct {
		name string
		r    redraw
		want int // lines from the end
	}{
		{"all fit", redraw{oldWidth: 80, oldRows: 20, newWidth: 40, newRows: 20}, 5},
		{"two rows were on the screen", redraw{oldWidth: 80, oldRows: 2, newWidth: 40, newRows: 20}, 2},
		{"the narrow screen keeps three rows", redraw{oldWidth: 80, oldRows: 20, newWidth: 40, newRows: 3}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redrawLines(shown, tt.r); len(got) != tt.want {
				t.Errorf("redrawLines = %q, want the last %d", got, tt.want)
			}
		})
	}
}

// TestRedrawReprints: the flush after a narrowing prints the lines that
// were on the screen again, before what waited to be printed.
func TestRedrawReprints(t *testing.T) {
	m, _ := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.print("earlier line")
	m.flushOut()
	m.Update(printedMsg{})
	m.running = true
	var cleared []string
	m.rawOut = func(s string) { cleared = append(cleared, s) }
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 24})
	if len(cleared) != 1 || cleared[0] != clearToEnd {
		t.Errorf("screen cleared with %q", cleared)
	}
	if m.redraw != nil || !m.printing {
		t.Errorf("redraw %v, printing %v after the flush", m.redraw, m.printing)
	}
}

// TestClearForgetsShown: after /clear, a later redraw prints nothing of
// what was cleared.
func TestClearForgetsShown(t *testing.T) {
	m, _ := newTestModel(t)
	withSession(t, m)
	m.print("secret from before the clear")
	m.cmdClear(nil)
	if len(m.shown) != 0 {
		t.Errorf("kept after /clear: %q", m.shown)
	}
}
