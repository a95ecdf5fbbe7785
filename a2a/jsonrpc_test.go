package a2a_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestJSONRPCErrors is A2A 0.3.0 §8 and JSON-RPC 2.0 §5 for malformed
// input: each request gets the right code, and the server stays up.
func TestJSONRPCErrors(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Text("done"))
	done := h.stream(userMessage("hi", geminiSettings(h.ws), ""))
	live := taskID(done)
	h.rpc("tasks/cancel", map[string]any{"id": live})
	h.fake.Enqueue(fakegemini.Text("done"))
	idle := taskID(h.stream(userMessage("hi", geminiSettings(h.ws), "")))
	msg := func(extra map[string]any) string {
		m := map[string]any{"kind": "message", "role": "user", "messageId": "m1", "parts": []any{map[string]any{"kind": "text", "text": "x"}}}
		for k, v := range extra {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "message/send", "params": map[string]any{"message": m}})
		return string(b)
	}
	for _, tt := range []struct {
		name   string
		body   string
		code   int
		status int
	}{
		{"parse error", `{"jsonrpc":"2.0",`, -32700, 400},
		{"not json", `hello`, -32700, 400},
		{"empty body", ``, -32700, 400},
		{"array batch", `[{"jsonrpc":"2.0","id":1,"method":"tasks/get"}]`, -32600, 200},
		{"scalar", `42`, -32600, 200},
		{"missing jsonrpc", `{"id":1,"method":"tasks/get","params":{"id":"x"}}`, -32600, 200},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"tasks/get","params":{"id":"x"}}`, -32600, 200},
		{"missing method", `{"jsonrpc":"2.0","id":1}`, -32600, 200},
		{"method not string", `{"jsonrpc":"2.0","id":1,"method":5}`, -32600, 200},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"tasks/get"}`, -32600, 200},
		{"params scalar", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":3}`, -32600, 200},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"tasks/explode","params":{}}`, -32601, 200},
		{"get without params", `{"jsonrpc":"2.0","id":1,"method":"tasks/get"}`, -32602, 200},
		{"get without id", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}`, -32602, 200},
		{"get id wrong type", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":5}}`, -32602, 200},
		{"get negative history", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"` + idle + `","historyLength":-1}}`, -32602, 200},
		{"get unknown task", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"no-such-task"}}`, -32001, 200},
		{"get traversal id", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"../../etc"}}`, -32001, 200},
		{"cancel unknown task", `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"id":"nope"}}`, -32001, 200},
		{"cancel terminal task", `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"id":"` + live + `"}}`, -32002, 200},
		{"resubscribe unknown", `{"jsonrpc":"2.0","id":1,"method":"tasks/resubscribe","params":{"id":"nope"}}`, -32001, 200},
		{"send no message", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`, -32602, 200},
		{"send no messageId", msg(map[string]any{"messageId": nil}), -32602, 200},
		{"send empty parts", msg(map[string]any{"parts": []any{}}), -32602, 200},
		{"send unknown part kind", msg(map[string]any{"parts": []any{map[string]any{"kind": "video"}}}), -32602, 200},
		{"send text part without text", msg(map[string]any{"parts": []any{map[string]any{"kind": "text"}}}), -32602, 200},
		{"send data part not object", msg(map[string]any{"parts": []any{map[string]any{"kind": "data", "data": 3}}}), -32602, 200},
		{"send bad role", msg(map[string]any{"role": "robot"}), -32602, 200},
		{"send unknown task", msg(map[string]any{"taskId": "nope"}), -32001, 200},
		{"send to terminal task", msg(map[string]any{"taskId": live}), -32600, 200},
		{"stream bad params", `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":5}}`, -32602, 200},
		{"bad workspace type", msg(map[string]any{"metadata": map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": 3}}}), -32602, 200},
		{"workspace outside root", msg(map[string]any{"metadata": map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": "/"}}}), -32602, 200},
		{"push set no url", `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{"taskId":"` + idle + `","pushNotificationConfig":{}}}`, -32602, 200},
		{"push set loopback", `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{"taskId":"` + idle + `","pushNotificationConfig":{"url":"http://127.0.0.1:9/x"}}}`, -32602, 200},
		{"push set unknown task", `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{"taskId":"nope","pushNotificationConfig":{"url":"https://example.com/x"}}}`, -32001, 200},
		{"push get unknown config", `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/get","params":{"id":"` + idle + `","pushNotificationConfigId":"zz"}}`, -32602, 200},
		{"extended card", `{"jsonrpc":"2.0","id":1,"method":"agent/getAuthenticatedExtendedCard"}`, -32007, 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.post("/", tt.body)
			defer resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("HTTP %d, want %d", resp.StatusCode, tt.status)
			}
			var out struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			b, _ := io.ReadAll(resp.Body)
			if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				// Streaming methods answer errors as a one-event stream.
				evs, err := parseSSE(strings.NewReader(string(b)))
				if err != nil || len(evs) != 1 {
					t.Fatalf("error stream %q: %v", b, err)
				}
				b, _ = json.Marshal(evs[0])
			}
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatalf("response %q: %v", b, err)
			}
			if out.JSONRPC != "2.0" || out.Error == nil || out.Error.Code != tt.code {
				t.Fatalf("response = %s, want code %d", b, tt.code)
			}
			if out.ID == nil {
				t.Errorf("no id in %s", b)
			}
		})
	}
	// The server still works.
	if res := h.rpc("tasks/get", map[string]any{"id": idle}); res["result"] == nil {
		t.Fatalf("server broken after malformed input: %v", res)
	}
}

func TestJSONRPCEchoesID(t *testing.T) {
	h := newHarness(t)
	for _, id := range []string{`"abc"`, `42`, `null`, `-1.5`} {
		resp := h.post("/", `{"jsonrpc":"2.0","id":`+id+`,"method":"tasks/get","params":{"id":"nope"}}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), `"id":`+id) {
			t.Errorf("id %s not echoed: %s", id, b)
		}
	}
}

// TestBodyLimit: a body past the limit is answered 413 naming the limit on
// every route that reads one, whichever protocol: a 1.0 client whose
// message is too big must not be told its JSON does not parse.
func TestBodyLimit(t *testing.T) {
	h := newHarness(t, withLimits(limitsWith(func(l *limitsT) { l.MaxBodyBytes = 1024 })))
	big := strings.Repeat("x", 4096)
	for _, tt := range []struct {
		path, body string
		headers    []string
	}{
		{"/", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m","parts":[{"kind":"text","text":"` + big + `"}]}}}`, nil},
		{"/", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"` + big + `"}]}}}`, []string{"A2A-Version", "1.0"}},
		{"/a2a/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"` + big + `"}]}}`, []string{"A2A-Version", "1.0"}},
		{"/a2a/message:stream", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"` + big + `"}]}}`, []string{"A2A-Version", "1.0"}},
		{"/tasks", `{"contextId":"` + big + `"}`, nil},
	} {
		resp := h.post(tt.path, tt.body, tt.headers...)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "larger than 1024 bytes") {
			t.Errorf("POST %s: HTTP %d %s, want 413 naming the limit", tt.path, resp.StatusCode, b)
		}
	}
}

// TestTaskIDParamsErrors: tasks/get, tasks/cancel and tasks/resubscribe
// read their params (id, historyLength, metadata) as A2A 0.3 types them,
// and say in the JSON's terms which field is of the wrong kind.
func TestTaskIDParamsErrors(t *testing.T) {
	h := newHarness(t)
	for _, tt := range []struct {
		method, params, want string
	}{
		{"tasks/get", `{"id":5}`, `Invalid parameters: "id" must be a string, not number`},
		{"tasks/get", `{"id":"x","historyLength":"2"}`, `Invalid parameters: "historyLength" must be an integer, not string`},
		{"tasks/get", `{"id":"x","metadata":[]}`, `Invalid parameters: "metadata" must be an object, not array`},
		{"tasks/cancel", `{"id":true}`, `Invalid parameters: "id" must be a string, not bool`},
		{"tasks/cancel", `{"id":"x","metadata":"m"}`, `Invalid parameters: "metadata" must be an object, not string`},
		{"tasks/resubscribe", `{"id":"x","metadata":3}`, `Invalid parameters: "metadata" must be an object, not number`},
		{"tasks/get", `{"metadata":{"a":1}}`, `id is required.`},
	} {
		resp := h.post("/", `{"jsonrpc":"2.0","id":1,"method":"`+tt.method+`","params":`+tt.params+`}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), `"code":-32602`) || !strings.Contains(string(b), strconvQuote(tt.want)) {
			t.Errorf("%s %s: %s, want -32602 %q", tt.method, tt.params, b, tt.want)
		}
	}
}

// strconvQuote is s as it appears inside a JSON string.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
