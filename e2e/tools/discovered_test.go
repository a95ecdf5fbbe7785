package tools_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// discoveredEnv is a user whose project declares its own tools through
// tools.discoveryCommand, in the project's settings.
func discoveredEnv(t *testing.T, discover string) *e2etest.Env {
	t.Helper()
	e := e2etest.New(t)
	for name, content := range map[string]string{
		"tools/discover.sh": "#!/bin/sh\n" + discover + "\n",
		// The call command greets whom its JSON stdin names and says
		// where it ran.
		"tools/call.sh": "#!/bin/sh\n[ \"$1\" = greet ] || { echo \"no tool $1\" >&2; exit 2; }\n" +
			"who=$(sed 's/.*\"who\":\"\\([^\"]*\\)\".*/\\1/')\nprintf 'Hello, %s! (in %s)' \"$who\" \"$(basename \"$PWD\")\"\n",
		".gemini/settings.json": `{"tools": {"discoveryCommand": "./tools/discover.sh", "callCommand": "./tools/call.sh"}}`,
	} {
		path := filepath.Join(e.WS, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

const greetDeclarations = `echo '[{"functionDeclarations": [{"name": "greet", "description": "Greets someone.",
  "parametersJsonSchema": {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}}]}]'`

// TestDiscoveredToolE2E: a headless run declares the project's tool to
// the model, runs the call command when the model calls it (yolo), and
// the command's stdout reaches the model's next request.
func TestDiscoveredToolE2E(t *testing.T) {
	t.Parallel()
	e := discoveredEnv(t, greetDeclarations)
	e.Srv.Enqueue(
		fakegemini.Call("discovered_tool_greet", map[string]any{"who": "Ada"}),
		fakegemini.Text("Greeted."),
	)
	r := e.Run("-y", "-o", "json", "-p", "Greet Ada")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stderr, "discoveryCommand") {
		t.Errorf("stderr: %s", r.Stderr)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var decl map[string]any
	for _, d := range reqs[0].FunctionDeclarations() {
		if d.Name == "discovered_tool_greet" {
			raw, _ := json.Marshal(d)
			json.Unmarshal(raw, &decl)
		}
	}
	if decl == nil {
		t.Fatalf("discovered_tool_greet not declared: %s", e2etest.MustJSON(reqs[0].FunctionDeclarations()))
	}
	if desc, _ := decl["description"].(string); !strings.HasPrefix(desc, "Greets someone.\n\n") || !strings.Contains(desc, "`./tools/call.sh greet`") {
		t.Errorf("description %q", desc)
	}
	if got := e2etest.MustJSON(decl["parametersJsonSchema"]); got != `{"properties":{"who":{"type":"string"}},"required":["who"],"type":"object"}` {
		t.Errorf("schema %s", got)
	}
	name, resp := e2etest.FunctionResponse(t, reqs[1].LastContent(), 0)
	if want := map[string]any{"output": "Hello, Ada! (in ws)"}; name != "discovered_tool_greet" || e2etest.MustJSON(resp) != e2etest.MustJSON(want) {
		t.Errorf("functionResponse %s %s, want %s", name, e2etest.MustJSON(resp), e2etest.MustJSON(want))
	}
}

// TestDiscoveredToolE2EHeadlessDefault: without yolo a headless run
// cannot ask, so the tool is not declared at all (Gemini CLI denies
// discovered_tool_* when not interactive).
func TestDiscoveredToolE2EHeadlessDefault(t *testing.T) {
	t.Parallel()
	e := discoveredEnv(t, greetDeclarations)
	e.Srv.Enqueue(fakegemini.Text("No tools."))
	r := e.Run("-o", "json", "-p", "Greet Ada")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.Code, r.Stderr)
	}
	for _, d := range e.Srv.Requests()[0].FunctionDeclarations() {
		if strings.HasPrefix(d.Name, "discovered_tool_") {
			t.Errorf("%s declared in a headless default-mode run", d.Name)
		}
	}
}

// TestDiscoveredToolE2EFailingDiscovery: a failing discovery command is
// one line on stderr naming the setting, and the run goes on.
func TestDiscoveredToolE2EFailingDiscovery(t *testing.T) {
	t.Parallel()
	e := discoveredEnv(t, "echo 'cannot list tools' >&2; exit 5")
	e.Srv.Enqueue(fakegemini.Text("Fine."))
	r := e.Run("-y", "-p", "Hello")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Fine.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var lines []string
	for _, l := range strings.Split(r.Stderr, "\n") {
		if strings.Contains(l, "discoveryCommand") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], `tools.discoveryCommand "./tools/discover.sh" failed with exit code 5: cannot list tools`) {
		t.Errorf("stderr lines about discovery: %q\nstderr: %s", lines, r.Stderr)
	}
}

// TestDiscoveredToolE2EApproval: a session that can ask (stream-json
// input) asks about a discovered tool's call with its arguments, runs the
// command once approved, and the result reaches the model.
func TestDiscoveredToolE2EApproval(t *testing.T) {
	t.Parallel()
	e := discoveredEnv(t, greetDeclarations)
	e.Srv.Enqueue(
		fakegemini.Call("discovered_tool_greet", map[string]any{"who": "Grace"}),
		fakegemini.Text("Greeted."),
	)
	p := e.StartStream("-p", "--input-format", "stream-json", "-o", "stream-json")
	p.Send(`{"type":"user","message":"Greet Grace"}`)
	req := p.Until("permission_request")
	want := `{"prompt":"{\"who\":\"Grace\"}","title":"Confirm: discovered_tool_greet","type":"info"}`
	if req["tool_name"] != "discovered_tool_greet" || e2etest.MustJSON(req["details"]) != want {
		t.Errorf("permission_request %s, want details %s", e2etest.MustJSON(req), want)
	}
	p.Send(`{"type":"permission_response","tool_id":"` + req["tool_id"].(string) + `","decision":"proceed_once"}`)
	p.Until("result")
	if code := p.Close(); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, p.Stderr.String())
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if name, resp := e2etest.FunctionResponse(t, reqs[1].LastContent(), 0); name != "discovered_tool_greet" || resp["output"] != "Hello, Grace! (in ws)" {
		t.Errorf("functionResponse %s %s", name, e2etest.MustJSON(resp))
	}
}
