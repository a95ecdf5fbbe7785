package headless_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestSubagentStatsJSON: what a subagent does is counted in the -o json
// stats, as Gemini CLI counts it: its model calls under the model with
// role "subagent" beside the main loop's, its tool calls (complete_task
// included) with the main model's.
func TestSubagentStatsJSON(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WithReviewer(t, e)
	e.Srv.Enqueue(
		fakegemini.Call("invoke_agent", map[string]any{"agent_name": "reviewer", "prompt": "Review main.go"}),
		fakegemini.Call("read_file", map[string]any{"absolute_path": filepath.Join(e.WS, "main.go")}),
		fakegemini.Call("complete_task", map[string]any{"result": "Empty main package."}),
		fakegemini.Text("Reviewed."),
	)
	// A named model: no router calls beside the main loop's and the
	// subagent's.
	r := e.Run("-m", "gemini-2.5-flash", "-o", "json", "-p", "Review my code")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var out struct {
		Stats agent.Stats `json:"stats"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatal(err)
	}
	m := out.Stats.Models[fakegemini.DefaultModelVersion]
	if m == nil || len(out.Stats.Models) != 1 {
		t.Fatalf("models %s", e2etest.MustJSON(out.Stats.Models))
	}
	main, sub := m.Roles["main"], m.Roles["subagent"]
	if main == nil || sub == nil {
		t.Fatalf("roles %s", e2etest.MustJSON(m.Roles))
	}
	tools := out.Stats.Tools
	tests := []struct {
		name      string
		got, want int64
	}{
		{"api.totalRequests", int64(m.API.TotalRequests), 4},
		{"roles.main.totalRequests", int64(main.TotalRequests), 2},
		{"roles.subagent.totalRequests", int64(sub.TotalRequests), 2},
		{"tokens.total = main + subagent", m.Tokens.Total, main.Tokens.Total + sub.Tokens.Total},
		{"tokens.prompt = main + subagent", m.Tokens.Prompt, main.Tokens.Prompt + sub.Tokens.Prompt},
		{"tools.totalCalls", int64(tools.TotalCalls), 3},
		{"tools.totalSuccess", int64(tools.TotalSuccess), 3},
		{"tools.totalDecisions.accept", int64(tools.TotalDecisions.Accept), 3},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
	if sub.Tokens.Total == 0 {
		t.Error("the subagent's tokens were not counted")
	}
	for _, name := range []string{"invoke_agent", "read_file", "complete_task"} {
		if n := tools.ByName[name]; n == nil || n.Count != 1 || n.Success != 1 {
			t.Errorf("tools.byName.%s = %s", name, e2etest.MustJSON(n))
		}
	}
}

// TestSubagentThinkingUnderAuto: a subagent that inherits the "auto"
// model gets the thinking config of the model auto stands for, as the
// main loop does, not none.
func TestSubagentThinkingUnderAuto(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteAt(t, filepath.Join(e.Home, ".gemini", "agents", "helper.md"),
		"---\nname: helper\ndescription: Helps.\ntools: []\n---\nHelp with: ${query}\n")
	e.Srv.Enqueue(
		fakegemini.Call("invoke_agent", map[string]any{"agent_name": "helper", "prompt": "help"}),
		fakegemini.Call("complete_task", map[string]any{"result": "helped"}),
		fakegemini.Text("Done."),
	)
	if r := e.Run("-o", "json", "-p", "get help"); r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var main, sub *fakegemini.Request
	for _, req := range e.Srv.Requests() {
		switch {
		case req.IsRoute():
		case main == nil:
			main = req
		case sub == nil:
			sub = req
		}
	}
	if sub == nil || sub.GenerationConfig == nil || main.GenerationConfig == nil {
		t.Fatalf("requests %s", e2etest.MustJSON(e.Srv.Requests()))
	}
	if got, want := e2etest.MustJSON(sub.GenerationConfig.ThinkingConfig), e2etest.MustJSON(main.GenerationConfig.ThinkingConfig); got != want || got == "null" {
		t.Errorf("subagent thinkingConfig %s, main loop's %s", got, want)
	}
}
