package castor

import (
	"github.com/castor-dev/castor/mcp"
)

// WithElicit answers the questions MCP servers ask the user in the middle
// of a tool call (MCP elicitation: a form described by a JSON schema, or a
// URL to open). f runs on the calling tool's goroutine and may block until
// the user answers; an accepted form's content is checked against the
// server's schema, its defaults filled in, before it is sent. Without it,
// every question is declined and reported through WithWarnings.
func WithElicit(f mcp.ElicitFunc) Option {
	return func(o *options) { o.Elicit = f }
}

// declineElicit is the answer of an agent built without WithElicit: every
// question declined, and the warning says how a program answers them
// (the assembly's own default words it for the castor command).
func declineElicit(warn func(string)) mcp.ElicitFunc {
	return mcp.DeclineElicit("this agent has no function to answer such questions: give one with castor.WithElicit.", warn)
}
