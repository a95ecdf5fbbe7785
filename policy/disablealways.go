package policy

// OffersAlways reports whether faces may offer "always allow" answers
// (for the session, for a tool or server, or saved): false under
// Options.DisableAlwaysAllow. A nil engine offers them.
func (e *Engine) OffersAlways() bool {
	return e == nil || !e.noAlways
}

// withoutAlwaysRules drops the rules of the "always allow" priority
// (x.950 in any tier): Gemini CLI's policy engine skips them when always
// allow is disabled, so a rule saved by an earlier "allow always and
// save" answer stops applying too.
func withoutAlwaysRules(rules []Rule) []Rule {
	out := rules[:0:0]
	for _, r := range rules {
		if r.priority%1000 != alwaysPriority {
			out = append(out, r)
		}
	}
	return out
}
