package agent

import (
	"testing"
	"time"

	"github.com/castor-dev/castor/tool"
)

// TestToolCallStats: each call counts once in the totals and under its
// tool's name, as a success or a failure, with its duration, its
// decision, and the lines a successful edit changed.
func TestToolCallStats(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	call := func(name string, st Status, ms int, res *tool.Result) *ToolCall {
		return &ToolCall{Name: name, Status: st, Started: start, Ended: start.Add(time.Duration(ms) * time.Millisecond), Result: res}
	}
	edit := &tool.Result{Diff: &tool.FileDiff{DiffStat: &tool.DiffStat{ModelAddedLines: 3, ModelRemovedLines: 1, UserAddedLines: 1, UserRemovedLines: 2}}}
	r := newStatsRecorder()
	r.addToolCall(call("read", StatusSuccess, 10, nil), "auto_accept")
	r.addToolCall(call("read", StatusError, 5, nil), "auto_accept")
	r.addToolCall(call("read", StatusSuccess, 1, nil), "accept")
	r.addToolCall(call("edit", StatusSuccess, 20, edit), "modify")
	r.addToolCall(call("edit", StatusCancelled, 0, edit), "reject")
	got := r.snapshot()
	ts := got.Tools
	if ts.TotalCalls != 5 || ts.TotalSuccess != 3 || ts.TotalFail != 2 || ts.TotalDurationMs != 36 {
		t.Errorf("totals %s", mustJSON(ts))
	}
	if d := ts.TotalDecisions; d.Accept != 3 || d.Reject != 1 || d.Modify != 1 {
		t.Errorf("decisions %s", mustJSON(d))
	}
	want := map[string]ToolNameStats{
		"read": {Count: 3, Success: 2, Fail: 1, DurationMs: 16, Decisions: Decisions{Accept: 3}},
		"edit": {Count: 2, Success: 1, Fail: 1, DurationMs: 20, Decisions: Decisions{Reject: 1, Modify: 1}},
	}
	for name, w := range want {
		if n := ts.ByName[name]; n == nil || mustJSON(*n) != mustJSON(w) {
			t.Errorf("%s: %s, want %s", name, mustJSON(n), mustJSON(w))
		}
	}
	// Only the edit that succeeded changed lines.
	if got.Files.TotalLinesAdded != 4 || got.Files.TotalLinesRemoved != 3 {
		t.Errorf("files %s", mustJSON(got.Files))
	}
}
