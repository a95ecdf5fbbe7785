package setup

import (
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/mcp"
)

// registerMCPCommands registers the MCP servers' prompts as slash
// commands in reg, after the built-in commands, which keep their names:
// a prompt named like one, or like another server's prompt, is renamed
// "<server>.<name>" as in Gemini CLI (mcp.Manager.CommandsBeside). It
// returns the names given, which prompt expansion runs as MCP prompts.
func registerMCPCommands(reg *command.Registry, m *mcp.Manager) map[string]bool {
	if m == nil {
		return nil
	}
	taken := map[string]bool{}
	for _, c := range reg.Commands() {
		taken[c.Name] = true
	}
	names := map[string]bool{}
	for _, c := range m.CommandsBeside(func(n string) bool { return taken[n] }) {
		reg.Register(c)
		names[c.Name] = true
	}
	return names
}
