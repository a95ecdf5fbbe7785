package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/mcp"
)

// The session is ready before its MCP servers are: they connect in the
// background (setup.Options.MCPInBackground), as in Gemini CLI 0.61. The
// live area says which servers it waits for, slash commands and shell
// commands run, and prompts are held until every server has connected or
// failed, so the model never sees a tool list that lacks a server merely
// slow to start. A server that hangs holds them only for its timeout.

// mcpReadyMsg says the MCP servers' start is over.
type mcpReadyMsg struct{}

// mcpWaitNotice is what Gemini CLI says when it holds a prompt for MCP
// servers.
const mcpWaitNotice = "Waiting for MCP servers to initialize... Slash commands are still available and prompts will be queued."

// watchMCP starts waiting for the session's MCP servers when they are
// still connecting, and returns the spinner's first tick then.
func (m *model) watchMCP() tea.Cmd {
	if m.agent == nil || m.agent.MCP == nil {
		return nil
	}
	ready := m.agent.MCPReady()
	select {
	case <-ready:
		return nil
	default:
	}
	m.mcpWaiting = true
	send := m.send
	go func() {
		<-ready
		send(mcpReadyMsg{})
	}()
	return m.spin.Tick
}

// onMCPReady sends what was held for the servers.
func (m *model) onMCPReady() tea.Cmd {
	m.mcpWaiting = false
	return m.nextQueued()
}

// mcpStatusLine is the live area's status row while servers connect,
// in Gemini CLI's words: how many of the servers are in, and which are
// still awaited.
func (m *model) mcpStatusLine() string {
	connected, total := 0, 0
	var waiting []string
	for _, s := range m.agent.MCP.Statuses() {
		switch s.Status {
		case mcp.StatusBlocked, mcp.StatusDisabled:
			continue // never started
		case mcp.StatusConnected:
			connected++
		case mcp.StatusConnecting, mcp.StatusDisconnected:
			waiting = append(waiting, s.Name)
		}
		total++
	}
	text := fmt.Sprintf("Connecting to MCP servers... (%d/%d)", connected, total)
	if len(waiting) > 0 {
		const shown = 3
		names := strings.Join(waiting[:min(len(waiting), shown)], ", ")
		if n := len(waiting) - shown; n > 0 {
			names += fmt.Sprintf(", +%d more", n)
		}
		text += " - Waiting for: " + names
	}
	frame := m.spin.View()
	if m.screenReader {
		frame = "…"
	}
	line := frame + " " + m.theme.accent.Render(text)
	if n := len(m.queued); n > 0 {
		line += m.theme.dim.Render(fmt.Sprintf(" · %d queued", n))
	}
	return ansi.Truncate(line, m.width, "…")
}
