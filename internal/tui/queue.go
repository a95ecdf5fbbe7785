package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/internal/termtext"
)

// joinQueued is the one prompt the held prompts become, in the order they
// were typed: each trimmed, the empty ones dropped, separated by a blank
// line, as Gemini CLI's useMessageQueue joins its queue.
func joinQueued(queued []string) string {
	kept := make([]string, 0, len(queued))
	for _, q := range queued {
		if q = strings.TrimSpace(q); q != "" {
			kept = append(kept, q)
		}
	}
	return strings.Join(kept, "\n\n")
}

// maxQueuedShown is how many waiting prompts the live area lists, as
// Gemini CLI's QueuedMessageDisplay.
const maxQueuedShown = 3

// waiting are the queued prompts not printed yet.
func (m *model) waiting() []string { return m.queued[min(m.queuedShown, len(m.queued)):] }

// renderQueued lists the prompts typed during a turn below the live
// area, one row each, until their turn starts.
func (m *model) renderQueued() string {
	w := m.waiting()
	if len(w) == 0 {
		return ""
	}
	rows := []string{m.theme.dim.Render("  Queued (↑ to edit, esc to remove the last):")}
	for _, q := range w[:min(len(w), maxQueuedShown)] {
		preview := strings.Join(strings.Fields(termtext.String(q)), " ")
		rows = append(rows, m.theme.dim.Render(ansi.Truncate("    "+preview, m.width-1, "…")))
	}
	if len(w) > maxQueuedShown {
		rows = append(rows, m.theme.dim.Render(fmt.Sprintf("    … (+%d more)", len(w)-maxQueuedShown)))
	}
	return strings.Join(rows, "\n")
}

// printQueued prints the first n queued prompts not printed yet, as
// their turn starts: each after the answer it followed.
func (m *model) printQueued(n int) {
	for i := m.queuedShown; i < n; i++ {
		m.separate()
		m.print(m.userBlock(m.queued[i]))
	}
	m.queuedShown = max(m.queuedShown-n, 0)
}

// dropLastQueued is Esc with prompts waiting: the last one goes, said
// in one line; it reports false when none waits.
func (m *model) dropLastQueued() bool {
	if len(m.waiting()) == 0 {
		return false
	}
	m.queued = m.queued[:len(m.queued)-1]
	return true
}

// editQueued is Up on an empty input with prompts waiting: they come
// back into the input, joined, to be edited and sent again, as Gemini
// CLI's queue does.
func (m *model) editQueued() bool {
	w := m.waiting()
	if len(w) == 0 || m.input.Value() != "" {
		return false
	}
	text := joinQueued(w)
	m.queued = m.queued[:m.queuedShown]
	m.setInput(text)
	return true
}

// doubleTabWindow is how soon a second Tab must follow the first to
// toggle the minimal screen, as Gemini CLI's 350 ms.
const doubleTabWindow = 350 * time.Millisecond

// plainTab is Tab with no completion open, as Gemini CLI 0.61 has it:
// during a turn it queues what is typed (slash and shell commands
// cannot be); otherwise a second Tab in quick succession toggles the
// minimal screen (the footer hidden).
func (m *model) plainTab() tea.Cmd {
	text := m.inputText()
	if m.running && strings.TrimSpace(text) != "" {
		if strings.HasPrefix(strings.TrimSpace(text), "/") || m.shellMode {
			kind := "Slash"
			if m.shellMode {
				kind = "Shell"
			}
			m.printNotice(noticeWarn, kind+" commands cannot be queued")
			return nil
		}
		m.resetInput()
		m.undo = inputUndo{}
		if m.hist != nil {
			m.hist.add(text)
		}
		return m.submit(text, false)
	}
	now := m.now()
	if !m.lastTab.IsZero() && now.Sub(m.lastTab) <= doubleTabWindow {
		m.lastTab = time.Time{}
		m.minimal = !m.minimal
		return nil
	}
	m.lastTab = now
	return nil
}
