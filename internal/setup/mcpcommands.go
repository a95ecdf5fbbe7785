package setup

import (
	"slices"
	"sync"

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

// mcpCommands keeps a session's slash commands in step with its MCP
// servers' prompts: once started, every prompts/list_changed (or a
// reconnect) makes the prompt commands again, as Gemini CLI reloads its
// commands, so that a removed prompt's command goes and a new one's
// comes. The names follow the same rules as at the start
// (registerMCPCommands): a prompt named like a built-in, a custom command
// or another server's prompt is "<server>.<name>". Only the commands it
// registered are taken back; a custom command that replaced one stays.
type mcpCommands struct {
	mu   sync.Mutex
	reg  *command.Registry
	m    *mcp.Manager
	x    *expander
	cmds []*command.Command // what the last refresh registered
	// listeners hear of a refresh that changed the commands
	// (Agent.OnCommandsChanged); they run after mu is released.
	listeners []func()
}

// listen adds f to what a changing refresh calls.
func (c *mcpCommands) listen(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listeners = append(c.listeners, f)
}

// start registers the prompts of m as commands in reg (and as MCP
// prompts for x's expansion) and follows their changes from then on. A
// change notified before start is not lost: start reads the current
// lists.
func (c *mcpCommands) start(reg *command.Registry, m *mcp.Manager, x *expander) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.reg, c.m, c.x = reg, m, x
	c.mu.Unlock()
	c.refresh()
}

// refresh makes the prompt commands again from the servers' current
// prompts; before start it does nothing (mcp.Options.OnPromptsChanged).
func (c *mcpCommands) refresh() {
	for _, f := range c.update() {
		f()
	}
}

// update is refresh under mu: it returns the listeners to call, none
// when the commands came out as they were (a reconnect, a
// list_changed that changed nothing a client shows).
func (c *mcpCommands) update() []func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reg == nil || c.m == nil {
		return nil
	}
	mine := make(map[*command.Command]bool, len(c.cmds))
	for _, k := range c.cmds {
		mine[k] = true
	}
	taken := map[string]bool{}
	for _, k := range c.reg.Commands() {
		if !mine[k] {
			taken[k.Name] = true
		}
	}
	next := c.m.CommandsBeside(func(n string) bool { return taken[n] })
	for _, k := range c.cmds {
		c.reg.Unregister(k)
	}
	names := make(map[string]bool, len(next))
	for _, k := range next {
		c.reg.Register(k)
		names[k.Name] = true
	}
	same := sameCommands(c.cmds, next)
	c.cmds = next
	if c.x != nil {
		c.x.setMCPPrompts(names)
	}
	if same {
		return nil
	}
	return slices.Clone(c.listeners)
}

// sameCommands reports whether a and b show alike in a command list:
// names, descriptions and arguments, in order.
func sameCommands(a, b []*command.Command) bool {
	return slices.EqualFunc(a, b, func(x, y *command.Command) bool {
		return x.Name == y.Name && x.Description == y.Description &&
			slices.EqualFunc(x.Arguments, y.Arguments, func(p, q command.Argument) bool { return p.Name == q.Name })
	})
}
