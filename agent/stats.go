package agent

import (
	"sync"
	"time"

	"github.com/castor-dev/castor/model"

	"google.golang.org/genai"
)

// Stats are a session's metrics in Gemini CLI's SessionMetrics shape, so
// `-o json` output matches it key for key.
type Stats struct {
	Models map[string]*ModelStats `json:"models"`
	Tools  ToolStats              `json:"tools"`
	Files  FileStats              `json:"files"`
}

// ModelStats are the metrics of one model version.
type ModelStats struct {
	API    APIStats              `json:"api"`
	Tokens TokenStats            `json:"tokens"`
	Roles  map[string]*RoleStats `json:"roles"`
}

// APIStats count requests to a model.
type APIStats struct {
	TotalRequests  int   `json:"totalRequests"`
	TotalErrors    int   `json:"totalErrors"`
	TotalLatencyMs int64 `json:"totalLatencyMs"`
	// ErrorsByType is always written ({} when none), as Gemini CLI 0.61.
	ErrorsByType map[string]int `json:"errorsByType"`
}

// TokenStats count tokens.
type TokenStats struct {
	Input      int64 `json:"input"`
	Prompt     int64 `json:"prompt"`
	Candidates int64 `json:"candidates"`
	Total      int64 `json:"total"`
	Cached     int64 `json:"cached"`
	Thoughts   int64 `json:"thoughts"`
	Tool       int64 `json:"tool"`
	// CacheWrite counts prompt tokens written to the provider's prompt
	// cache (Anthropic's, priced above input); absent for Gemini, so
	// stats stay Gemini CLI's.
	CacheWrite int64 `json:"cacheWrite,omitempty"`
}

// RoleStats are the metrics of one role (the main loop, a utility call).
type RoleStats struct {
	TotalRequests  int        `json:"totalRequests"`
	TotalErrors    int        `json:"totalErrors"`
	TotalLatencyMs int64      `json:"totalLatencyMs"`
	Tokens         TokenStats `json:"tokens"`
}

// ToolStats count tool calls.
type ToolStats struct {
	TotalCalls      int                       `json:"totalCalls"`
	TotalSuccess    int                       `json:"totalSuccess"`
	TotalFail       int                       `json:"totalFail"`
	TotalDurationMs int64                     `json:"totalDurationMs"`
	TotalDecisions  Decisions                 `json:"totalDecisions"`
	ByName          map[string]*ToolNameStats `json:"byName"`
}

// Decisions count how calls were approved.
type Decisions struct {
	Accept     int `json:"accept"`
	Reject     int `json:"reject"`
	Modify     int `json:"modify"`
	AutoAccept int `json:"auto_accept"`
}

// ToolNameStats count the calls of one tool.
type ToolNameStats struct {
	Count      int       `json:"count"`
	Success    int       `json:"success"`
	Fail       int       `json:"fail"`
	DurationMs int64     `json:"durationMs"`
	Decisions  Decisions `json:"decisions"`
}

// FileStats count lines changed by edit tools.
type FileStats struct {
	TotalLinesAdded   int `json:"totalLinesAdded"`
	TotalLinesRemoved int `json:"totalLinesRemoved"`
}

type statsRecorder struct {
	mu sync.Mutex
	s  Stats
	// forward, when set, is given each recorded event's counts
	// (statslive.go).
	forward func(Stats)
}

func newStatsRecorder() *statsRecorder {
	return &statsRecorder{s: Stats{Models: map[string]*ModelStats{}, Tools: ToolStats{ByName: map[string]*ToolNameStats{}}}}
}

func (r *statsRecorder) model(name string) *ModelStats {
	m := r.s.Models[name]
	if m == nil {
		m = &ModelStats{Roles: map[string]*RoleStats{}, API: APIStats{ErrorsByType: map[string]int{}}}
		r.s.Models[name] = m
	}
	return m
}

func (r *statsRecorder) addRequest(modelName, role string, latency time.Duration, usage *genai.GenerateContentResponseUsageMetadata, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.model(modelName)
	rs := m.Roles[role]
	if rs == nil {
		rs = &RoleStats{}
		m.Roles[role] = rs
	}
	ms := latency.Milliseconds()
	m.API.TotalRequests++
	m.API.TotalLatencyMs += ms
	rs.TotalRequests++
	rs.TotalLatencyMs += ms
	if err != nil {
		m.API.TotalErrors++
		rs.TotalErrors++
		if m.API.ErrorsByType == nil {
			m.API.ErrorsByType = map[string]int{}
		}
		m.API.ErrorsByType[errorTypeName(err)]++
		return
	}
	if usage != nil {
		addUsage(&m.Tokens, usage)
		addUsage(&rs.Tokens, usage)
	}
}

func addUsage(t *TokenStats, u *genai.GenerateContentResponseUsageMetadata) {
	t.Prompt += int64(u.PromptTokenCount)
	t.Candidates += int64(u.CandidatesTokenCount)
	t.Total += int64(u.TotalTokenCount)
	t.Cached += int64(u.CachedContentTokenCount)
	t.Thoughts += int64(u.ThoughtsTokenCount)
	t.Tool += int64(u.ToolUsePromptTokenCount)
	t.CacheWrite += int64(model.CacheWriteTokens(u))
	t.Input += int64(u.PromptTokenCount - u.CachedContentTokenCount)
}

func (r *statsRecorder) addToolCall(c *ToolCall, decision string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &r.s.Tools
	n := t.ByName[c.Name]
	if n == nil {
		n = &ToolNameStats{}
		t.ByName[c.Name] = n
	}
	d := c.Ended.Sub(c.Started).Milliseconds()
	t.TotalCalls++
	n.Count++
	t.TotalDurationMs += d
	n.DurationMs += d
	if c.Status == StatusSuccess {
		t.TotalSuccess++
		n.Success++
	} else {
		t.TotalFail++
		n.Fail++
	}
	for _, ds := range []*Decisions{&t.TotalDecisions, &n.Decisions} {
		switch decision {
		case "accept":
			ds.Accept++
		case "reject":
			ds.Reject++
		case "modify":
			ds.Modify++
		case "auto_accept":
			// Gemini CLI 0.61 counts a call that needed no confirmation
			// (policy allowed it, --yolo) as accepted.
			ds.Accept++
		}
	}
	if c.Status == StatusSuccess && c.Result != nil && c.Result.Diff != nil && c.Result.Diff.DiffStat != nil {
		st := c.Result.Diff.DiffStat
		r.s.Files.TotalLinesAdded += st.ModelAddedLines + st.UserAddedLines
		r.s.Files.TotalLinesRemoved += st.ModelRemovedLines + st.UserRemovedLines
	}
}

func (r *statsRecorder) snapshot() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := Stats{Models: map[string]*ModelStats{}, Tools: r.s.Tools, Files: r.s.Files}
	for k, v := range r.s.Models {
		cp := *v
		cp.API.ErrorsByType = map[string]int{}
		for ek, ev := range v.API.ErrorsByType {
			cp.API.ErrorsByType[ek] = ev
		}
		cp.Roles = map[string]*RoleStats{}
		for rk, rv := range v.Roles {
			rc := *rv
			cp.Roles[rk] = &rc
		}
		out.Models[k] = &cp
	}
	out.Tools.ByName = map[string]*ToolNameStats{}
	for k, v := range r.s.Tools.ByName {
		cp := *v
		out.Tools.ByName[k] = &cp
	}
	return out
}
