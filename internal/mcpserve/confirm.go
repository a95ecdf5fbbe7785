package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// multiRoundTrip is the first protocol version in which a server may not
// send elicitation/create while serving a call (SEP-2322): questions go
// back in the call's result instead (mrtr.go).
const multiRoundTrip = "2026-07-28"

// declaresElicit reports whether the client declared form elicitation.
func declaresElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// askInResult reports whether questions go back in the call's result.
func askInResult(ss *mcp.ServerSession) bool {
	return declaresElicit(ss) && ss.InitializeParams().ProtocolVersion >= multiRoundTrip
}

// canElicit reports whether the client may be sent elicitation/create
// while a call runs: it declared form elicitation on a protocol version
// before multiRoundTrip.
func canElicit(ss *mcp.ServerSession) bool {
	return declaresElicit(ss) && ss.InitializeParams().ProtocolVersion < multiRoundTrip
}

// The answers a confirmation offers. "Always" lasts for the prompt's
// turn: each prompt call assembles its session anew.
const (
	answerOnce   = "Allow once"
	answerAlways = "Allow for the rest of this prompt"
	answerNo     = "No"
)

// confirmSchema is the form a confirmation asks: one choice.
func confirmSchema(onceOnly bool) map[string]any {
	choices := []any{answerOnce, answerAlways, answerNo}
	if onceOnly {
		choices = []any{answerOnce, answerNo}
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"decision": map[string]any{"type": "string", "title": "Allow this call?", "enum": choices},
		},
		"required": []any{"decision"},
	}
}

// confirm asks the client's user about c through elicitation; anything
// but an accepted allow is a cancel, which the model is told.
func confirm(ctx context.Context, ask func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error), c *agent.ToolCall) tool.Decision {
	onceOnly := c.Confirmation != nil && c.Confirmation.OnceOnly
	res, err := ask(ctx, &mcp.ElicitParams{Mode: "form", Message: confirmMessage(c), RequestedSchema: confirmSchema(onceOnly)})
	if err != nil || res.Action != "accept" {
		return tool.Decision{Outcome: tool.Cancel}
	}
	switch res.Content["decision"] {
	case answerOnce:
		return tool.Decision{Outcome: tool.ProceedOnce}
	case answerAlways:
		if !onceOnly {
			return tool.Decision{Outcome: tool.ProceedAlways}
		}
	}
	return tool.Decision{Outcome: tool.Cancel}
}

// confirmMessage says what the call would do, as the terminal's dialog
// shows it: the command, the file and its diff, the URL, or the
// arguments.
func confirmMessage(c *agent.ToolCall) string {
	var b strings.Builder
	title := c.Name
	var d *tool.ConfirmationDetails
	if c.Confirmation != nil {
		d = c.Confirmation.Details
	}
	if d != nil && d.Title != "" {
		title = d.Title
	}
	fmt.Fprintf(&b, "Castor wants to run %s", title)
	if c.Description != "" {
		fmt.Fprintf(&b, ": %s", c.Description)
	}
	b.WriteString("\n")
	switch {
	case d != nil && d.Command != "":
		fmt.Fprintf(&b, "\n%s\n", d.Command)
	case d != nil && d.FileDiff != "":
		fmt.Fprintf(&b, "\n%s\n%s", d.FilePath, d.FileDiff)
	case d != nil && len(d.URLs) > 0:
		fmt.Fprintf(&b, "\n%s\n", strings.Join(d.URLs, "\n"))
	case len(c.Args) > 0:
		if j, err := json.MarshalIndent(c.Args, "", "  "); err == nil {
			fmt.Fprintf(&b, "\n%s\n", j)
		}
	}
	return b.String()
}
