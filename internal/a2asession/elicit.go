package a2asession

import (
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/mcp"
)

// a2aElicit is why A2A tasks decline MCP servers' questions (elicitation).
// A2A has no message asking its client to fill in a form or open a URL:
// a task's input-required state carries the development-tool extension's
// tool confirmations, which Gemini CLI's clients answer with an outcome,
// not with data. Inventing a payload would leave those clients stuck on a
// question they cannot show; declining lets the MCP tool fail cleanly and
// the model explain. The server's log gets a warning naming the server
// and the question.
const a2aElicit = "A2A clients cannot be asked (the protocol has no form or URL request); configure the MCP server not to ask, or use castor interactively."

// withElicit makes o decline MCP servers' questions with a2aElicit unless
// the caller answers them.
func withElicit(o setup.Options) setup.Options {
	if o.Elicit == nil {
		o.Elicit = mcp.DeclineElicit(a2aElicit, o.Warn)
	}
	return o
}
