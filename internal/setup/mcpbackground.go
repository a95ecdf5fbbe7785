package setup

import (
	"context"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/mcp"
)

// mcpStart is the start of the MCP servers when it runs in the
// background (Options.MCPInBackground): New returns while servers still
// connect, as Gemini CLI's interactive start-up does, and the face holds
// prompts until ready is closed, so that the model never sees a tool list
// that lacks a server merely slow to answer.
type mcpStart struct {
	// started is closed when every server has connected or failed (its
	// connect timeout applies) and the tools are in the registry.
	started chan struct{}
	// ready is closed once the servers' prompts are commands too.
	ready chan struct{}
}

// startMCPInBackground connects m's servers on a goroutine, reporting
// failures through warn as a start-up in New would, and registers their
// tools when all are in. Closing the agent stops a start still under way
// before the servers are closed.
func startMCPInBackground(ctx context.Context, a *Agent, m *mcp.Manager, msync *mcpSync, warn func(string)) *mcpStart {
	ctx, cancel := context.WithCancel(ctx)
	bg := &mcpStart{started: make(chan struct{}), ready: make(chan struct{})}
	go func() {
		defer close(bg.started)
		connectMCP(ctx, m, warn)
		if ctx.Err() == nil {
			// Trusted servers' tools need no entry in the policy's
			// allowed list: the policy asks each tool (mcpServers.*.trust).
			msync.update(m.Tools())
		}
	}()
	a.onClose(func() error {
		cancel()
		<-bg.started
		return m.Close()
	})
	return bg
}

// finishMCPInBackground registers the servers' prompts as commands once
// they are in, then closes ready. A prompt named like a command the
// session already has is renamed "<server>.<name>" (registerMCPCommands):
// the user may have run that command while the servers connected, and it
// keeps its meaning.
func (a *Agent) finishMCPInBackground() {
	bg := a.mcpStart
	if bg == nil {
		return
	}
	go func() {
		<-bg.started
		if a.expand != nil {
			a.expand.followMCPPrompts(a.Commands) // mcpcommands.go
		}
		close(bg.ready)
	}()
}

// closedChan is ready at once.
var closedChan = lazy.Value[chan struct{}]{New: func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}}

// MCPReady is closed when the MCP servers' tools and prompts are the
// session's: at once unless Options.MCPInBackground left servers
// connecting when New returned. A prompt sent before then is answered
// by a model that does not know those servers' tools.
func (a *Agent) MCPReady() <-chan struct{} {
	if a.mcpStart == nil {
		return closedChan.Get()
	}
	return a.mcpStart.ready
}
