package a2a

import (
	"context"

	"github.com/google/uuid"

	"github.com/castor-dev/castor/a2a/internal/jsonrpc"
	"github.com/castor-dev/castor/mcp"
)

// MCP servers' questions (elicitation) go to the A2A client. While a tool
// call waits for the answer, the turn pauses: its streams end with a
// final input-required status whose message holds one data part
// describing the question,
//
//	{"elicitationId", "server", "mode": "form"|"url", "message",
//	 "requestedSchema" (form), "url" (url)}
//
// in the development-tool extension's format, event kind ELICITATION
// (Castor's addition to the extension). Only clients that activated the
// extension for the turn are asked: Gemini CLI's own clients (coderAgent
// format) know no such event and would leave the tool waiting, so their
// questions are declined, as before. The client answers with a message on the same task holding a
// data part {"elicitationId", "action": "accept"|"decline"|"cancel",
// "content" (the form's values)}, bare or keyed by the extension's URI;
// that message's stream (or blocking message/send) carries the rest of
// the turn. A message without the answer is refused while the question
// waits; tasks/cancel cancels the question with the turn. One question
// waits at a time: a second one, or one asked outside a turn (while a
// task's MCP servers start for GET /tasks/{id}/metadata), is declined.

// elicitation is a question waiting for the client's answer.
type elicitation struct {
	id     string
	req    mcp.ElicitRequest
	answer chan mcp.ElicitResult
}

// data is the question as the client sees it.
func (e *elicitation) data() map[string]any {
	d := map[string]any{"elicitationId": e.id, "server": e.req.Server, "mode": string(e.req.Mode), "message": e.req.Message}
	if e.req.Mode == mcp.ElicitURL {
		d["url"] = e.req.URL
	} else {
		d["requestedSchema"] = e.req.Schema
	}
	return d
}

// elicit is the task's mcp.ElicitFunc.
func (t *task) elicit(ctx context.Context, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
	e := &elicitation{id: uuid.NewString(), req: req, answer: make(chan mcp.ElicitResult, 1)}
	t.mu.Lock()
	turnDone := t.turnDone
	why := ""
	switch {
	case t.turn == nil || t.question != nil:
		why = "the task is not running a turn or already waits for an answer."
	case !t.ext:
		why = "the A2A client did not activate the development-tool extension, through which questions are asked."
	default:
		t.question = e
	}
	t.mu.Unlock()
	if why != "" {
		return mcp.DeclineElicit(why, func(s string) { t.srv.log.Warn("a2a: " + s) })(ctx, req)
	}
	t.publish(&update{kind: uElicit, state: StateInputRequired, final: true, question: e})
	select {
	case a := <-e.answer:
		t.publish(&update{kind: uState, state: StateWorking, reason: reasonPrompt})
		return a, nil
	case <-ctx.Done():
	case <-turnDone:
		// The MCP request's own context outlives a cancelled turn: the
		// server waits for this answer before it sees the call cancelled.
	}
	t.mu.Lock()
	if t.question == e {
		t.question = nil
	}
	t.mu.Unlock()
	return mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
}

// answerQuestion hands the answer in m to the question t waits on, if
// any, and subscribes sub to the rest of the turn. handled is false when
// no question waits: m starts a turn as usual.
func (t *task) answerQuestion(m *Message, sub *subscriber) (handled bool, e *rpcError) {
	t.mu.Lock()
	q := t.question
	if q == nil {
		t.mu.Unlock()
		return false, nil
	}
	ans, ok := findAnswer(m, q.id)
	if !ok {
		t.mu.Unlock()
		return true, jsonrpc.Errorf(CodeInvalidRequest, "Task %s waits for the answer to MCP server '%s''s question (elicitationId %s): send a data part {elicitationId, action, content}.", t.id, q.req.Server, q.id)
	}
	t.question = nil
	if sub != nil {
		t.subs[sub] = struct{}{}
	}
	t.mu.Unlock()
	t.addUserMessage(m)
	q.answer <- ans
	return true, nil
}

// findAnswer reads the answer to question id among m's data parts.
func findAnswer(m *Message, id string) (mcp.ElicitResult, bool) {
	for _, p := range m.Parts {
		d, ok := p.Data.(map[string]any)
		if p.Kind != PartData || !ok {
			continue
		}
		if inner, ok := extensionValue(d); ok {
			d = inner
		}
		if got, _ := str(d, "elicitationId", "elicitation_id"); got != id {
			continue
		}
		action, _ := str(d, "action")
		content, _ := field[map[string]any](d, "content")
		switch a := mcp.ElicitAction(action); a {
		case mcp.ElicitAccept, mcp.ElicitDecline, mcp.ElicitCancel:
			return mcp.ElicitResult{Action: a, Content: content}, true
		}
	}
	return mcp.ElicitResult{}, false
}

// devElicitation is the extension event kind of an MCP server's question
// (Castor's addition to the development-tool extension).
const devElicitation = "ELICITATION"
