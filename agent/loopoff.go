package agent

import (
	"context"
	"fmt"
)

// DisableLoopDetection turns loop detection off for the rest of the
// session, every rule and the model-assisted check, as Gemini CLI 0.61's
// loop-detected dialog does when the user chooses "Disable loop detection
// for this session" (loopDetectionService.disableForSession). It is safe
// from any goroutine; a prompt already running keeps its detector, and the
// next Send or Resume runs without one. Nothing is written to settings:
// a new session detects loops again unless model.disableLoopDetection is
// set. An Observer that is a LoopDisableObserver is told, once.
func (s *Session) DisableLoopDetection() {
	if s.loopsOff.Swap(true) {
		return
	}
	if obs, ok := s.cfg.Observer.(LoopDisableObserver); ok {
		s.mu.Lock()
		id := s.promptID(s.prompts)
		s.mu.Unlock()
		obs.LoopDetectionDisabled(context.Background(), s.cfg.SessionID, id)
	}
}

// LoopDetectionDisabled reports whether loop detection is off for this
// session, by Config.DisableLoopDetection or DisableLoopDetection.
func (s *Session) LoopDetectionDisabled() bool {
	return s.cfg.DisableLoopDetection || s.loopsOff.Load()
}

// promptID is the id of the session's n-th prompt, as Gemini CLI makes
// them: the session id, eight '#' and the count.
func (s *Session) promptID(n int) string {
	return fmt.Sprintf("%s########%d", s.cfg.SessionID, n)
}
