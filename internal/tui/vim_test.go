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
