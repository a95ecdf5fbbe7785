package tui

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/config"
)

// Vim mode for the input (/vim, general.vimMode), as Gemini CLI's: the
// input starts in INSERT mode; Esc goes to NORMAL, where h j k l, w b e,
// 0 ^ $, gg G move, x deletes a character, dd the line, D and C the rest
// of it, and i a I A o O go back to INSERT. Enter sends in both modes.

// setVim turns vim mode on or off.
func (m *model) setVim(on bool) {
	m.vim, m.vimNormal, m.vimPending = on, false, ""
	m.boxCache.out = ""
}

// cmdVim is /vim: vim mode toggles and general.vimMode is saved in the
// user's settings.
func (m *model) cmdVim([]string) tea.Cmd {
	m.setVim(!m.vim)
	state := "off"
	if m.vim {
		state = "on (Esc for NORMAL mode, i for INSERT)"
	}
	text := "Vim mode " + state
	if m.agent != nil {
		path := m.agent.Home.SettingsPath()
		if err := config.UpdateFile(path, "general.vimMode", m.vim); err != nil {
			m.printNotice(noticeError, err.Error())
			return nil
		}
		text += "; saved in " + homeRelative(path)
	}
	m.printNotice(noticeInfo, text+".")
	return nil
}

// vimKey handles a key in vim mode; it reports whether the key was
// vim's. Keys vim leaves alone (Enter, Ctrl keys, arrows) go on as
// usual.
func (m *model) vimKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	ks := k.String()
	if !m.vimNormal {
		if ks == "esc" && !m.running && !m.comp.active() && len(m.waiting()) == 0 {
			m.vimNormal = true
			m.input.SetCursorColumn(max(m.input.Column()-1, 0))
			return nil, true
		}
		return nil, false
	}
	if k.Text == "" || ks == "enter" {
		return nil, false
	}
	send := func(code rune, mod tea.KeyMod) {
		m.input, _ = m.input.Update(tea.KeyPressMsg{Code: code, Mod: mod})
	}
	pending := m.vimPending
	m.vimPending = ""
	switch pending + k.Text {
	case "h":
		send(tea.KeyLeft, 0)
	case "l":
		send(tea.KeyRight, 0)
	case "j":
		m.input.CursorDown()
	case "k":
		m.input.CursorUp()
	case "w", "b", "e":
		m.input.SetCursorColumn(wordMotion(m.currentLine(), m.input.Column(), k.Text))
	case "0", "^":
		m.input.CursorStart()
	case "$":
		m.input.CursorEnd()
	case "gg":
		m.input.MoveToBegin()
	case "G":
		m.input.MoveToEnd()
	case "x":
		send(tea.KeyDelete, 0)
	case "dd":
		m.input.CursorStart()
		send('k', tea.ModCtrl)
		if m.input.LineCount() > 1 {
			send(tea.KeyBackspace, 0)
		}
	case "D":
		send('k', tea.ModCtrl)
	case "C":
		send('k', tea.ModCtrl)
		m.vimNormal = false
	case "i":
		m.vimNormal = false
	case "a":
		send(tea.KeyRight, 0)
		m.vimNormal = false
	case "I":
		m.input.CursorStart()
		m.vimNormal = false
	case "A":
		m.input.CursorEnd()
		m.vimNormal = false
	case "o":
		m.input.CursorEnd()
		m.input.InsertString("\n")
		m.vimNormal = false
	case "O":
		m.input.CursorStart()
		m.input.InsertString("\n")
		m.input.CursorUp()
		m.vimNormal = false
	case "d", "g":
		m.vimPending = k.Text
	}
	return nil, true
}

// vimStatus is the footer's word for the mode.
func (m *model) vimStatus() string {
	switch {
	case !m.vim:
		return ""
	case m.vimNormal:
		return "[NORMAL]"
	}
	return "[INSERT]"
}

// currentLine is the text of the input's line under the cursor.
func (m *model) currentLine() []rune {
	lines := strings.Split(m.input.Value(), "\n")
	if l := m.input.Line(); l < len(lines) {
		return []rune(lines[l])
	}
	return nil
}

// wordMotion is where w (start of the next word), b (start of this or
// the previous word) or e (end of the word) moves the cursor on a line.
func wordMotion(line []rune, col int, motion string) int {
	space := func(i int) bool { return unicode.IsSpace(line[i]) }
	n := len(line)
	switch motion {
	case "w":
		i := col
		for i < n && !space(i) {
			i++
		}
		for i < n && space(i) {
			i++
		}
		return i
	case "e":
		i := col + 1
		for i < n && space(i) {
			i++
		}
		for i+1 < n && !space(i+1) {
			i++
		}
		return min(i, max(n-1, 0))
	}
	i := min(col, n) - 1
	for i > 0 && space(i) {
		i--
	}
	for i > 0 && !space(i-1) {
		i--
	}
	return max(i, 0)
}
