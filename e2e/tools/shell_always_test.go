package tools_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestStreamJSONAlwaysAllowShellRedirection answers "always allow" to a
// shell command in a stream-json session: a later plain call of the same
// command runs unasked, a redirected one (printf three > out.txt) is asked
// about again, as in Gemini CLI, and runs once allowed.
func TestStreamJSONAlwaysAllowShellRedirection(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	shell := func(cmd string) fakegemini.Reply {
		return fakegemini.Call("run_shell_command", map[string]any{"command": cmd})
	}
	e.Srv.Enqueue(shell("printf one"), shell("printf two"), shell("printf three > out.txt"), fakegemini.Text("Done."))
	p := e.StartStream("-p", "--input-format", "stream-json", "-o", "stream-json")
	p.Send(`{"type":"user","message":"run printf"}`)

	command := func(req map[string]any) string {
		params, _ := req["parameters"].(map[string]any)
		s, _ := params["command"].(string)
		return s
	}
	first := p.Until("permission_request")
	if command(first) != "printf one" {
		t.Fatalf("first permission_request = %v", first)
	}
	p.Send(`{"type":"permission_response","tool_id":"` + first["tool_id"].(string) + `","decision":"proceed_always"}`)

	second := p.Until("permission_request")
	if got := command(second); got != "printf three > out.txt" {
		t.Fatalf("the second request is about %q, want the redirected command; events %s", got, e2etest.MustJSON(p.All))
	}
	// printf one and printf two ran, the second without a request.
	var ran []string
	for _, ev := range p.All {
		if ev["type"] == "tool_result" && ev["status"] == "success" {
			ran = append(ran, ev["tool_id"].(string))
		}
	}
	if len(ran) != 2 || p.Count("permission_request") != 2 {
		t.Fatalf("before the redirected call: %d calls ran, %d requests; events %s", len(ran), p.Count("permission_request"), e2etest.MustJSON(p.All))
	}
	target := filepath.Join(e.WS, "out.txt")
	if _, err := os.Stat(target); err == nil {
		t.Fatal("out.txt written before approval")
	}
	p.Send(`{"type":"permission_response","tool_id":"` + second["tool_id"].(string) + `","decision":"proceed_once"}`)
	if res := p.Until("result"); res["status"] != "success" {
		t.Fatalf("result = %v", res)
	}
	if got, _ := os.ReadFile(target); string(got) != "three" {
		t.Errorf("out.txt = %q", got)
	}
	if code := p.Close(); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, p.Stderr.String())
	}
}
