package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/tool"
)

// Tool is an MCP server's tool as the engine sees it. Besides tool.Tool it
// offers ServerName (which the scheduler hands to the policy, so that
// "always allow this server" works), ServerToolName and Trusted.
type Tool struct {
	srv        *server
	serverTool string
	name       string

	mu          sync.RWMutex
	description string
	schema      map[string]any
	readOnly    bool
}

var (
	_ tool.Tool    = (*Tool)(nil)
	_ tool.Aliased = (*Tool)(nil)
)

func newTool(s *server, serverTool, name string) *Tool {
	return &Tool{srv: s, serverTool: serverTool, name: name}
}

func (t *Tool) update(def *sdk.Tool, schema map[string]any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.description = def.Description
	t.schema = schema
	t.readOnly = def.Annotations != nil && def.Annotations.ReadOnlyHint
}

// Name is the name the model calls the tool by: the server's name for it,
// sanitized, or "server__tool" when that clashes with another tool.
func (t *Tool) Name() string { return t.name }

// DisplayName is "<tool> (<server> MCP Server)", as Gemini CLI shows it.
func (t *Tool) DisplayName() string {
	return fmt.Sprintf("%s (%s MCP Server)", t.serverTool, t.srv.cfg.Name)
}

// Description is the server's description of the tool.
func (t *Tool) Description() string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.description
}

// Kind is KindOther for every MCP tool, as in Gemini CLI: a server's
// readOnlyHint is a claim, not something the policy should take on trust.
func (t *Tool) Kind() tool.Kind { return tool.KindOther }

// Schema is the server's input schema (an empty object schema when the
// server gave none).
func (t *Tool) Schema() map[string]any {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.schema
}

// Aliases are the other names the tool answers to: the qualified
// "server__tool" form and Gemini CLI's current "mcp_server_tool" form.
func (t *Tool) Aliases() []string {
	var out []string
	if q := QualifiedName(t.srv.cfg.Name, t.serverTool); q != t.name {
		out = append(out, q)
	}
	if g := GeminiName(t.srv.cfg.Name, t.serverTool); g != t.name {
		out = append(out, g)
	}
	return out
}

// ServerName is the name of the server the tool belongs to.
func (t *Tool) ServerName() string { return t.srv.cfg.Name }

// ServerToolName is the server's own name for the tool.
func (t *Tool) ServerToolName() string { return t.serverTool }

// ReadOnlyHint reports the server's readOnlyHint annotation.
func (t *Tool) ReadOnlyHint() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.readOnly
}

// Trusted reports whether the server is configured with trust: true in a
// trusted folder, in which case its calls need no confirmation. Callers
// whose policy refuses unconfirmed calls outright (headless runs) should
// allow trusted tools by name.
func (t *Tool) Trusted() bool { return t.srv.cfg.Trust }

// Build returns a call with args; the registry has validated them already.
func (t *Tool) Build(args map[string]any) (tool.Call, error) {
	if args == nil {
		args = map[string]any{}
	}
	return &call{t: t, args: args}, nil
}

type call struct {
	t    *Tool
	args map[string]any
}

// Describe is the arguments as JSON, as Gemini CLI describes MCP calls.
func (c *call) Describe() string { return marshalJS(c.args) }

// Confirmation asks for approval with the server and tool names, unless
// the server is trusted.
func (c *call) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	if c.t.Trusted() {
		return nil, nil
	}
	return &tool.ConfirmationDetails{
		Type:            tool.ConfirmMCP,
		Title:           "Confirm MCP Tool Execution",
		ServerName:      c.t.srv.cfg.Name,
		ToolName:        c.t.serverTool,
		ToolDisplayName: c.t.DisplayName(),
		ToolArgs:        c.args,
	}, nil
}

// Execute calls the tool on its server, reconnecting first when the
// server's connection was lost, and converts the result to parts.
func (c *call) Execute(ctx context.Context, out func(string)) *tool.Result {
	if ctx.Err() != nil {
		return tool.Fail(tool.ErrCancelled, "Tool call aborted")
	}
	s := c.t.srv
	token, done := s.progress.start(out)
	defer done()
	var res *sdk.CallToolResult
	err := s.withSession(ctx, func(ctx context.Context, cs *sdk.ClientSession) (err error) {
		params := &sdk.CallToolParams{Name: c.t.serverTool, Arguments: c.args}
		if token != "" {
			params.SetProgressToken(token)
		}
		res, err = cs.CallTool(ctx, params)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Fail(tool.ErrCancelled, "Tool call aborted")
		}
		return c.transportError(err)
	}
	if res.IsError {
		return c.toolError(res)
	}
	parts := ResultParts(c.t.serverTool, res.Content, s.cfg.wrapsOutput())
	if m := s.m; m != nil && m.outputLimit > 0 && len(parts) == 1 && parts[0].Text != "" && !spooled(res.Meta) {
		// Gemini CLI cuts single-text MCP results like shell output.
		id := fmt.Sprintf("%d_%d", time.Now().UnixMilli(), rand.Uint32())
		parts[0].Text = tool.LimitOutput(parts[0].Text, m.outputDir, c.t.name, id, m.outputLimit)
	}
	return &tool.Result{
		LLMParts: parts,
		Display:  ResultDisplay(res),
	}
}

// toolError is Gemini CLI's MCP_TOOL_ERROR for a result with isError set:
// the message quotes the call and the raw response.
func (c *call) toolError(response any) *tool.Result {
	fc := struct {
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	}{c.t.serverTool, c.args}
	type functionResponse struct {
		Name     string `json:"name"`
		Response any    `json:"response"`
	}
	parts := []struct {
		FunctionResponse functionResponse `json:"functionResponse"`
	}{{functionResponse{c.t.serverTool, response}}}
	msg := fmt.Sprintf("MCP tool '%s' reported tool error for function call: %s with response: %s",
		c.t.serverTool, marshalJS(fc), marshalJS(parts))
	return &tool.Result{
		LLMText: msg,
		Display: fmt.Sprintf("Error: MCP tool '%s' reported an error.", c.t.serverTool),
		Error:   &tool.Error{Type: tool.ErrMCPToolError, Message: msg},
	}
}

// transportError reports a call that failed below the tool (the server
// crashed, timed out, or refused the request) the way Gemini CLI does: as
// a tool error whose response carries {"error": {"message", "isError"}}.
func (c *call) transportError(err error) *tool.Result {
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		msg = fmt.Sprintf("MCP error -32001: Request timed out after %v", c.t.srv.cfg.RequestTimeout())
	}
	if f, ok := errors.AsType[*Failure](err); ok {
		// The server died or could not be reached: the user sees why,
		// not only that the tool "reported an error". The model gets the
		// problem alone: the command line and the server's stderr may
		// hold tokens, and are no use to it.
		r := c.transportResult(fmt.Sprintf("MCP server '%s': %s", f.Server, f.Problem))
		r.Display = fmt.Sprintf("Error: MCP tool '%s' reported an error: %s", c.t.serverTool, msg)
		return r
	}
	return c.transportResult(msg)
}

func (c *call) transportResult(msg string) *tool.Result {
	return c.toolError(struct {
		Error struct {
			Message string `json:"message"`
			IsError bool   `json:"isError"`
		} `json:"error"`
	}{Error: struct {
		Message string `json:"message"`
		IsError bool   `json:"isError"`
	}{msg, true}})
}

// marshalJS is JSON.stringify: no HTML escaping, no trailing newline.
func marshalJS(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Tools of an MCP server name their server and may be trusted.
var (
	_ tool.ServerTool  = (*Tool)(nil)
	_ tool.TrustedTool = (*Tool)(nil)
)
