package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// useAsker writes user settings that connect the asking MCP server at url.
func useAsker(e *e2etest.Env, url string) {
	e.T.Helper()
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"asker": map[string]any{"httpUrl": url, "trust": true}}})
	if err := os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), raw, 0o644); err != nil {
		e.T.Fatal(err)
	}
}

// TestStreamJSONElicitation: in a stream-json input session an MCP
// server's question is an elicitation_request line answered by an
// elicitation_response line. A form answer that does not fit the schema
// is reported and can be sent again; a URL question is declined; a
// question still open when stdin closes is cancelled.
func TestStreamJSONElicitation(t *testing.T) {
	t.Parallel()
	url := askingServer(t)
	e := e2etest.New(t,
		fakegemini.Call("ask_name", map[string]any{}),
		fakegemini.Text("Nice to meet you."),
		fakegemini.Call("sign_in", map[string]any{}),
		fakegemini.Text("Not signed in."),
		fakegemini.Call("ask_name", map[string]any{}),
		fakegemini.Text("Bye."))
	useAsker(e, url)
	p := e.StartStream("--input-format", "stream-json", "-o", "stream-json")

	p.Send(`{"type":"user","message":"who am I?"}`)
	req := p.Until("elicitation_request")
	schema, _ := req["requested_schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	if req["mcp_server_name"] != "asker" || req["mode"] != "form" || req["message"] != "What is your name?" || props["name"] == nil {
		t.Fatalf("elicitation_request = %s", e2etest.MustJSON(req))
	}
	id, _ := req["request_id"].(string)
	if id == "" {
		t.Fatalf("no request_id: %s", e2etest.MustJSON(req))
	}
	p.Send(`{"type":"elicitation_response","request_id":"` + id + `","action":"accept","content":{"name":3}}`)
	if bad := p.Until("error"); bad["line"] != float64(2) || !strings.Contains(bad["message"].(string), "requested schema") {
		t.Errorf("error for the bad answer = %s", e2etest.MustJSON(bad))
	}
	p.Send(`{"type":"elicitation_response","request_id":"` + id + `","action":"accept","content":{"name":"Ada"}}`)
	if res := p.Until("result"); res["status"] != "success" {
		t.Fatalf("turn 1 result = %s", e2etest.MustJSON(res))
	}
	if got := e2etest.MustJSON(e.Srv.LastRequest().LastContent().Parts); !strings.Contains(got, `the user answered accept {\"name\":\"Ada\"}`) {
		t.Errorf("ask_name response = %s", got)
	}

	p.Send(`{"type":"user","message":"sign me in"}`)
	req = p.Until("elicitation_request")
	if req["mode"] != "url" || req["url"] != "https://example.com/login" || req["elicitation_id"] != "login-1" || req["requested_schema"] != nil {
		t.Fatalf("url elicitation_request = %s", e2etest.MustJSON(req))
	}
	p.Send(`{"type":"elicitation_response","request_id":"` + req["request_id"].(string) + `","action":"decline"}`)
	if res := p.Until("result"); res["status"] != "success" {
		t.Fatalf("turn 2 result = %s", e2etest.MustJSON(res))
	}
	if got := e2etest.MustJSON(e.Srv.LastRequest().LastContent().Parts); !strings.Contains(got, "the user answered decline") {
		t.Errorf("sign_in response = %s", got)
	}

	p.Send(`{"type":"user","message":"once more"}`)
	p.Until("elicitation_request")
	if code := p.Close(); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, p.Stderr.String())
	}
	if n := p.Count("result"); n != 3 {
		t.Errorf("%d results: %s", n, e2etest.MustJSON(p.All))
	}
	if got := e2etest.MustJSON(e.Srv.LastRequest().LastContent().Parts); !strings.Contains(got, "the user answered cancel") {
		t.Errorf("ask_name response after EOF = %s", got)
	}
	if strings.Contains(p.Stderr.String(), "Declined") {
		t.Errorf("a question was declined: %s", p.Stderr.String())
	}
}
