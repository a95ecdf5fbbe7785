package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestKeyBytes(t *testing.T) {
	tests := []struct {
		key  tea.Key
		want string
	}{
		{tea.Key{Code: 'a', Text: "a"}, "a"},
		{tea.Key{Code: 'A', Text: "A"}, "A"},
		{tea.Key{Code: tea.KeyEnter}, "\r"},
		{tea.Key{Code: tea.KeyBackspace}, "\x7f"},
		{tea.Key{Code: 'c', Mod: tea.ModCtrl}, "\x03"},
		{tea.Key{Code: 'd', Mod: tea.ModCtrl}, "\x04"},
		{tea.Key{Code: 'b', Mod: tea.ModAlt}, "\x1bb"},
		{tea.Key{Code: tea.KeyUp}, "\x1b[A"},
		{tea.Key{Code: tea.KeySpace, Text: " "}, " "},
		{tea.Key{Code: 'é', Text: "é"}, "é"},
	}
	for _, tt := range tests {
		if got := string(keyBytes(tea.KeyPressMsg(tt.key))); got != tt.want {
			t.Errorf("keyBytes(%v) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestTerminalText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\n", "plain\n"},
		{"name? castor\r\ngot castor\r\n", "name? castor\ngot castor\n"},
		{"10%\r50%\r100%\r\ndone\r\n", "100%\ndone\n"},
	}
	for _, tt := range tests {
		if got := terminalText(tt.in); got != tt.want {
			t.Errorf("terminalText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
