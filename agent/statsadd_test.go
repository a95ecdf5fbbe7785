package agent

import (
	"errors"
	"testing"
	"time"

	"google.golang.org/genai"
)

// TestAddStats: a subagent's counts join the session's: its main-loop
// requests under the given role, its utility calls under theirs, its
// tool calls, decisions and changed lines added to the session's.
func TestAddStats(t *testing.T) {
	usage := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 5, TotalTokenCount: 15, CachedContentTokenCount: 2}
	parent, sub := newStatsRecorder(), newStatsRecorder()
	parent.request("m1", "main", time.Millisecond, usage, nil)
	parent.toolCall(&ToolCall{Name: "invoke_agent", Status: StatusSuccess}, "auto_accept")
	sub.request("m1", "main", time.Millisecond, usage, nil)
	sub.request("m1", "main", time.Millisecond, nil, errors.New("boom"))
	sub.request("m2", "utility_compressor", time.Millisecond, usage, nil)
	sub.toolCall(&ToolCall{Name: "read_file", Status: StatusSuccess}, "auto_accept")
	sub.toolCall(&ToolCall{Name: "complete_task", Status: StatusSuccess}, "auto_accept")
	sub.toolCall(&ToolCall{Name: "read_file", Status: StatusError}, "reject")
	sub.s.Files.TotalLinesAdded = 3

	s := &Session{stats: parent}
	s.AddStats(sub.snapshot(), "subagent")
	got := s.Stats()

	m1 := got.Models["m1"]
	tests := []struct {
		name      string
		got, want int64
	}{
		{"m1 requests", int64(m1.API.TotalRequests), 3},
		{"m1 errors", int64(m1.API.TotalErrors), 1},
		{"m1 errorsByType", int64(m1.API.ErrorsByType[errorTypeName(errors.New(""))]), 1},
		{"m1 prompt tokens", m1.Tokens.Prompt, 20},
		{"m1 input tokens", m1.Tokens.Input, 16},
		{"m1 main requests", int64(m1.Roles["main"].TotalRequests), 1},
		{"m1 subagent requests", int64(m1.Roles["subagent"].TotalRequests), 2},
		{"m1 subagent errors", int64(m1.Roles["subagent"].TotalErrors), 1},
		{"m1 subagent total tokens", m1.Roles["subagent"].Tokens.Total, 15},
		{"m2 compressor requests", int64(got.Models["m2"].Roles["utility_compressor"].TotalRequests), 1},
		{"tool calls", int64(got.Tools.TotalCalls), 4},
		{"tool successes", int64(got.Tools.TotalSuccess), 3},
		{"tool failures", int64(got.Tools.TotalFail), 1},
		{"accepted", int64(got.Tools.TotalDecisions.Accept), 3},
		{"rejected", int64(got.Tools.TotalDecisions.Reject), 1},
		{"read_file calls", int64(got.Tools.ByName["read_file"].Count), 2},
		{"read_file rejected", int64(got.Tools.ByName["read_file"].Decisions.Reject), 1},
		{"complete_task calls", int64(got.Tools.ByName["complete_task"].Count), 1},
		{"lines added", int64(got.Files.TotalLinesAdded), 3},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
	if _, ok := got.Models["m2"].Roles["subagent"]; ok {
		t.Error("a utility call was counted as the subagent's")
	}
}
