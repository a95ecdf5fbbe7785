package a2a_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// askingMCP starts an MCP server whose tool ask_name asks the client for
// a name and returns what it got, and configures it (trusted) in the
// harness's user settings.
func askingMCP(t *testing.T, h *harness) {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "ask_name", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res, err := r.Session.Elicit(ctx, &sdk.ElicitParams{Message: "What is your name?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}})
		text := ""
		if err != nil {
			text = "error: " + err.Error()
		} else {
			b, _ := json.Marshal(res.Content)
			text = fmt.Sprintf("answered %s %s", res.Action, b)
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
	})
	s.AddTool(&sdk.Tool{Name: "sign_in", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res, err := r.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/login", ElicitationID: "e1"})
		text := "error"
		if err == nil {
			text = "answered " + res.Action
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	// Before the harness stops: the tasks' MCP clients hold a stream open.
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"asker": map[string]any{"httpUrl": srv.URL, "trust": true}}})
	if err := os.MkdirAll(filepath.Join(h.home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.home, ".gemini", "settings.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// question returns the elicitation data part of the last event.
func question(t *testing.T, evs []map[string]any) map[string]any {
	t.Helper()
	last := evs[len(evs)-1]
	if dig(last, "metadata", a2a.ExtensionURI, "kind") != "ELICITATION" || last["final"] != true || dig(last, "status", "state") != "input-required" {
		t.Fatalf("the stream does not end with the question:\n%s", summary(evs))
	}
	d, _ := dig(asSlice(dig(last, "status", "message", "parts"))[0], "data").(map[string]any)
	return d
}

// TestElicitation: an MCP server's question pauses the turn for a client
// that activated the development-tool extension, and the client's answer
// resumes it, over 0.3 and over 1.0.
func TestElicitation(t *testing.T) {
	for _, tt := range []struct {
		name, action string
		content      map[string]any
		want         string
	}{
		{"accept", "accept", map[string]any{"name": "Ada"}, `answered accept {\"name\":\"Ada\"}`},
		{"decline", "decline", nil, `answered decline null`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			askingMCP(t, h)
			h.fake.Enqueue(fakegemini.Call("ask_name", map[string]any{}), fakegemini.Text("Nice to meet you."))
			evs := h.stream(userMessage("who am I?", extSettings(h.ws), ""), extHeader()...)
			q := question(t, evs)
			if q["mode"] != "form" || q["server"] != "asker" || q["message"] != "What is your name?" || dig(q, "requestedSchema", "properties", "name") == nil {
				t.Fatalf("question = %v", q)
			}
			id := taskID(evs)
			if got := h.rpc("tasks/get", map[string]any{"id": id}); dig(got, "result", "status", "state") != "input-required" {
				t.Errorf("tasks/get while asking: %v", dig(got, "result", "status"))
			}
			// A message without the answer is refused.
			if res := h.rpc("message/send", userMessage("hello?", nil, id)); dig(res, "error", "code") != float64(-32600) {
				t.Errorf("message without the answer → %v", res)
			}
			answer := map[string]any{"elicitationId": q["elicitationId"], "action": tt.action}
			if tt.content != nil {
				answer["content"] = tt.content
			}
			evs2 := h.stream(userMessage("", nil, id, map[string]any{"kind": "data", "data": answer}), extHeader()...)
			assertUniqueFinalIsLast(t, evs2)
			if !strings.Contains(summary(evs2), `text="Nice to meet you."`) {
				t.Errorf("the turn did not go on:\n%s", summary(evs2))
			}
			reqs := h.fake.Requests()
			got, _ := json.Marshal(reqs[len(reqs)-1].LastContent().Parts)
			if !strings.Contains(string(got), tt.want) {
				t.Errorf("the tool's result = %s, want %s", got, tt.want)
			}
		})
	}
	t.Run("1.0", func(t *testing.T) {
		h := newHarness(t)
		askingMCP(t, h)
		h.fake.Enqueue(fakegemini.Call("ask_name", map[string]any{}), fakegemini.Text("Hi Ada."))
		c := v1Client(t, h, v1.TransportProtocolJSONRPC)
		ctx := a2aclientExt(t)
		evs := collect(t, c.SendStreamingMessage(ctx, v1Text("who am I?", "", extSettings(h.ws))))
		su, ok := evs[len(evs)-1].(*v1.TaskStatusUpdateEvent)
		if !ok || su.Status.State != v1.TaskStateInputRequired || dig(su.Metadata, a2a.ExtensionURI, "kind") != "ELICITATION" {
			t.Fatalf("last event = %#v", evs[len(evs)-1])
		}
		q, _ := su.Status.Message.Parts[0].Data().(map[string]any)
		answer := v1.NewDataPart(map[string]any{"elicitationId": q["elicitationId"], "action": "accept", "content": map[string]any{"name": "Ada"}})
		evs2 := collect(t, c.SendStreamingMessage(ctx, v1Text("", string(su.TaskID), nil, answer)))
		if lastState(evs2) != v1.TaskStateInputRequired {
			t.Errorf("the answered turn ends in %s", lastState(evs2))
		}
		reqs := h.fake.Requests()
		if got, _ := json.Marshal(reqs[len(reqs)-1].LastContent().Parts); !strings.Contains(string(got), `answered accept {\"name\":\"Ada\"}`) {
			t.Errorf("the tool's result = %s", got)
		}
	})
	t.Run("url", func(t *testing.T) {
		h := newHarness(t)
		askingMCP(t, h)
		h.fake.Enqueue(fakegemini.Call("sign_in", map[string]any{}), fakegemini.Text("Signed in."))
		evs := h.stream(userMessage("sign me in", extSettings(h.ws), ""), extHeader()...)
		q := question(t, evs)
		if q["mode"] != "url" || q["url"] != "https://example.com/login" || q["message"] != "Sign in" {
			t.Fatalf("question = %v", q)
		}
		answer := map[string]any{a2a.ExtensionURI: map[string]any{"elicitation_id": q["elicitationId"], "action": "accept"}}
		evs2 := h.stream(userMessage("", nil, taskID(evs), map[string]any{"kind": "data", "data": answer}), extHeader()...)
		assertUniqueFinalIsLast(t, evs2)
		reqs := h.fake.Requests()
		if got, _ := json.Marshal(reqs[len(reqs)-1].LastContent().Parts); !strings.Contains(string(got), "answered accept") {
			t.Errorf("the tool's result = %s", got)
		}
	})
	t.Run("cancel while asking", func(t *testing.T) {
		h := newHarness(t)
		askingMCP(t, h)
		h.fake.Enqueue(fakegemini.Call("ask_name", map[string]any{}))
		evs := h.stream(userMessage("who am I?", extSettings(h.ws), ""), extHeader()...)
		question(t, evs)
		res := h.rpc("tasks/cancel", map[string]any{"id": taskID(evs)})
		if dig(res, "result", "status", "state") != "canceled" {
			t.Errorf("tasks/cancel while asking → %v", res)
		}
	})
	t.Run("legacy client declines", func(t *testing.T) {
		h := newHarness(t)
		askingMCP(t, h)
		h.fake.Enqueue(fakegemini.Call("ask_name", map[string]any{}), fakegemini.Text("No name then."))
		evs := h.stream(userMessage("who am I?", geminiSettings(h.ws), ""))
		assertUniqueFinalIsLast(t, evs)
		reqs := h.fake.Requests()
		if got, _ := json.Marshal(reqs[len(reqs)-1].LastContent().Parts); !strings.Contains(string(got), `answered decline`) {
			t.Errorf("the tool's result = %s", got)
		}
	})
}
