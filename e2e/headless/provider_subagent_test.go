package headless_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/fakeopenai"
)

// TestProviderModelInSubagents: a subagent whose front matter names a
// provider's model (model: local/qwen3), the user's own and an
// extension's, runs on that provider while the main loop stays on
// Gemini.
func TestProviderModelInSubagents(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "complete_task", Args: map[string]any{"result": "looked locally"}}),
		fakeopenai.Calls(fakeopenai.Call{Name: "complete_task", Args: map[string]any{"result": "checked locally"}}),
	)
	e.WriteUserSettings(`{"providers": {"local": {"baseUrl": "` + srv.URL + `/v1"}}}`)
	e2etest.WriteAt(t, filepath.Join(e.Home, ".gemini", "agents", "looker.md"),
		"---\nname: looker\ndescription: Looks at code.\nmodel: local/qwen3\ntools: [read_file]\n---\nLook: ${query}\n")
	ext := filepath.Join(e.Home, ".gemini", "extensions", "kit")
	e2etest.WriteAt(t, filepath.Join(ext, "gemini-extension.json"), `{"name": "kit", "version": "1.0.0"}`)
	e2etest.WriteAt(t, filepath.Join(ext, "agents", "checker.md"),
		"---\nname: checker\ndescription: Checks work.\nmodel: local/qwen3\ntools: [read_file]\n---\nYou check work.\n")
	e.Srv.Enqueue(
		fakegemini.Call("invoke_agent", map[string]any{"agent_name": "looker", "prompt": "Look at main.go"}),
		fakegemini.Call("invoke_agent", map[string]any{"agent_name": "checker", "prompt": "Check it"}),
		fakegemini.Text("Both done."),
	)
	r := e.Run("-m", "gemini-2.5-flash", "-y", "-p", "look and check")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Both done.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	e2etest.CheckServed(t, e, srv, "qwen3", 2, 3)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.FailNow()
	}
	if !strings.Contains(string(reqs[0].Body), "Look at main.go") || !strings.Contains(string(reqs[1].Body), "Check it") {
		t.Errorf("the provider's requests are not the subagents'")
	}
	if !strings.Contains(e2etest.MustJSON(e.Srv.LastRequest().Contents), "checked locally") {
		t.Errorf("the main loop did not get the extension's subagent's result")
	}
}

// TestProviderSubagentWindowCompresses: a subagent on a provider model
// compresses its own history against that model's contextWindow, as the
// main loop does, not against Gemini's million tokens.
func TestProviderSubagentWindowCompresses(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write("README.md", e2etest.Readme)
	read := fakeopenai.Calls(fakeopenai.Call{Name: "read_file", Args: map[string]any{"file_path": filepath.Join(e.WS, "README.md")}})
	srv := fakeopenai.Start(t,
		read, read, read,
		// An answer without complete_task: the subagent is told to call
		// it, a new prompt of its history, where the history can split.
		fakeopenai.Text("I have read it."),
		fakeopenai.Text("<state_snapshot>read the README three times</state_snapshot>"),
		fakeopenai.Calls(fakeopenai.Call{Name: "complete_task", Args: map[string]any{"result": "read it"}}),
	)
	e.WriteUserSettings(`{"providers": {"local": {"baseUrl": "` + srv.URL + `/v1", "models": {"small": {"contextWindow": 2000}}}}}`)
	e2etest.WriteAt(t, filepath.Join(e.Home, ".gemini", "agents", "reader.md"),
		"---\nname: reader\ndescription: Reads files.\nmodel: local/small\ntools: [read_file]\n---\nRead: ${query}\n")
	e.Srv.Enqueue(
		fakegemini.Call("invoke_agent", map[string]any{"agent_name": "reader", "prompt": "Read the README"}),
		fakegemini.Text("Read."),
	)
	r := e.Run("-m", "gemini-2.5-flash", "-y", "-p", "read the readme")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Read.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var asked []string
	for _, rq := range srv.Requests() {
		asked = append(asked, map[bool]string{true: "summary", false: "turn"}[strings.Contains(string(rq.Body), "summarizes an agent's conversation history")])
	}
	// Each request of the subagent is past half of its 2,000-token
	// window; once its history has a prompt to split at, the part before
	// it is summarised.
	if got := strings.Join(asked, ","); got != "turn,turn,turn,turn,summary,turn" {
		t.Errorf("the subagent's requests: %s", got)
	}
	if !strings.Contains(e2etest.MustJSON(e.Srv.LastRequest().Contents), "read it") {
		t.Errorf("the main loop did not get the subagent's result")
	}
}
