package tools_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestEveryBuiltinTool runs the binary through one session in which the
// model calls every built-in tool once, in YOLO mode. The tools that ask
// the model themselves (web_fetch, google_web_search) are answered from
// the same queue, in order. Every call must succeed and the session must
// end normally.
func TestEveryBuiltinTool(t *testing.T) {
	t.Parallel()
	const page = "<html><head><title>Castor</title></head><body><h1>Local page</h1><p>The fetched body text.</p></body></html>"
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer web.Close()

	e := e2etest.New(t)
	e.Write("README.md", e2etest.Readme)
	// The page is on 127.0.0.1, which web_fetch refuses unless the user
	// allows private addresses.
	settings := filepath.Join(e.Home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"tools":{"webFetch":{"allowPrivateAddresses":true}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(e.WS, "notes.txt")
	calls := []struct {
		name string
		args map[string]any
		// aux are the answers to the tool's own model calls.
		aux []fakegemini.Reply
	}{
		{"read_file", map[string]any{"absolute_path": filepath.Join(e.WS, "README.md")}, nil},
		{"write_file", map[string]any{"file_path": notes, "content": "alpha\nbeta\n"}, nil},
		{"replace", map[string]any{"file_path": notes, "old_string": "alpha", "new_string": "gamma"}, nil},
		{"smart_edit", map[string]any{"file_path": notes, "instruction": "Rename beta to delta.", "old_string": "beta", "new_string": "delta"}, nil},
		{"list_directory", map[string]any{"path": e.WS}, nil},
		{"glob", map[string]any{"pattern": "**/*.txt"}, nil},
		{"search_file_content", map[string]any{"pattern": "gam+a"}, nil},
		{"read_many_files", map[string]any{"paths": []any{"*.md", "notes.txt"}}, nil},
		{"run_shell_command", map[string]any{"command": "echo shell-ok", "description": "Say ok."}, nil},
		{"web_fetch", map[string]any{"prompt": "Summarize " + web.URL + "/page please."}, []fakegemini.Reply{
			// The urlContext attempt comes back empty, so the page is
			// fetched locally and given to the model.
			fakegemini.Text(""),
			fakegemini.Text("The page is about Castor."),
		}},
		{"google_web_search", map[string]any{"query": "castor gemini cli"}, []fakegemini.Reply{
			fakegemini.Text("Castor re-implements Gemini CLI in Go."),
		}},
		{"save_memory", map[string]any{"fact": "I prefer tea."}, nil},
		{"write_todos", map[string]any{"todos": []any{map[string]any{"description": "Ship it", "status": "in_progress"}}}, nil},
	}
	for _, c := range calls {
		e.Srv.Enqueue(fakegemini.Call(c.name, c.args))
		e.Srv.Enqueue(c.aux...)
	}
	e.Srv.Enqueue(fakegemini.Text("All tools ran."))

	r := e.Run("-y", "-o", "json", "-p", "Use every tool once")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var out struct {
		Response string `json:"response"`
		Stats    struct {
			Tools struct {
				TotalCalls   int `json:"totalCalls"`
				TotalSuccess int `json:"totalSuccess"`
			} `json:"tools"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.Stdout)
	}
	if out.Response != "All tools ran." || out.Stats.Tools.TotalCalls != len(calls) || out.Stats.Tools.TotalSuccess != len(calls) {
		t.Errorf("response %q, tool stats %+v", out.Response, out.Stats.Tools)
	}
	if n := e.Srv.Pending(); n != 0 {
		t.Errorf("%d scripted replies were never asked for", n)
	}

	// The last request carries every call's response: none may be an error.
	seen := map[string]bool{}
	for _, c := range e.Srv.LastRequest().Contents {
		for _, p := range c.Parts {
			fr := p.FunctionResponse
			if fr == nil {
				continue
			}
			seen[fr.Name] = true
			if msg, bad := fr.Response["error"]; bad {
				t.Errorf("%s failed: %v", fr.Name, msg)
			}
		}
	}
	var missing []string
	for _, c := range calls {
		if !seen[c.name] {
			missing = append(missing, c.name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no response from %v", missing)
	}

	// The tools did what they said.
	if got, _ := os.ReadFile(notes); string(got) != "gamma\ndelta\n" {
		t.Errorf("notes.txt = %q", got)
	}
	if mem, _ := os.ReadFile(filepath.Join(e.Home, ".gemini", "GEMINI.md")); !strings.Contains(string(mem), "- I prefer tea.") {
		t.Errorf("GEMINI.md = %q", mem)
	}
	fetched := false
	for _, req := range e.Srv.Requests() {
		if len(req.Contents) == 0 {
			continue
		}
		if last := req.Contents[len(req.Contents)-1]; len(last.Parts) > 0 && strings.Contains(last.Parts[0].Text, "The fetched body text.") {
			fetched = true
		}
	}
	if !fetched {
		t.Error("web_fetch never gave the locally fetched page to the model")
	}
	for _, want := range []struct{ name, text string }{
		{"run_shell_command", "shell-ok"},
		{"search_file_content", "L1: gamma"},
		{"google_web_search", "Castor re-implements Gemini CLI in Go."},
	} {
		if !responseContains(e, want.name, want.text) {
			t.Errorf("%s response lacks %q", want.name, want.text)
		}
	}
}

// responseContains reports whether the functionResponse of the named tool
// in the last request mentions text.
func responseContains(e *e2etest.Env, name, text string) bool {
	for _, c := range e.Srv.LastRequest().Contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil && fr.Name == name && strings.Contains(e2etest.MustJSON(fr.Response), text) {
				return true
			}
		}
	}
	return false
}
