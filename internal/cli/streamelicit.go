package cli

// MCP elicitation in a stream-json input session. The host that answers
// confirmations can answer an MCP server's questions too, so instead of
// declining them as a one-shot -p run must, castor writes an
// elicitation_request line and waits for the elicitation_response line
// answering it, as it does for permission_request. The fields are named as
// Claude Code names those of its own elicitation messages (mcp_server_name,
// elicitation_id, requested_schema; the answer's action and content are
// MCP's own).

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/castor-dev/castor/mcp"
)

// pendingElicit is a question waiting for its elicitation_response.
type pendingElicit struct {
	req mcp.ElicitRequest
	ch  chan mcp.ElicitResult // buffered: one answer
}

// parseElicitResponse reads an elicitation_response line:
// {"type":"elicitation_response","request_id":…,"action":…,"content":{…}}.
// The content is checked against the question's schema when the answer
// arrives (answerElicit), since only the session knows the schema.
func parseElicitResponse(raw rawInput) (*inputLine, error) {
	if raw.RequestID == "" {
		return nil, errors.New(`elicitation_response without "request_id"`)
	}
	a := mcp.ElicitAction(raw.Action)
	switch a {
	case mcp.ElicitAccept, mcp.ElicitDecline, mcp.ElicitCancel:
	default:
		return nil, fmt.Errorf("elicitation_response: unknown action %q: use accept, decline or cancel", raw.Action)
	}
	content := bytes.TrimSpace(raw.Content)
	if string(content) == "null" {
		content = nil
	}
	if len(content) > 0 && content[0] != '{' {
		return nil, errors.New(`elicitation_response: "content" must be a JSON object`)
	}
	return &inputLine{kind: inputElicit, requestID: raw.RequestID, action: a, content: content}, nil
}

// elicit is the session's mcp.ElicitFunc: it writes an
// elicitation_request and waits for its answer, an interrupt or the end
// of stdin (both dismiss the question: cancel), or the server giving up.
func (s *streamSession) elicit(ctx context.Context, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
	p := &pendingElicit{req: req, ch: make(chan mcp.ElicitResult, 1)}
	s.mu.Lock()
	if !s.reading && !s.eof {
		// A server asking while castor starts (before stdin is read)
		// could never be answered: declined as in a -p run, and said.
		s.mu.Unlock()
		fmt.Fprintf(s.out.errw, "Warning: %s Declined: castor is still starting.\n", mcp.DescribeElicit(req))
		return mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
	}
	if s.eof {
		s.mu.Unlock()
		return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
	}
	s.elicitSeq++
	id := fmt.Sprintf("elicit_%d", s.elicitSeq)
	s.elicits[id] = p
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.elicits, id)
		s.mu.Unlock()
	}()
	s.out.elicitationRequest(id, req)
	select {
	case res := <-p.ch:
		return res, nil
	case <-ctx.Done():
		return mcp.ElicitResult{}, ctx.Err()
	}
}

// answerElicit delivers an elicitation_response. An accepted form whose
// content does not fit the requested schema is refused with the reason,
// and the question stays open, so that the host can answer it again.
func (s *streamSession) answerElicit(in *inputLine) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.elicits[in.requestID]
	if !ok {
		return fmt.Errorf("no elicitation request is pending for request_id %q", in.requestID)
	}
	res := mcp.ElicitResult{Action: in.action}
	if in.action == mcp.ElicitAccept && p.req.Mode == mcp.ElicitForm {
		data := in.content
		if len(data) == 0 {
			data = []byte("{}")
		}
		content, err := mcp.DecodeElicitContent(p.req.Schema, data)
		if err != nil {
			return fmt.Errorf("elicitation_response for %s: %v", in.requestID, err)
		}
		res.Content = content
	}
	delete(s.elicits, in.requestID)
	p.ch <- res
	return nil
}

// cancelElicits dismisses every question waiting for an answer; s.mu is
// held.
func (s *streamSession) cancelElicits() {
	for id, p := range s.elicits {
		p.ch <- mcp.ElicitResult{Action: mcp.ElicitCancel}
		delete(s.elicits, id)
	}
}

// elicitationRequest writes the line asking the host an MCP server's
// question: the form's requested schema, or the URL to open.
func (r *streamRenderer) elicitationRequest(id string, req mcp.ElicitRequest) {
	var schema any
	if req.Mode == mcp.ElicitForm {
		schema = map[string]any{}
		if req.Schema != nil {
			schema = r.value(req.Schema)
		}
	}
	r.line(struct {
		Type            string `json:"type"`
		Timestamp       string `json:"timestamp"`
		RequestID       string `json:"request_id"`
		ServerName      string `json:"mcp_server_name"`
		Mode            string `json:"mode"`
		Message         string `json:"message"`
		RequestedSchema any    `json:"requested_schema,omitempty"`
		URL             string `json:"url,omitempty"`
		ElicitationID   string `json:"elicitation_id,omitempty"`
	}{"elicitation_request", stamp(), id, r.str(req.Server), string(req.Mode), r.str(req.Message), schema, r.str(req.URL), r.str(req.ElicitationID)})
}
