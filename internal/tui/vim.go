package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/config"
)

// Vim mode for the input (/vim, general.vimMode), as Gemini CLI's: the
// input starts in INSERT mode; Esc goes to NORMAL, whose keys are
// vimedit.go's. Enter sends in both modes.

// setVim turns vim mode on or off.
func (m *model) setVim(on bool) {
	m.vim, m.vimNormal = on, false
	m.vimSt.reset()
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
// usual. NORMAL mode's keys are vimedit.go's.
func (m *model) vimKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	ks := k.String()
	if !m.vimNormal {
		if ks == "esc" && !m.running && !m.comp.active() && len(m.waiting()) == 0 {
			m.vimNormal = true
			m.vimSt.reset()
			m.input.SetCursorColumn(max(m.input.Column()-1, 0))
			return nil, true
		}
		return nil, false
	}
	if k.Text == "" || ks == "enter" {
		if ks == "esc" && (m.vimSt.op != "" || m.vimSt.pending != "" || m.vimSt.count != "") {
			m.vimSt.reset() // Esc drops a command half typed
			return nil, true
		}
		return nil, false
	}
	before := m.inputState()
	b := vimBuf{r: []rune(m.input.Value())}
	b.pos = b.lineAt(m.input.Line()) + m.input.Column()
	b.pos = min(b.pos, len(b.r))
	res := m.vimSt.key(&b, k.Text)
	switch {
	case res.undo:
		m.undoInput()
		return nil, true
	case res.changed:
		m.undo.push(before, false)
	}
	if res.insert && !res.changed {
		// What INSERT mode types is one undo step from here.
		m.undo.push(before, false)
	}
	m.setInputState(inputState{value: string(b.r), pos: b.pos})
	if res.insert {
		m.vimNormal = false
		m.undo.typing = true
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
