package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestQueueDuringTurn: prompts typed during a turn are not printed but
// listed in the live area; Esc drops the last, Up brings the rest back
// into the input.
func TestQueueDuringTurn(t *testing.T) {
	m, log := newTestModel(t)
	withSession(t, m)
	m.running = true
	m.submit("first waiting", false)
	m.submit("second waiting", false)
	if strings.Contains(printed(log), "waiting") {
		t.Fatalf("a queued prompt was printed during the turn:\n%s", printed(log))
	}
	view := m.render()
	if !strings.Contains(view, "Queued") || !strings.Contains(view, "    first waiting") || !strings.Contains(view, "    second waiting") {
		t.Fatalf("the live area does not list the queue:\n%s", view)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if len(m.queued) != 1 || !m.running {
		t.Fatalf("Esc: queue %q, running %v; want the last prompt dropped and the turn going on", m.queued, m.running)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyUp})
	if got := m.input.Value(); got != "first waiting" || len(m.queued) != 0 {
		t.Errorf("Up: input %q, queue %q", got, m.queued)
	}
}
