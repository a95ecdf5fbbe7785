package agent

// AddStats adds another engine session's counts to s's stats: a subagent
// runs a session of its own, and Gemini CLI counts what it does in the
// session that invoked it (its model calls under their model with role
// "subagent", its tool calls and changed lines with the others'). The
// requests from's main loop made are counted under role mainRole; the
// utility calls it made (compression…) keep their role.
func (s *Session) AddStats(from Stats, mainRole string) {
	r := s.stats
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, fm := range from.Models {
		m := r.model(name)
		m.API.TotalRequests += fm.API.TotalRequests
		m.API.TotalErrors += fm.API.TotalErrors
		m.API.TotalLatencyMs += fm.API.TotalLatencyMs
		if m.API.ErrorsByType == nil {
			m.API.ErrorsByType = map[string]int{}
		}
		for k, n := range fm.API.ErrorsByType {
			m.API.ErrorsByType[k] += n
		}
		addTokens(&m.Tokens, fm.Tokens)
		for role, fr := range fm.Roles {
			if role == "main" {
				role = mainRole
			}
			rs := m.Roles[role]
			if rs == nil {
				rs = &RoleStats{}
				m.Roles[role] = rs
			}
			rs.TotalRequests += fr.TotalRequests
			rs.TotalErrors += fr.TotalErrors
			rs.TotalLatencyMs += fr.TotalLatencyMs
			addTokens(&rs.Tokens, fr.Tokens)
		}
	}
	t, ft := &r.s.Tools, from.Tools
	t.TotalCalls += ft.TotalCalls
	t.TotalSuccess += ft.TotalSuccess
	t.TotalFail += ft.TotalFail
	t.TotalDurationMs += ft.TotalDurationMs
	addDecisions(&t.TotalDecisions, ft.TotalDecisions)
	for name, fn := range ft.ByName {
		n := t.ByName[name]
		if n == nil {
			n = &ToolNameStats{}
			t.ByName[name] = n
		}
		n.Count += fn.Count
		n.Success += fn.Success
		n.Fail += fn.Fail
		n.DurationMs += fn.DurationMs
		addDecisions(&n.Decisions, fn.Decisions)
	}
	r.s.Files.TotalLinesAdded += from.Files.TotalLinesAdded
	r.s.Files.TotalLinesRemoved += from.Files.TotalLinesRemoved
}

func addTokens(t *TokenStats, f TokenStats) {
	t.Input += f.Input
	t.Prompt += f.Prompt
	t.Candidates += f.Candidates
	t.Total += f.Total
	t.Cached += f.Cached
	t.Thoughts += f.Thoughts
	t.Tool += f.Tool
	t.CacheWrite += f.CacheWrite
}

func addDecisions(d *Decisions, f Decisions) {
	d.Accept += f.Accept
	d.Reject += f.Reject
	d.Modify += f.Modify
	d.AutoAccept += f.AutoAccept
}
