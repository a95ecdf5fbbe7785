package a2a

import (
	"github.com/google/uuid"

	"github.com/castor-dev/castor/agent"
)

// showPendingLocked makes the status of a task paused for confirmations
// carry them, as the tool-call-confirmation updates its streams showed:
// tasks/get (in this process or, from the store, in the next) tells a
// client that reconnects what it must answer.
func (t *task) showPendingLocked() {
	sess := t.session.Current()
	if sess == nil || t.state != StateInputRequired {
		return
	}
	calls := sess.Pending()
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
