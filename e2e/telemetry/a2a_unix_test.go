//go:build unix

package telemetry_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

// TestTelemetryA2AServer runs castor a2a-server with telemetry turned on
// by its environment (it has no --telemetry flags), sends it one task
// whose turn calls a tool, stops it with SIGTERM, and checks that the
// task's spans, token metrics and events reached the collector.
func TestTelemetryA2AServer(t *testing.T) {
	t.Parallel()
	rc := startReceiver(t)
	e := e2etest.New(t)
	e.Write("README.md", e2etest.Readme)
	e.Srv.Enqueue(readScript(e.WS)...)
	srv := e.Start(e2etest.Options{Env: append(e.Environ(), "GEMINI_MODEL="+model, "GEMINI_TELEMETRY_ENABLED=true", "GEMINI_TELEMETRY_OTLP_ENDPOINT=http://"+rc.GRPC)},
		"a2a-server", "--port", "0", "--memory-store", "--workspace", e.WS, "--allowed-root", filepath.Dir(e.WS))
	url := srv.ListenURL()

	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": map[string]any{
		"message": map[string]any{"kind": "message", "role": "user", "messageId": "m1",
			"parts": []map[string]any{{"kind": "text", "text": secretPrompt}}},
	}})
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Result struct {
			ContextID string `json:"contextId"`
			Status    struct{ State string }
		}
	}
	err = json.NewDecoder(resp.Body).Decode(&answer)
	resp.Body.Close()
	if err != nil || answer.Result.Status.State != "input-required" {
		t.Fatalf("message/send: %v %+v\n%s", err, answer, srv.Stderr)
	}
	// SIGTERM: the server flushes its telemetry as it stops.
	srv.Signal(syscall.SIGTERM)
	_ = srv.Wait()
	got := rc.waitFor("the task's spans, metrics and events", complete)
	turn := got.spans("user_prompt")[0]
	if turn.Resource["service.name"] != "castor" || turn.Attrs["gen_ai.conversation.id"] == "" {
		t.Errorf("user_prompt span %v (resource %v)", turn.Attrs, turn.Resource)
	}
	for _, name := range []string{"llm_call", "tool_call"} {
		for _, s := range got.spans(name) {
			if s.TraceID != turn.TraceID || s.ParentSpanID != turn.SpanID {
				t.Errorf("%s span is not under the task's turn", name)
			}
		}
	}
	if tool := got.spans("tool_call")[0]; tool.Attrs["gen_ai.tool.name"] != "read_file" {
		t.Errorf("tool_call span %v", tool.Attrs)
	}
	var input, output float64
	for _, p := range got.points("gemini_cli.token.usage") {
		switch p.Attrs["type"] {
		case "input":
			input += p.Value
		case "output":
			output += p.Value
		}
		if p.Attrs["interactive"] != false || p.Attrs["model"] == nil || p.Attrs["session.id"] != turn.Attrs["gen_ai.conversation.id"] {
			t.Errorf("gemini_cli.token.usage point %v", p.Attrs)
		}
	}
	if input <= 0 || output <= 0 {
		t.Errorf("gemini_cli.token.usage input %v, output %v: want the task's tokens", input, output)
	}
	if n := len(got.logs("gemini_cli.api_response")); n != 2 {
		t.Errorf("%d api_response events, want 2", n)
	}
	if strings.Contains(got.Raw, "PLUM-7731") {
		t.Error("the prompt's text reached the collector without logPrompts")
	}
}
