package agent

import (
	"errors"
	"fmt"

	"github.com/castor-dev/castor/tool"
)

// Answer is a user's decision on one call waiting for confirmation, as a
// face relays it from a client that answers in messages of its own (the
// A2A server's), possibly several at once.
type Answer struct {
	CallID   string
	Decision tool.Decision
}

// AnswerAll records answers that came together, in their order, for the
// calls the session is paused on (Pending). It returns the calls it took
// an answer for, each a copy whose Outcome is the answer's, so that the
// face can show them; Decided then says whether the turn may resume.
//
// An answer for a call that is not waiting, or with an unknown outcome, is
// skipped, and the error says which; the others still count, as Gemini
// CLI ignores what it does not understand. A modify_with_editor answer
// without the edited content is taken but decides nothing: the client
// edits and answers again, and the call keeps waiting. As with
// Confirmation.Answer, only a call's first decision counts.
func (s *Session) AnswerAll(answers []Answer) ([]*ToolCall, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var taken []*ToolCall
	var errs []error
	for _, a := range answers {
		c := s.waitingLocked(a.CallID)
		switch {
		case c == nil:
			errs = append(errs, fmt.Errorf("no tool call %q is waiting for confirmation", a.CallID))
			continue
		case !a.Decision.Outcome.Valid():
			errs = append(errs, fmt.Errorf("unknown confirmation outcome %q for tool call %q", a.Decision.Outcome, a.CallID))
			continue
		}
		if a.Decision.Outcome != tool.ModifyWithEditor || a.Decision.NewContent != nil {
			c.Confirmation.Answer(a.Decision)
		}
		cp := c.snapshot()
		cp.Outcome = a.Decision.Outcome
		taken = append(taken, cp)
	}
	return taken, errors.Join(errs...)
}

// Decided reports whether the session is paused and every call waiting
// for confirmation has a decision: Resume would go on.
func (s *Session) Decided() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		return false
	}
	for _, c := range s.pending.calls {
		if c.Status != StatusAwaitingApproval || c.Confirmation == nil {
			continue
		}
		if _, ok := c.Confirmation.Decision(); !ok {
			return false
		}
	}
	return true
}

// waitingLocked returns the paused batch's call id when it waits for
// confirmation, or nil; s.mu is held.
func (s *Session) waitingLocked(id string) *ToolCall {
	if s.pending == nil {
		return nil
	}
	for _, c := range s.pending.calls {
		if c.ID == id && c.Status == StatusAwaitingApproval && c.Confirmation != nil {
			return c
		}
	}
	return nil
}
