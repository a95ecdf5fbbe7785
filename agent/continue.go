package agent

import (
	"context"
	"fmt"

	"google.golang.org/genai"
)

// Continue takes up, in place of the session's history, a conversation a
// face kept of its own (an A2A task store, say) from an earlier process:
// conv is the conversation as History gave it and paused the record of the
// calls its last turn paused on, as PausedCalls gave it (nil when it did
// not pause).
//
// When paused names calls of the model response that ends conv, the
// session pauses on that response again (RestorePending), so that a
// client's answer to a confirmation it saw before the restart runs the
// call: Pending, Answer and Resume work as after the original pause. Every
// other call without a response is answered as cancelled with reason
// (RepairHistory), and so are the paused calls, when the records do not
// match the last response, or when the engine cannot pause on them again;
// the error then says why, for the face's log. In every case the session
// is left with a valid history and ready for its next turn. It fails with
// ErrBusy, changing nothing, while a turn runs.
func (s *Session) Continue(ctx context.Context, conv []*genai.Content, paused []PendingCall, reason string) error {
	if !s.turn.TryLock() {
		return ErrBusy
	}
	defer s.turn.Unlock()
	content, rest := splitPaused(conv, paused)
	h := RepairHistory(rest, reason)
	s.mu.Lock()
	s.hist = h
	s.pending = nil
	s.lastPrompt = 0
	s.started = len(h) > 0
	s.mu.Unlock()
	if content == nil {
		return nil
	}
	return s.pauseAgain(ctx, content, paused, reason)
}

// pauseAgain pauses the session on content's calls, or, if the engine
// refuses, answers them as cancelled with reason and says why. The turn
// lock is held.
func (s *Session) pauseAgain(ctx context.Context, content *genai.Content, paused []PendingCall, reason string) error {
	err := s.restorePending(ctx, content, paused)
	if err == nil {
		return nil
	}
	s.mu.Lock()
	s.hist = RepairHistory(append(s.hist, content), reason)
	s.mu.Unlock()
	return fmt.Errorf("the paused tool calls could not wait again and were cancelled: %w", err)
}

// splitPaused separates the model response a stored turn paused on from
// the conversation before it: with pending records, the conversation ends
// with the response whose calls wait. Without records, or when the
// conversation does not end so (a record names a call the last response
// did not make), paused is nil and rest is conv.
func splitPaused(conv []*genai.Content, pending []PendingCall) (paused *genai.Content, rest []*genai.Content) {
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
