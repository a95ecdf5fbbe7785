package setup

import "github.com/castor-dev/castor/mcp"

// headlessElicit is why a session without an Elicit callback declines MCP
// servers' questions.
const headlessElicit = "no one can answer in this non-interactive session; run castor in a terminal without -p, or with --input-format stream-json, to answer such questions."

// elicitFor is the session's answer to MCP servers' questions: the face's
// callback, or a refusal reported through Warn (on stderr for castor -p),
// so that a tool that stops for an answer no one gives says why.
func elicitFor(o Options) mcp.ElicitFunc {
	if o.Elicit != nil {
		return o.Elicit
	}
	return mcp.DeclineElicit(headlessElicit, o.Warn)
}
