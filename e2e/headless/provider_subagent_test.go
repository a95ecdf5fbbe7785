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
