package tui

import (
	"strings"
	"testing"
	"time"

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

// TestTabQueuesAndTabTab: Tab during a turn queues what is typed (not a
// slash command); Tab Tab within 350 ms toggles the minimal screen, two
// Tabs further apart do not.
func TestTabQueuesAndTabTab(t *testing.T) {
	m, _ := newTestModel(t)
	withSession(t, m)
	now := time.Unix(1000, 0)
	m.now = func() time.Time { return now }
	tab := func() { m.Update(tea.KeyPressMsg{Code: tea.KeyTab}) }
	typeKeys := func(s string) {
		for _, r := range s {
			m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	m.running = true
	typeKeys("next question")
	tab()
	if len(m.queued) != 1 || m.queued[0] != "next question" || m.input.Value() != "" {
		t.Fatalf("Tab during a turn: queue %q, input %q", m.queued, m.input.Value())
	}
	typeKeys("/stats")
	tab()
	if len(m.queued) != 1 || m.input.Value() != "/stats" {
		t.Fatalf("a slash command was queued: %q", m.queued)
	}
	m.resetInput()
	m.running = false
	footer := m.footer()
	tab()
	now = now.Add(500 * time.Millisecond)
	tab()
	if m.minimal {
		t.Fatal("two Tabs 500 ms apart toggled the minimal screen")
	}
	now = now.Add(100 * time.Millisecond)
	tab()
	if !m.minimal || strings.Contains(m.render(), footer) {
		t.Fatalf("Tab Tab did not hide the footer:\n%s", m.render())
	}
}
