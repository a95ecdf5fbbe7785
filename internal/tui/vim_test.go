package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestVimMode(t *testing.T) {
	m, _ := newTestModel(t)
	m.setVim(true)
	typeKeys := func(s string) {
		for _, r := range s {
			m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	esc := func() { m.Update(tea.KeyPressMsg{Code: tea.KeyEscape}) }
	steps := []struct {
		do   func()
		want string
		mode string
	}{
		{func() { typeKeys("hello world") }, "hello world", "[INSERT]"},
		{esc, "hello world", "[NORMAL]"},
		{func() { typeKeys("0x") }, "ello world", "[NORMAL]"},
		{func() { typeKeys("A!") }, "ello world!", "[INSERT]"},
		{func() { esc(); typeKeys("0wD") }, "ello ", "[NORMAL]"},
		{func() { typeKeys("dd") }, "", "[NORMAL]"},
		{func() { typeKeys("ihi") }, "hi", "[INSERT]"},
	}
	for i, s := range steps {
		s.do()
		if got := m.input.Value(); got != s.want || m.vimStatus() != s.mode {
			t.Fatalf("step %d: input %q in %s, want %q in %s", i, got, m.vimStatus(), s.want, s.mode)
		}
	}
}

// TestInputUndo: vim's u and Ctrl+Z undo a change to the input, a run of
// typing as one step; Ctrl+Shift+Z redoes; Ctrl+Z with nothing to undo
// is left to suspend.
func TestInputUndo(t *testing.T) {
	m, _ := newTestModel(t)
	typeKeys := func(s string) {
		for _, r := range s {
			m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	if m.undoKey(tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl}) {
		t.Fatal("Ctrl+Z on an untouched input was taken for undo")
	}
	typeKeys("hello world")
	m.Update(tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl})
	if got := m.input.Value(); got != "" {
		t.Fatalf("Ctrl+Z left %q, want the typing undone whole", got)
	}
	m.Update(tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl | tea.ModShift})
	if got := m.input.Value(); got != "hello world" {
		t.Fatalf("Ctrl+Shift+Z gave %q", got)
	}
	m.setVim(true)
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	typeKeys("0dw")
	if got := m.input.Value(); got != "world" {
		t.Fatalf("dw gave %q", got)
	}
	typeKeys("u")
	if got := m.input.Value(); got != "hello world" {
		t.Fatalf("u gave %q", got)
	}
	typeKeys("Aagain")
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	typeKeys("u")
	if got := m.input.Value(); got != "hello world" {
		t.Fatalf("u after an insert gave %q", got)
	}
}
