package policy

import "slices"

// Rules returns the policy-file rules in force, highest priority first,
// for listings (the terminal's /policies).
func (e *Engine) Rules() []Rule {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return slices.Clone(e.rules)
}

// Modes are the approval modes the rule applies in; none means all.
func (r Rule) Modes() []Mode { return slices.Clone(r.modes) }
