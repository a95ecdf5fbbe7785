package setup

// OnCommandsChanged makes f run each time the session's slash commands
// change under it: an MCP server's prompts/list_changed (or a reconnect)
// that adds, removes or redescribes a prompt command. Faces that show
// the list once (ACP's available_commands_update) send it again from f.
// f runs on the MCP client's goroutine after the registry is updated, so
// a.Commands already holds the new set; it must not block for long. A
// session without MCP servers never calls f.
func (a *Agent) OnCommandsChanged(f func()) {
	if a == nil || a.expand == nil || a.expand.mcpCommands == nil || f == nil {
		return
	}
	a.expand.mcpCommands.listen(f)
}
