package tui

// /rewind in the terminal: a picker of the session's earlier prompts,
// newest first, as Gemini CLI 0.61's rewind viewer. Enter goes back to
// just before the chosen prompt, the files too where checkpoints were
// taken, and puts the prompt back in the editor; "/rewind N" goes back
// without the picker.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/termtext"
)

// rewindPicker is the open picker.
type rewindPicker struct {
	prompts []agent.Prompt // oldest first
	sel     int            // index into prompts
}

// cmdRewind is /rewind.
func (m *model) cmdRewind(args []string) tea.Cmd {
	if m.running {
		m.printNotice(noticeWarn, "Cannot rewind while a request is running.")
		return nil
	}
	prompts := m.agent.Prompts()
	if len(prompts) == 0 {
		m.printNotice(noticeInfo, "Nothing to rewind to.")
		return nil
	}
	if len(args) > 0 {
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 1 || n > len(prompts) {
			m.printNotice(noticeError, fmt.Sprintf("No prompt %s: give a number from 1 to %d.", args[0], len(prompts)))
			return nil
		}
		return m.rewindTo(prompts[n-1])
	}
	m.rewind = &rewindPicker{prompts: prompts, sel: len(prompts) - 1}
	return nil
}

func (m *model) rewindKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.rewind
	switch k.String() {
	case "up", "k":
		p.sel = max(p.sel-1, 0)
	case "down", "j":
		p.sel = min(p.sel+1, len(p.prompts)-1)
	case "esc", "ctrl+c":
		m.rewind = nil
	case "enter":
		m.rewind = nil
		return m.rewindTo(p.prompts[p.sel])
	}
	return nil
}

// rewindTo rewinds to just before prompt and gives its text back to the
// editor.
func (m *model) rewindTo(prompt agent.Prompt) tea.Cmd {
	r, err := m.agent.Rewind(context.WithoutCancel(m.ctx), prompt.ID, true)
	switch {
	case errors.Is(err, agent.ErrBusy):
		m.printNotice(noticeWarn, "Cannot rewind while a request is running.")
		return nil
	case err != nil:
		m.printNotice(noticeError, "Rewind failed: "+err.Error())
		return nil
	}
	msg := "Rewound the conversation to before: " + oneLine(r.Prompt.Text)
	if r.Checkpoint != "" {
		msg += " File changes reverted."
	}
	m.printNotice(noticeInfo, msg)
	m.setInput(r.Prompt.Text)
	return nil
}

// renderRewind draws the picker, the prompts that fit, newest last.
func (m *model) renderRewind() string {
	p := m.rewind
	lines := []string{m.theme.title.Render("Rewind to before which prompt?")}
	rows := max(m.height-6, 3)
	start := max(0, min(p.sel-rows/2, len(p.prompts)-rows))
	for i := start; i < len(p.prompts) && i < start+rows; i++ {
		label := fmt.Sprintf("%d. %s", i+1, termtext.Visible(oneLine(p.prompts[i].Text)))
		lines = append(lines, m.choiceLine(label, i == p.sel))
	}
	lines = append(lines, m.theme.dim.Render("Enter rewinds (files too, where checkpoints exist); Esc closes."))
	return m.boxed(lines)
}

// oneLine is a prompt on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
