package acp

import (
	"context"
	"reflect"

	sdk "github.com/coder/acp-go-sdk"
)

// announceCommands sends the session's slash commands, and from then on
// sends them again whenever they change: an MCP server's
// prompts/list_changed adds or takes away prompt commands, and an
// editor shows only what it was last sent (Gemini CLI sends
// available_commands_update on every reload of its commands).
func (ss *session) announceCommands(ctx context.Context) {
	ss.cmdMu.Lock()
	follow := !ss.following
	ss.following = true
	ss.cmdMu.Unlock()
	if follow {
		// The client knows the session by now (NewSession sends this after
		// its answer), so a change may be announced at any time.
		ss.a.OnCommandsChanged(ss.commandsChanged)
	}
	ss.sendCommands(ctx, true)
}

// commandsChanged is the setup.Agent listener: it runs on the MCP
// client's goroutine, outside any turn, so it uses the connection's
// context.
func (ss *session) commandsChanged() {
	ss.mu.Lock()
	closed := ss.closed
	ss.mu.Unlock()
	if closed {
		return
	}
	ss.sendCommands(ss.srv.base, false)
}

// sendCommands sends the current commands; unless always, only when
// they differ from those last sent.
func (ss *session) sendCommands(ctx context.Context, always bool) {
	ss.cmdMu.Lock()
	defer ss.cmdMu.Unlock()
	cmds := availableCommands(ss.a.Commands)
	if !always && reflect.DeepEqual(cmds, ss.sent) {
		return
	}
	ss.sent = cmds
	ss.send(ctx, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
}
