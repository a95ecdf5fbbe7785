package subagents

import (
	"context"
	"iter"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// onRequest calls before with the number of requests made before this one.
type onRequest struct {
	model.Model
	n      int
	before func(n int)
}

func (o *onRequest) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	o.before(o.n)
	o.n++
	return o.Model.GenerateContentStream(ctx, req)
}

// TestStatsCountedLive: a running subagent's model and tool calls are in
// the invoking session's stats as they happen (Gemini CLI's /stats shows
// them mid-run), and once only when it ends.
func TestStatsCountedLive(t *testing.T) {
	parentSess := agent.New(agent.Config{Model: fake.Script(), ModelName: "parent"})
	type seen struct{ requests, subagentRequests, echoCalls int }
	count := func() seen {
		st := parentSess.Stats()
		var s seen
		if m := st.Models["gemini-test"]; m != nil {
			s.requests = m.API.TotalRequests
			if r := m.Roles["subagent"]; r != nil {
				s.subagentRequests = r.TotalRequests
			}
		}
		if e := st.Tools.ByName["echo"]; e != nil {
			s.echoCalls = e.Count
		}
		return s
	}
	var mid []seen
	m := &onRequest{
		Model: fake.Script(
			fake.Call("echo", nil),
			fake.Call("echo", nil),
			fake.Call(CompleteTaskName, map[string]any{"result": "done"}),
		),
		before: func(int) { mid = append(mid, count()) },
	}
	reg := tool.NewRegistry(echoTool{})
	r := &Runner{
		Model: m, ModelName: func() string { return "gemini-test" }, Tools: reg,
		Policy:   policy.New(policy.Options{}),
		AddStats: func(st agent.Stats) { parentSess.AddStats(st, "subagent") },
	}
	it := NewTool([]*Definition{{Name: "a", Description: "d", SystemPrompt: "p"}}, r)
	reg.Register(it)
	if res := invoke(t, it, "a", "go"); res.Error != nil {
		t.Fatalf("run: %v", res.Error)
	}
	// Before each model call: the earlier calls and the echo each made.
	want := []seen{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}}
	if len(mid) != len(want) {
		t.Fatalf("%d model calls, want %d", len(mid), len(want))
	}
	for i := range want {
		if mid[i] != want[i] {
			t.Errorf("before model call %d the parent counted %+v, want %+v", i+1, mid[i], want[i])
		}
	}
	end := parentSess.Stats()
	if got := count(); got != (seen{3, 3, 2}) {
		t.Errorf("after the run the parent counted %+v, want 3 requests and 2 echo calls", got)
	}
	if n := end.Tools.ByName[CompleteTaskName]; n == nil || n.Count != 1 || end.Tools.TotalCalls != 3 {
		t.Errorf("tool calls %+v", end.Tools)
	}
}
