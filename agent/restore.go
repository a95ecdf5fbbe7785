package agent

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/tool"
)

// PendingCall is what a face keeps of one call of a turn paused for
// confirmation, so that another process can pause the same turn again
// (RestorePending). The call's arguments are in the model content that
// made it, which the face keeps with its history.
type PendingCall struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	PromptID string `json:"promptId,omitempty"`
	// Status is the call's status at the pause: awaiting_approval,
	// scheduled (allowed, not run yet) or a terminal one.
	Status Status `json:"status"`
	// Error is why a terminal call failed before the pause (unknown tool,
	// bad arguments, the policy).
	Error *PendingError `json:"error,omitempty"`
}

// PendingError is a terminal call's failure in a PendingCall.
type PendingError struct {
	Type    tool.ErrorType `json:"type"`
	Message string         `json:"message"`
}

// PausedCalls returns a record of every call of the batch the session is
// paused on, in the model's order, or nil when no turn is paused.
func (s *Session) PausedCalls() []PendingCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		return nil
	}
	out := make([]PendingCall, 0, len(s.pending.calls))
	for _, c := range s.pending.calls {
		pc := PendingCall{ID: c.ID, Name: c.Name, PromptID: c.PromptID, Status: c.Status}
		if c.Result != nil && c.Result.Error != nil {
			pc.Error = &PendingError{Type: c.Result.Error.Type, Message: c.Result.Error.Message}
		}
		out = append(out, pc)
	}
	return out
}

// RestorePending pauses the session on a batch recorded by PausedCalls in
// an earlier process: content is the model response whose calls wait,
// which must not be in the session's history yet (New and SetHistory
// would answer its calls as cancelled); it is appended to it. Waiting
// calls are prepared again, and ask for confirmation with details computed
// now (an edit's diff against the file as it is). A waiting call whose
// tool is gone fails as an unknown tool would; a call without a record is
// cancelled. Afterwards Pending, Answer and Resume work as after the
// original pause.
func (s *Session) RestorePending(ctx context.Context, content *genai.Content, calls []PendingCall) error {
	if content == nil || content.Role != genai.RoleModel {
		return errors.New("restore pending: the content is not a model response")
	}
	if !s.turn.TryLock() {
		return ErrBusy
	}
	defer s.turn.Unlock()
	return s.restorePending(ctx, content, calls)
}

// restorePending is RestorePending with the turn lock held.
func (s *Session) restorePending(ctx context.Context, content *genai.Content, calls []PendingCall) error {
	s.mu.Lock()
	busy := s.pending != nil
	s.mu.Unlock()
	if busy {
		return errors.New("restore pending: the session is already paused")
	}
	byID := map[string]PendingCall{}
	for _, c := range calls {
		byID[c.ID] = c
	}
	r := s.newRun(ctx, func(*Event, error) bool { return true })
	b := &pendingBatch{decisions: map[string]string{}}
	visible := r.visibleNames()
	waiting := false
	for _, p := range content.Parts {
		if p == nil || p.FunctionCall == nil {
			continue
		}
		fc := p.FunctionCall
		rec, ok := byID[fc.ID]
		c := &ToolCall{ID: fc.ID, Name: fc.Name, Args: fc.Args, PromptID: rec.PromptID, Status: StatusValidating}
		b.calls = append(b.calls, c)
		if b.promptID == "" {
			b.promptID = rec.PromptID
		}
		if !ok || rec.Status == StatusCancelled {
			r.finishCall(c, StatusCancelled, tool.Fail(tool.ErrCancelled, "[Operation Cancelled] Reason: "+reasonResumed))
			b.decisions[c.ID] = "reject"
			continue
		}
		if rec.Status.Terminal() {
			e := rec.Error
			if e == nil {
				e = &PendingError{Type: tool.ErrUnhandledException, Message: "the call failed before the conversation was restored"}
			}
			r.finishCall(c, rec.Status, tool.Fail(e.Type, e.Message))
			b.decisions[c.ID] = "reject"
			continue
		}
		_, call, ok := r.prepare(c, visible)
		if !ok {
			b.decisions[c.ID] = "reject"
			continue
		}
		c.call = call
		c.Description = call.Describe()
		if rec.Status != StatusAwaitingApproval {
			c.Status = StatusScheduled
			b.decisions[c.ID] = "auto_accept"
			continue
		}
		details, err := call.Confirmation(ctx)
		if err != nil {
			r.finishCall(c, StatusError, tool.Fail(tool.ErrUnhandledException, err.Error()))
			continue
		}
		if details == nil {
			// The tool no longer asks (the edit is already made, say), but
			// the user was asked: the question stands.
			details = &tool.ConfirmationDetails{Type: tool.ConfirmInfo, Title: fmt.Sprintf("Confirm %s", c.Name), Prompt: c.Description}
		}
		c.Status = StatusAwaitingApproval
		c.Confirmation = &Confirmation{CallID: c.ID, Details: details, OnceOnly: !s.cfg.Policy.OffersAlways()}
		waiting = true
	}
	if len(b.calls) == 0 {
		return errors.New("restore pending: the content holds no function calls")
	}
	if !waiting {
		// Nothing to ask: the batch is answered as the next prompt would
		// answer it.
		s.mu.Lock()
		s.hist = RepairHistory(append(s.hist, content), reasonResumed)
		s.mu.Unlock()
		return nil
	}
	b.turn = &ModelTurn{ID: newID(), Time: s.cfg.Now(), Content: content, Model: s.Model(), Text: answerText(content)}
	s.mu.Lock()
	s.hist = append(s.hist, content)
	s.pending = b
	s.started = true
	s.mu.Unlock()
	return nil
}
