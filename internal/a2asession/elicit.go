package a2asession

import (
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/mcp"
)

// a2aElicit is why a session built without a way to ask (no
// a2a.SessionSpec.Elicit) declines MCP servers' questions. The A2A server
// passes its task's question to the client (a2a/elicit.go), which itself
// declines for Gemini CLI's clients: they answer tool confirmations with an
// outcome and know no question event.
const a2aElicit = "A2A clients cannot be asked (the protocol has no form or URL request); configure the MCP server not to ask, or use castor interactively."

// withElicit makes o decline MCP servers' questions with a2aElicit unless
// the caller answers them.
func withElicit(o setup.Options) setup.Options {
	if o.Elicit == nil {
		o.Elicit = mcp.DeclineElicit(a2aElicit, o.Warn)
	}
	return o
}
