package a2a

import "time"

// retention returns how long tasks are kept after their last activity, or
// a negative duration to keep them forever (see Config.Retention); the
// host deletes expired ones at start and periodically.
func (s *Server) retention() time.Duration {
	if s.cfg.Retention == 0 {
		return DefaultRetention
	}
	return s.cfg.Retention
}
