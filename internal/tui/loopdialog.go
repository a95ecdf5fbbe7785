package tui

// The loop-detected dialog: when loop detection stops a prompt, Gemini
// CLI 0.61 asks whether to keep it on or turn it off for the session
// (LoopDetectionConfirmation, opened from useGeminiStream). Turning it off
// retries the stopped request at once, as 0.61 does; keeping it says the
// request was halted. Either way one line says what happened.

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// loopAsk is the open loop-detected dialog; sel is the highlighted choice.
type loopAsk struct {
	sel int
	// prompt is the stopped request, sent again if detection is turned off.
	prompt string
	// detail is the engine's word on what repeated.
	detail string
}

// 0.61's texts, word for word.
const (
	loopAskTitle   = "A potential loop was detected"
	loopAskBody    = "This can happen due to repetitive tool calls or other model behavior. Do you want to keep loop detection enabled or disable it for this session?"
	loopKeepLabel  = "Keep loop detection enabled (esc)"
	loopOffLabel   = "Disable loop detection for this session"
	loopHaltedNote = "A potential loop was detected. This can happen due to repetitive tool calls or other model behavior. The request has been halted."
	loopOffNote    = "Loop detection has been disabled for this session. Retrying request..."
)

// openLoopAsk opens the dialog once what the turn printed is on screen:
// the live area growing by the dialog's height while that output is
// inserted above it made the inline renderer lose lines of it.
func (m *model) openLoopAsk(a *loopAsk) {
	if m.printing || len(m.out) > 0 {
		m.loopPending = a // printedMsg opens it
		return
	}
	m.loopAsk = a
}

// loopKey handles a key while the dialog is open: arrows or j/k move,
// Enter or a number chooses, Esc (and Ctrl+C) keep detection on.
func (m *model) loopKey(k tea.KeyPressMsg) tea.Cmd {
	a := m.loopAsk
	switch ks := k.String(); ks {
	case "up", "k", "down", "j", "tab":
		a.sel = 1 - a.sel
	case "esc", "ctrl+c":
		return m.loopChoose(0)
	case "enter":
		return m.loopChoose(a.sel)
	case "1", "2":
		return m.loopChoose(int(ks[0] - '1'))
	}
	return nil
}

// loopChoose acts on the user's choice: 0 keeps loop detection, 1 turns
// it off for the session and sends the stopped request again.
func (m *model) loopChoose(i int) tea.Cmd {
	a := m.loopAsk
	m.loopAsk = nil
	if a.detail != "" {
		m.printNotice(noticeWarn, a.detail)
	}
	if i == 0 {
		m.printNotice(noticeInfo, loopHaltedNote)
		m.print("")
		return m.nextQueued()
	}
	if m.agent != nil {
		m.agent.Session.DisableLoopDetection()
	}
	m.printNotice(noticeInfo, loopOffNote)
	if m.agent == nil || a.prompt == "" {
		return m.nextQueued()
	}
	return m.startTurn(a.prompt)
}

// renderLoopAsk draws the dialog as 0.61 lays it out.
func (m *model) renderLoopAsk() string {
	inner := max(m.width-4, 20)
	lines := []string{m.theme.warn.Render("?") + "  " + m.theme.title.Render(loopAskTitle), ""}
	for l := range strings.SplitSeq(wrapWords(loopAskBody, inner, ""), "\n") {
		lines = append(lines, m.theme.dim.Render(l))
	}
	lines = append(lines, "",
		m.choiceLine("1. "+loopKeepLabel, m.loopAsk.sel == 0),
		m.choiceLine("2. "+loopOffLabel, m.loopAsk.sel == 1))
	return m.boxed(lines)
}
