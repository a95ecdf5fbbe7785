package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/mcp"
)

// MCP servers' questions (elicitation) go to the ACP client when it
// offered to answer them: ACP has an elicitation/create of its own (still
// unstable), with the same form and URL modes and the same accept,
// decline and cancel answers as MCP's. A client that did not advertise
// clientCapabilities.elicitation for the request's mode, or that fails the
// request, gets nothing: the question is declined and a warning names the
// server and the question on the agent's log.
//
// acp-go-sdk v0.13.5 generates the request without the session scope the
// schema puts beside the mode (sessionId, toolCallId), so the session id
// travels in _meta, under the same name.

// elicitor is the part of the agent-side connection that asks the client.
type elicitor interface {
	UnstableCreateElicitation(ctx context.Context, params sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error)
}

// elicit is the session's mcp.ElicitFunc.
func (ss *session) elicit(ctx context.Context, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
	ss.srv.mu.Lock()
	caps := ss.srv.caps.Elicitation
	ss.srv.mu.Unlock()
	return askClient(ctx, ss.conn, caps, ss.sessionID(), req, ss.srv.warn)
}

// sessionID is the session's id once assembled ("" before: a server may
// ask while the session starts).
func (ss *session) sessionID() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.id
}

// askClient asks the client through c if caps allow the request's mode,
// and declines with a warning otherwise.
func askClient(ctx context.Context, c elicitor, caps *sdk.ElicitationCapabilities, sessionID string, req mcp.ElicitRequest, warn func(string)) (mcp.ElicitResult, error) {
	supported := caps != nil && c != nil
	if supported && req.Mode == mcp.ElicitURL {
		supported = caps.Url != nil
	} else if supported {
		// An empty elicitation capability means form, as in MCP.
		supported = caps.Form != nil || caps.Url == nil
	}
	if !supported {
		return mcp.DeclineElicit(fmt.Sprintf("the ACP client does not answer %s questions (clientCapabilities.elicitation).", req.Mode), warn)(ctx, req)
	}
	meta := map[string]any{"sessionId": sessionID, "mcpServer": req.Server}
	var params sdk.UnstableCreateElicitationRequest
	if req.Mode == mcp.ElicitURL {
		params.Url = &sdk.UnstableCreateElicitationUrl{Meta: meta, Mode: "url", Message: req.Message, Url: req.URL,
			ElicitationId: sdk.UnstableElicitationId(req.ElicitationID)}
	} else {
		params.Form = &sdk.UnstableCreateElicitationForm{Meta: meta, Mode: "form", Message: req.Message, RequestedSchema: elicitSchema(req.Schema)}
	}
	resp, err := c.UnstableCreateElicitation(ctx, params)
	switch {
	case err != nil && ctx.Err() != nil:
		return mcp.ElicitResult{Action: mcp.ElicitCancel}, ctx.Err()
	case err != nil:
		return mcp.DeclineElicit(fmt.Sprintf("the ACP client failed to answer: %v", err), warn)(ctx, req)
	case resp.Accept != nil:
		return mcp.ElicitResult{Action: mcp.ElicitAccept, Content: resp.Accept.Content}, nil
	case resp.Decline != nil:
		return mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
	}
	return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
}

// elicitSchema is a requested schema in ACP's type.
func elicitSchema(s map[string]any) sdk.UnstableElicitationSchema {
	out := sdk.UnstableElicitationSchema{Type: sdk.UnstableElicitationSchemaTypeObject, Properties: map[string]any{}}
	if p, ok := s["properties"].(map[string]any); ok {
		out.Properties = p
	}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if n, ok := r.(string); ok {
				out.Required = append(out.Required, n)
			}
		}
	}
	if t, ok := s["title"].(string); ok {
		out.Title = &t
	}
	if d, ok := s["description"].(string); ok {
		out.Description = &d
	}
	return out
}
