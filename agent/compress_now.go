package agent

import (
	"context"
	"errors"
)

// ErrNothingToCompress is returned by Compress when history holds no
// older part to summarise (Gemini CLI's NOOP).
var ErrNothingToCompress = errors.New("nothing to compress: the conversation is too short")

// Compress summarises the older part of the conversation now, whatever
// its size, as Gemini CLI's /compress does: PreCompress hooks fire with
// trigger "manual", and the result says how many tokens history took
// before and after. A status other than COMPRESSED means history was left
// as it was. It fails with ErrBusy while a turn runs.
func (s *Session) Compress(ctx context.Context) (*CompressionInfo, error) {
	if !s.turn.TryLock() {
		return nil, ErrBusy
	}
	defer s.turn.Unlock()
	s.mu.Lock()
	used := s.lastPrompt
	if used == 0 {
		used = estimateTokens(s.hist)
	}
	empty := len(s.hist) == 0
	s.mu.Unlock()
	// Hook messages and warnings produced here are shown with the next
	// turn, as other events outside a turn are.
	var events []*Event
	r := s.newRun(ctx, func(ev *Event, _ error) bool {
		if ev != nil && ev.Type != EventCompressed {
			events = append(events, ev)
		}
		return true
	})
	r.promptID = s.cfg.SessionID + "########compress"
	if !empty {
		// Gemini CLI fires PreCompress for every attempt on a history
		// that is not empty, before anything else is decided.
		r.preCompress("manual")
	}
	info, err := r.compress(used)
	if err != nil && len(events) > 0 {
		events = events[:len(events)-1] // the failure, which err reports
	}
	s.mu.Lock()
	s.notices = append(s.notices, events...)
	s.mu.Unlock()
	if err != nil {
		return info, err
	}
	if info == nil {
		return nil, ErrNothingToCompress
	}
	return info, nil
}
