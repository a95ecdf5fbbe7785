package tui

import tea "charm.land/bubbletea/v2"

// The input's undo and redo, as Gemini CLI 0.61's text buffer has them:
// Ctrl+Z (Alt+Z) undoes the last change to the input, and only when there
// is one: on an input with nothing to undo Ctrl+Z suspends Castor, as
// there; Ctrl+Shift+Z (Alt+Shift+Z) redoes. A run of typed characters is
// one step, as is what vim's INSERT mode types between entering and Esc.

// maxUndo bounds the steps kept.
const maxUndo = 100

// inputState is the input's text and cursor (an offset in runes).
type inputState struct {
	value string
	pos   int
}

// inputUndo is the input's history of changes.
type inputUndo struct {
	undo, redo []inputState
	// typing is set while characters are being typed: the next ones join
	// the step already pushed.
	typing bool
}

// push records the state before a change; a typed character after
// another (coalesce) adds no step.
func (u *inputUndo) push(s inputState, coalesce bool) {
	if coalesce && u.typing {
		return
	}
	u.typing = coalesce
	if n := len(u.undo); n > 0 && u.undo[n-1].value == s.value {
		return
	}
	u.undo = append(u.undo, s)
	if len(u.undo) > maxUndo {
		u.undo = u.undo[len(u.undo)-maxUndo:]
	}
	u.redo = u.redo[:0]
}

// inputState reads the input.
func (m *model) inputState() inputState {
	b := vimBuf{r: []rune(m.input.Value())}
	return inputState{value: m.input.Value(), pos: min(b.lineAt(m.input.Line())+m.input.Column(), len(b.r))}
}

// setInputState puts text and cursor in the input.
func (m *model) setInputState(s inputState) {
	if m.input.Value() != s.value {
		m.input.SetValue(s.value)
	}
	b := vimBuf{r: []rune(s.value)}
	row, col := b.rowCol(min(s.pos, len(b.r)))
	m.input.MoveToBegin()
	for i := 0; m.input.Line() < row && i < len(b.r)+1; i++ {
		m.input.CursorDown()
	}
	m.input.SetCursorColumn(col)
	// The editor scrolls to its cursor only in Update: a text taller than
	// it was shown from the top, the cursor out of sight.
	m.input, _ = m.input.Update(nil)
}

// undoInput goes back one step; false when there is none.
func (m *model) undoInput() bool { return m.stepInput(&m.undo.undo, &m.undo.redo) }

// redoInput goes forward one step; false when there is none.
func (m *model) redoInput() bool { return m.stepInput(&m.undo.redo, &m.undo.undo) }

// stepInput takes the input back to the last state of from, keeping the
// present one in to.
func (m *model) stepInput(from, to *[]inputState) bool {
	if len(*from) == 0 {
		return false
	}
	cur := m.inputState()
	s := (*from)[len(*from)-1]
	*from = (*from)[:len(*from)-1]
	*to = append(*to, cur)
	m.undo.typing = false
	m.setInputState(s)
	return true
}

// undoKey handles Ctrl+Z, Alt+Z, Ctrl+Shift+Z and Alt+Shift+Z on the
// input; it reports whether the key was used (Ctrl+Z with nothing to undo
// goes on to suspend).
func (m *model) undoKey(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "ctrl+z", "alt+z":
		return m.undoInput()
	case "ctrl+shift+z", "alt+shift+z", "alt+Z":
		m.redoInput()
		return true
	}
	return false
}
