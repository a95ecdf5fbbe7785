package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/ide"
)

// ideClient is the session's IDE connection now (nil: none), which /ide
// enable and disable change.
func (m *model) ideClient() *ide.Client {
	if m.agent == nil {
		return nil
	}
	return m.agent.IDEClient()
}

// connectIDE connects the running session to the IDE companion (/ide
// enable) off the event loop: discovery and the handshake may take
// seconds. The answer arrives as a notice, and the footer follows the
// connection from the next frame on.
func (m *model) connectIDE() tea.Cmd {
	ctx, a := m.ctx, m.agent
	return func() tea.Msg {
		c, err := a.ConnectIDE(ctx)
		if err != nil {
			return noticeMsg{kind: noticeError, text: "IDE mode: " + err.Error() + " (run `castor ide status` for details)"}
		}
		name := c.Status().IDE.DisplayName
		if name == "" {
			name = "the IDE"
		}
		return noticeMsg{kind: noticeInfo, text: "Connected to " + name + "."}
	}
}
