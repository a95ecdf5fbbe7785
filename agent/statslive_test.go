package agent

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/tool"
)

// TestStatsForwardedLive: Config.OnStats gets each request and tool call
// as it is recorded, one event per Stats, and the forwarded events add up
// to the session's own stats exactly: nothing lost, nothing counted
// twice.
func TestStatsForwardedLive(t *testing.T) {
	usage := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 5, TotalTokenCount: 15, CachedContentTokenCount: 2, ThoughtsTokenCount: 1}
	edit := &ToolCall{Name: "replace", Status: StatusSuccess, Started: time.Unix(0, 0), Ended: time.Unix(0, int64(3*time.Millisecond)),
		Result: &tool.Result{Diff: &tool.FileDiff{DiffStat: &tool.DiffStat{ModelAddedLines: 2, ModelRemovedLines: 1}}}}
	events := []struct {
		name   string
		record func(r *statsRecorder)
		// want is what the event adds: requests, tool calls.
		requests, calls int
	}{
		{"main request", func(r *statsRecorder) { r.request("m1", "main", time.Millisecond, usage, nil) }, 1, 0},
		{"failed request", func(r *statsRecorder) { r.request("m1", "main", 2*time.Millisecond, nil, errors.New("boom")) }, 1, 0},
		{"utility request", func(r *statsRecorder) { r.request("m2", "utility_compressor", time.Millisecond, usage, nil) }, 1, 0},
		{"tool call", func(r *statsRecorder) { r.toolCall(&ToolCall{Name: "read_file", Status: StatusSuccess}, "auto_accept") }, 0, 1},
		{"edit", func(r *statsRecorder) { r.toolCall(edit, "accept") }, 0, 1},
		{"refused call", func(r *statsRecorder) { r.toolCall(&ToolCall{Name: "read_file", Status: StatusError}, "reject") }, 0, 1},
	}
	var got []Stats
	sub := newStatsRecorder()
	sub.forward = func(s Stats) { got = append(got, s) }
	sum := &Session{stats: newStatsRecorder()}
	for i, ev := range events {
		ev.record(sub)
		if len(got) != i+1 {
			t.Fatalf("%s: %d events forwarded, want %d", ev.name, len(got), i+1)
		}
		one := got[i]
		requests := 0
		for _, m := range one.Models {
			requests += m.API.TotalRequests
		}
		if requests != ev.requests || one.Tools.TotalCalls != ev.calls {
			t.Errorf("%s: forwarded %d requests and %d calls, want %d and %d", ev.name, requests, one.Tools.TotalCalls, ev.requests, ev.calls)
		}
		sum.AddStats(one, "main")
	}
	if d := cmp.Diff(sub.snapshot(), sum.Stats()); d != "" {
		t.Errorf("forwarded events do not add up to the session's stats (-session +sum):\n%s", d)
	}
}
