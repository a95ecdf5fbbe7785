package agent

// DisableLoopDetection turns loop detection off for the rest of the
// session, every rule and the model-assisted check, as Gemini CLI 0.61's
// loop-detected dialog does when the user chooses "Disable loop detection
// for this session" (loopDetectionService.disableForSession). It is safe
// from any goroutine; a prompt already running keeps its detector, and the
// next Send or Resume runs without one. Nothing is written to settings:
// a new session detects loops again unless model.disableLoopDetection is
// set.
func (s *Session) DisableLoopDetection() {
	s.loopsOff.Store(true)
}

// LoopDetectionDisabled reports whether loop detection is off for this
// session, by Config.DisableLoopDetection or DisableLoopDetection.
func (s *Session) LoopDetectionDisabled() bool {
	return s.cfg.DisableLoopDetection || s.loopsOff.Load()
}
