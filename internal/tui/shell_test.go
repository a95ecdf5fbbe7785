package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// A "!" command's output shows in the live area while it runs, and Esc
// stops it with a word people read, not Go's "context canceled".
func TestShellModeLiveOutput(t *testing.T) {
	m, log := newTestModel(t)
	m.workDir = t.TempDir()
	msgs := make(chan tea.Msg, 16)
	m.send = func(msg tea.Msg) { msgs <- msg }
	m.update(tea.PasteMsg{Content: "!echo first; echo second; sleep 30"})
	m.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if !m.shellRunning() {
		t.Fatal("the command is not running")
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(ansi.Strip(m.render()), "  first\n  second\n") {
		if time.Now().After(deadline) {
			t.Fatalf("no live output:\n%s", ansi.Strip(m.render()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	m.update(tea.KeyPressMsg{Code: tea.KeyEscape})
	select {
	case msg := <-msgs:
		m.update(msg)
	case <-time.After(30 * time.Second):
		t.Fatal("the command did not stop")
	}
	got := strings.Join(*log, "\n")
	if !strings.Contains(got, "first\nsecond\n(cancelled)") {
		t.Errorf("printed:\n%s", got)
	}
	if strings.Contains(ansi.Strip(m.render()), "second") {
		t.Errorf("the live output stayed:\n%s", ansi.Strip(m.render()))
	}
}
