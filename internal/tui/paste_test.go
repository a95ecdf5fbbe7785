package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func bigText(lines int) string {
	var b strings.Builder
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "pasted line %d with some text\n", i)
	}
	return b.String()
}

// A large paste shows as a placeholder in the editor; the message sent
// holds all of it, and the scrollback its first lines.
func TestLargePasteCollapsed(t *testing.T) {
	tests := []struct {
		name, paste string
		collapsed   bool
	}{
		{"a few lines", "one\ntwo\nthree\n", false},
		{"many lines", bigText(2000), true},
		{"one huge line", strings.Repeat("x", 10<<10), true},
		{"windows line ends", strings.ReplaceAll(bigText(20), "\n", "\r\n"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, log := newTestModel(t)
			m.update(tea.PasteMsg{Content: "Look: "})
			m.update(tea.PasteMsg{Content: tt.paste})
			m.update(tea.PasteMsg{Content: " Thanks."})
			editor := m.input.Value()
			if got := strings.HasPrefix(editor, "Look: [Pasted text #1: "); got != tt.collapsed {
				t.Errorf("editor holds %.80q…, collapsed %v", editor, tt.collapsed)
			}
			m.update(tea.KeyPressMsg{Code: tea.KeyEnter})
			// No session yet: the message waits in the queue as sent.
			want := "Look: " + strings.ReplaceAll(tt.paste, "\r\n", "\n") + " Thanks."
			if len(m.queued) != 1 || m.queued[0] != want {
				t.Fatalf("sent %.200q", m.queued)
			}
			if printed := ansi.Strip(strings.Join(*log, "\n")); tt.collapsed && strings.Count(printed, "\n") > 20 {
				t.Errorf("the scrollback got the whole paste:\n%.500s", printed)
			}
			if m.input.Value() != "" || m.pastes.text != nil {
				t.Errorf("editor after sending: %q, %d pastes", m.input.Value(), len(m.pastes.text))
			}
		})
	}
}

// A large entry recalled from the history comes back collapsed, and
// whole when sent.
func TestLargeHistoryEntryCollapsed(t *testing.T) {
	m, _ := newTestModel(t)
	big := bigText(500)
	m.hist = &inputHistory{items: []string{big}, pos: 1}
	m.update(tea.KeyPressMsg{Code: tea.KeyUp})
	if v := m.input.Value(); v != "[Pasted text #1: 500 lines]" {
		t.Fatalf("editor %.80q", v)
	}
	m.update(tea.KeyPressMsg{Code: tea.KeyDown})
	m.update(tea.KeyPressMsg{Code: tea.KeyUp})
	m.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if len(m.queued) != 1 || m.queued[0] != big {
		t.Errorf("sent %.80q", m.queued)
	}
}

// BenchmarkKeystrokeAfterLargePaste is a key typed after a 2,000-line
// paste: it must cost what a key in a short message does.
func BenchmarkKeystrokeAfterLargePaste(b *testing.B) {
	m, _ := newTestModel(b)
	m.printLog = nil
	m.update(tea.PasteMsg{Content: bigText(2000)})
	key := tea.KeyPressMsg{Code: 'a', Text: "a"}
	for b.Loop() {
		m.Update(key)
		_ = m.View()
	}
}

// A pasted message's trailing newlines are not echoed as blank rows.
func TestSentTrailingNewlinesNotEchoed(t *testing.T) {
	m, log := newTestModel(t)
	m.update(tea.PasteMsg{Content: "first line\nsecond line\n"})
	m.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	got := ansi.Strip(strings.Join(*log, "\n"))
	if !strings.Contains(got, "> first line\n  second line\n") || strings.Contains(got, "second line\n  \n") {
		t.Errorf("echo:\n%q", got)
	}
	if len(m.queued) != 1 || m.queued[0] != "first line\nsecond line\n" {
		t.Errorf("sent %q", m.queued)
	}
}

// Ctrl+O on a placeholder puts the paste's text in the editor, and
// Ctrl+O in that text folds it again; elsewhere it is Ctrl+O's other
// use, and the message sent is whole either way.
func TestCtrlOTogglesPaste(t *testing.T) {
	ctrlO := tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	paste := bigText(12)
	tests := []struct {
		name     string
		keys     []tea.KeyPressMsg // after "Look: <paste> Thanks." with the cursor at the end
		expanded bool
	}{
		{"cursor elsewhere", []tea.KeyPressMsg{ctrlO}, false},
		{"cursor after the placeholder", []tea.KeyPressMsg{{Code: tea.KeyLeft}, {Code: tea.KeyLeft}, {Code: tea.KeyLeft}, {Code: tea.KeyLeft}, {Code: tea.KeyLeft}, {Code: tea.KeyLeft}, {Code: tea.KeyLeft}, {Code: tea.KeyLeft}, ctrlO}, true},
		{"expanded then folded", []tea.KeyPressMsg{{Code: tea.KeyLeft}, {Code: tea.KeyLeft}, {Code: tea.KeyLeft}, {Code: tea.KeyLeft}, {Code: tea.KeyLeft}, {Code: tea.KeyLeft}, {Code: tea.KeyLeft}, {Code: tea.KeyLeft}, ctrlO, ctrlO}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, log := newTestModel(t)
			m.update(tea.PasteMsg{Content: "Look: "})
			m.update(tea.PasteMsg{Content: paste})
			m.update(tea.PasteMsg{Content: " Thanks."})
			for _, k := range tt.keys {
				m.update(k)
			}
			editor := m.input.Value()
			if got := strings.Contains(editor, "pasted line 7"); got != tt.expanded {
				t.Errorf("editor holds %q; expanded %v, want %v", editor, got, tt.expanded)
			}
			if !tt.expanded && !strings.Contains(editor, "[Pasted text #1: 12 lines]") {
				t.Errorf("the placeholder is gone: %q", editor)
			}
			if tt.name == "cursor elsewhere" && !strings.Contains(printed(log), "No tool output") {
				t.Errorf("Ctrl+O off a paste did not go on to the tool output: %q", printed(log))
			}
			m.update(tea.KeyPressMsg{Code: tea.KeyEnter})
			if want := "Look: " + paste + " Thanks."; len(m.queued) != 1 || m.queued[0] != want {
				t.Errorf("sent %.200q", m.queued)
			}
		})
	}
}
