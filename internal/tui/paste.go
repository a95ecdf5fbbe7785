package tui

import (
	"fmt"
	"slices"
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
	// expanded are the placeholders Ctrl+O replaced with their text in
	// the editor; Ctrl+O with the cursor in that text folds it again.
	expanded map[string]bool
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

// togglePaste is Ctrl+O on a paste, as Gemini CLI 0.61's: with the cursor
// on (or just after) a placeholder, the paste's text replaces it in the
// editor; with the cursor in a paste so expanded, the placeholder comes
// back. False when the cursor is on neither, for Ctrl+O's other use.
func (m *model) togglePaste() bool {
	if len(m.pastes.text) == 0 {
		return false
	}
	st := m.inputState()
	v := []rune(st.value)
	for ph, text := range m.pastes.text {
		if m.pastes.expanded[ph] {
			continue
		}
		if at, ok := runeSpanAt(v, []rune(ph), st.pos); ok {
			m.undo.push(st, false)
			tr := []rune(text)
			nv := string(v[:at]) + text + string(v[at+len([]rune(ph)):])
			m.setInputState(inputState{value: nv, pos: at + len(tr)})
			if m.pastes.expanded == nil {
				m.pastes.expanded = map[string]bool{}
			}
			m.pastes.expanded[ph] = true
			return true
		}
	}
	for ph := range m.pastes.expanded {
		text := []rune(m.pastes.text[ph])
		if at, ok := runeSpanAt(v, text, st.pos); ok {
			m.undo.push(st, false)
			phr := []rune(ph)
			nv := string(v[:at]) + ph + string(v[at+len(text):])
			m.setInputState(inputState{value: nv, pos: at + len(phr)})
			delete(m.pastes.expanded, ph)
			return true
		}
	}
	return false
}

// runeSpanAt finds an occurrence of sub in v that holds the offset pos
// (its end included) and returns where it starts.
func runeSpanAt(v, sub []rune, pos int) (int, bool) {
	if len(sub) == 0 {
		return 0, false
	}
	for i := max(pos-len(sub), 0); i <= pos && i+len(sub) <= len(v); i++ {
		if slices.Equal(v[i:i+len(sub)], sub) {
			return i, true
		}
	}
	return 0, false
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
