package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Typing over an entry recalled (Up leaves the cursor at its start) from the history, or clearing it, starts
// a new draft: Up and Down then never drop what was typed.
func TestHistoryKeepsEditedText(t *testing.T) {
	type step struct {
		key  string // "up", "down", "ctrl+c" or text to type
		want string // the editor afterwards
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"walk and back to the draft", []step{
			{"draft", "draft"}, {"up", "two"}, {"up", "one"}, {"down", "two"}, {"down", "draft"},
		}},
		{"cleared entry, then typed", []step{
			{"up", "two"}, {"ctrl+c", ""}, {"new", "new"}, {"down", "new"}, {"up", "two"}, {"down", "new"},
		}},
		{"cleared oldest entry, then typed", []step{
			{"up", "two"}, {"up", "one"}, {"ctrl+c", ""}, {"mine", "mine"}, {"up", "two"}, {"down", "mine"},
		}},
		{"edited entry", []step{
			{"up", "two"}, {"!", "!two"}, {"down", "!two"}, {"up", "two"}, {"down", "!two"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTestModel(t)
			m.hist = &inputHistory{items: []string{"one", "two"}, pos: 2}
			for i, s := range tt.steps {
				switch s.key {
				case "up":
					m.update(tea.KeyPressMsg{Code: tea.KeyUp})
				case "down":
					m.update(tea.KeyPressMsg{Code: tea.KeyDown})
				case "ctrl+c":
					m.update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
				default:
					m.update(tea.PasteMsg{Content: s.key})
				}
				if got := m.input.Value(); got != s.want {
					t.Fatalf("step %d (%s): editor %q, want %q", i, s.key, got, s.want)
				}
			}
		})
	}
}

// The editor's prompt marks the first row of the message only.
func TestEditorPromptFirstRowOnly(t *testing.T) {
	m, _ := newTestModel(t)
	m.update(tea.PasteMsg{Content: "first line\nsecond line, long enough to wrap at eighty columns, which it does right about here"})
	var lines []string
	for _, l := range strings.Split(ansi.Strip(m.input.View()), "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	got := strings.Join(lines, "\n")
	want := "> first line\n  second line, long enough to wrap at eighty columns, which it does right about\n  here"
	if !strings.HasPrefix(got, want) {
		t.Errorf("editor:\n%s\nwant\n%s", got, want)
	}
}
