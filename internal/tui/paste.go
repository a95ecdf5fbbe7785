package tui

import (
	"fmt"
	"strings"
)

// A large paste is shown in the editor as one placeholder and put back
// when the message is sent. The editor (bubbles' textarea) lays out every
// line again on each key: with a 2,000-line paste in it a keystroke took
// a third of a second to reach the screen.
const (
	collapseLines = 10
	collapseBytes = 4 << 10
)

// pastes are the collapsed pastes of the message being written, by
// placeholder.
type pastes struct {
	n    int
	text map[string]string
}

func isLargePaste(s string) bool {
	return strings.Count(s, "\n") >= collapseLines || len(s) > collapseBytes
}

// pasteInput puts pasted text in the editor, collapsed when large.
func (m *model) pasteInput(s string) bool {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	if !isLargePaste(s) {
		return false
	}
	m.pastes.n++
	lines := strings.Count(strings.TrimRight(s, "\n"), "\n") + 1
	ph := fmt.Sprintf("[Pasted text #%d: %d lines]", m.pastes.n, lines)
	if m.pastes.text == nil {
		m.pastes.text = map[string]string{}
	}
	m.pastes.text[ph] = s
	m.input.InsertString(ph)
	return true
}

// inputText is the editor's text with the pastes put back.
func (m *model) inputText() string {
	v := m.input.Value()
	for ph, s := range m.pastes.text {
		v = strings.ReplaceAll(v, ph, s)
	}
	return v
}

// setInput replaces the editor's text (a recalled history entry, a note
// given back), collapsing it when large.
func (m *model) setInput(v string) {
	m.resetInput()
	if !m.pasteInput(v) {
		m.input.SetValue(v)
	}
}

func (m *model) resetInput() {
	m.input.Reset()
	m.pastes = pastes{}
}

// shownPrompt is a sent message as the scrollback shows it: a long one
// is cut after its first lines, the model getting all of it.
func shownPrompt(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) <= collapseLines {
		return text
	}
	return strings.Join(lines[:collapseLines/2], "\n") + fmt.Sprintf("\n… %d more lines", len(lines)-collapseLines/2)
}
