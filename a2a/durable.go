package a2a

import (
	"context"

	"github.com/google/uuid"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
)

// splitPaused separates the model response a stored turn paused on from
// the conversation before it: with pending records, the conversation ends
// with the response whose calls wait. Without records, or when the
// conversation does not end so, paused is nil and rest is conv.
func splitPaused(conv []*genai.Content, pending []agent.PendingCall) (paused *genai.Content, rest []*genai.Content) {
	if len(pending) == 0 || len(conv) == 0 {
		return nil, conv
	}
	last := conv[len(conv)-1]
	if last == nil || last.Role != genai.RoleModel {
		return nil, conv
	}
	ids := map[string]bool{}
	for _, p := range last.Parts {
		if p != nil && p.FunctionCall != nil {
			ids[p.FunctionCall.ID] = true
		}
	}
	for _, c := range pending {
		if !ids[c.ID] {
			return nil, conv
		}
	}
	return last, conv[:len(conv)-1]
}

// restorePending pauses a new session on the stored turn's calls, so that
// the client's answer to a confirmation it saw before the restart runs
// the call. If the engine refuses, the calls are answered as cancelled,
// as they were before confirmations survived restarts.
func (t *task) restorePending(ctx context.Context, sess *agent.Session, paused *genai.Content, pending []agent.PendingCall) {
	err := sess.RestorePending(ctx, paused, pending)
	if err == nil {
		return
	}
	t.srv.log.Warn("a2a: could not restore the pending tool calls", "task", t.id, "error", err)
	h := append(sess.History(), paused)
	if err := sess.SetHistory(agent.RepairHistory(h, "the server restarted before the call was confirmed.")); err != nil {
		t.srv.log.Warn("a2a: could not restore the conversation", "task", t.id, "error", err)
	}
}

// showPendingLocked makes the status of a task paused for confirmations
// carry them, as the tool-call-confirmation updates its streams showed:
// tasks/get (in this process or, from the store, in the next) tells a
// client that reconnects what it must answer.
func (t *task) showPendingLocked() {
	if t.agent == nil || t.state != StateInputRequired {
		return
	}
	calls := t.agent.Session().Pending()
	if len(calls) == 0 {
		return
	}
	parts := make([]Part, 0, len(calls))
	for _, c := range calls {
		parts = append(parts, DataPart(geminiToolCall(c, string(agent.StatusAwaitingApproval), "")))
	}
	t.status.Message = &Message{
		Kind: "message", Role: "agent", MessageID: uuid.NewString(), TaskID: t.id, ContextID: t.contextID,
		Parts:    parts,
		Metadata: map[string]any{"coderAgent": map[string]any{"kind": "tool-call-confirmation"}},
	}
}
