package telemetry_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// secretPrompt is the prompt of every run: telemetry must carry it only
// when prompts are asked for.
const secretPrompt = "Summarise the README, codeword PLUM-7731"

// model is named, so that no router call comes before the turn's own.
const model = "gemini-2.5-flash"

// readScript is the scripted model: one read_file call, then the answer.
func readScript(ws string) []fakegemini.Reply {
	return []fakegemini.Reply{
		fakegemini.Call("read_file", map[string]any{"absolute_path": filepath.Join(ws, "README.md")}),
		fakegemini.Text("It is a demo project."),
	}
}

// complete reports whether a run's telemetry has all arrived: the turn,
// both model calls and the tool call, and the token metrics.
func complete(r received) bool {
	return len(r.spans("user_prompt")) == 1 && len(r.spans("llm_call")) == 2 && len(r.spans("tool_call")) == 1 &&
		len(r.points("gemini_cli.token.usage")) > 0 && len(r.logs("gemini_cli.tool_call")) == 1 && len(r.logs("gemini_cli.config")) == 1
}

// TestTelemetryReachesCollector runs a headless turn with a tool call and
// checks the spans, metrics and events the OTLP receiver gets, over gRPC
// (flags) and HTTP (settings).
func TestTelemetryReachesCollector(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		settings func(rc *receiver) string
		args     func(rc *receiver) []string
	}{
		{"grpc flags", nil, func(rc *receiver) []string {
			return []string{"--telemetry", "--telemetry-otlp-endpoint", rc.GRPC}
		}},
		{"http flags", nil, func(rc *receiver) []string {
			return []string{"--telemetry", "--telemetry-otlp-protocol", "http", "--telemetry-otlp-endpoint", "http://" + rc.HTTP}
		}},
		{"http settings", func(rc *receiver) string {
			return `{"telemetry": {"enabled": true, "otlpProtocol": "http", "otlpEndpoint": "http://` + rc.HTTP + `"}}`
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc := startReceiver(t)
			e := e2etest.New(t)
			e.Write("README.md", e2etest.Readme)
			e.Srv.Enqueue(readScript(e.WS)...)
			args := []string{"-y", "-m", model, "-o", "json", "-p", secretPrompt}
			if tc.settings != nil {
				e.WriteUserSettings(tc.settings(rc))
				// Gemini CLI's installation id, which Castor reports too.
				e2etest.WriteFiles(t, e.Home, map[string]string{".gemini/installation_id": geminiInstallation + "\n"})
			}
			if tc.args != nil {
				args = append(args, tc.args(rc)...)
			}
			res := e.Run(args...)
			if res.Code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.Code, res.Stdout, res.Stderr)
			}
			var out struct {
				SessionID string `json:"session_id"`
			}
			if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || out.SessionID == "" {
				t.Fatalf("stdout: %v\n%s", err, res.Stdout)
			}
			t.Logf("castor's stderr (shown on failure):\n%s", res.Stderr)
			got := rc.waitFor("the turn's spans, metrics and events", complete)
			checkSpans(t, got, out.SessionID)
			checkMetrics(t, got, out.SessionID)
			checkEvents(t, got)
			checkInstallation(t, got, e.Home, tc.settings != nil)
			checkConfig(t, got, out.SessionID)
			if strings.Contains(got.Raw, "PLUM-7731") {
				t.Errorf("the prompt's text reached the collector without logPrompts:\n%s", got.Raw)
			}
		})
	}
}

// checkConfig checks the gemini_cli.config event of a -y -o json run, and
// the auth type on the api_* events: "gateway", as GOOGLE_GEMINI_BASE_URL
// (the fake model server) makes it for Gemini CLI too.
func checkConfig(t *testing.T, got received, sessionID string) {
	t.Helper()
	configs := got.logs("gemini_cli.config")
	if len(configs) != 1 {
		t.Fatalf("%d gemini_cli.config events, want 1", len(configs))
	}
	c := configs[0].Attrs
	for k, want := range map[string]any{"session.id": sessionID, "model": model, "approval_mode": "yolo", "auth_type": "gateway",
		"api_key_enabled": false, "vertex_ai_enabled": false, "output_format": "json", "sandbox_enabled": false,
		"log_user_prompts_enabled": false, "mcp_servers_count": "0", "extensions_count": "0"} {
		if c[k] != want {
			t.Errorf("gemini_cli.config %s = %v, want %v", k, c[k], want)
		}
	}
	for _, l := range append(got.logs("gemini_cli.api_request"), got.logs("gemini_cli.api_response")...) {
		if l.Attrs["auth_type"] != "gateway" {
			t.Errorf("%s auth_type = %v", l.EventName, l.Attrs["auth_type"])
		}
	}
}

// geminiInstallation is the id of a Gemini CLI installed before Castor.
const geminiInstallation = "0b9a3cf0-5d3e-4a8e-9a43-2f0c3b1d7e11"

// checkInstallation checks that every metric point and event carries the
// installation.id of ~/.gemini/installation_id: Gemini CLI's when it was
// there, else one Castor wrote.
func checkInstallation(t *testing.T, got received, home string, gemini bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, ".gemini", "installation_id"))
	if err != nil {
		t.Fatalf("no installation id: %v", err)
	}
	id := strings.TrimSpace(string(b))
	if gemini && id != geminiInstallation {
		t.Errorf("Gemini CLI's installation id was replaced by %q", id)
	}
	if id == "" {
		t.Fatal("empty installation id")
	}
	for _, p := range got.Metrics {
		if p.Attrs["installation.id"] != id {
			t.Errorf("%s point installation.id = %v, want %s", p.Metric, p.Attrs["installation.id"], id)
		}
	}
	for _, l := range got.Logs {
		if l.Attrs["installation.id"] != id {
			t.Errorf("%s event installation.id = %v, want %s", l.EventName, l.Attrs["installation.id"], id)
		}
	}
}

func checkSpans(t *testing.T, got received, sessionID string) {
	t.Helper()
	turn := got.spans("user_prompt")[0]
	if turn.Resource["service.name"] != "castor" {
		t.Errorf("service.name = %v, want castor", turn.Resource["service.name"])
	}
	if turn.Attrs["gen_ai.conversation.id"] != sessionID || turn.Attrs["gen_ai.operation.name"] != "user_prompt" {
		t.Errorf("user_prompt span attributes %v", turn.Attrs)
	}
	for _, name := range []string{"llm_call", "tool_call"} {
		for _, s := range got.spans(name) {
			if s.TraceID != turn.TraceID || s.ParentSpanID != turn.SpanID {
				t.Errorf("%s span (trace %s, parent %s) is not a child of the turn (trace %s, span %s)", name, s.TraceID, s.ParentSpanID, turn.TraceID, turn.SpanID)
			}
			if s.Attrs["gen_ai.operation.name"] != name || s.Attrs["gen_ai.conversation.id"] != sessionID {
				t.Errorf("%s span attributes %v", name, s.Attrs)
			}
		}
	}
	for _, s := range got.spans("llm_call") {
		if s.Attrs["gen_ai.request.model"] != model || s.Attrs["gen_ai.response.model"] == nil {
			t.Errorf("llm_call without its models: %v", s.Attrs)
		}
		if in, _ := s.Attrs["gen_ai.usage.input_tokens"].(string); in == "" || in == "0" {
			t.Errorf("llm_call gen_ai.usage.input_tokens = %v", s.Attrs["gen_ai.usage.input_tokens"])
		}
		if s.Attrs["gen_ai.usage.output_tokens"] == nil {
			t.Errorf("llm_call without gen_ai.usage.output_tokens: %v", s.Attrs)
		}
	}
	tool := got.spans("tool_call")[0]
	if tool.Attrs["gen_ai.tool.name"] != "read_file" || tool.Attrs["gen_ai.tool.call_id"] == nil {
		t.Errorf("tool_call span attributes %v", tool.Attrs)
	}
}

func checkMetrics(t *testing.T, got received, sessionID string) {
	t.Helper()
	var input float64
	for _, p := range got.points("gemini_cli.token.usage") {
		if p.Attrs["session.id"] != sessionID || p.Attrs["model"] == nil {
			t.Errorf("gemini_cli.token.usage point attributes %v", p.Attrs)
		}
		if p.Attrs["type"] == "input" {
			input += p.Value
		}
	}
	if input <= 0 {
		t.Errorf("gemini_cli.token.usage{type=input} = %v, want the prompt's tokens", input)
	}
	var requests float64
	for _, p := range got.points("gemini_cli.api.request.count") {
		requests += p.Value
		if p.Attrs["status_code"] != "200" {
			t.Errorf("gemini_cli.api.request.count attributes %v", p.Attrs)
		}
	}
	if requests != 2 {
		t.Errorf("gemini_cli.api.request.count = %v, want 2", requests)
	}
	tools := got.points("gemini_cli.tool.call.count")
	if len(tools) != 1 || tools[0].Value != 1 || tools[0].Attrs["function_name"] != "read_file" ||
		tools[0].Attrs["success"] != true || tools[0].Attrs["decision"] != "auto_accept" || tools[0].Attrs["tool_type"] != "native" {
		t.Errorf("gemini_cli.tool.call.count points %+v", tools)
	}
	for _, name := range []string{"gemini_cli.session.count", "gemini_cli.api.request.latency", "gemini_cli.tool.call.latency",
		"gen_ai.client.token.usage", "gen_ai.client.operation.duration"} {
		if len(got.points(name)) == 0 {
			t.Errorf("no %s metric", name)
		}
	}
}

func checkEvents(t *testing.T, got received) {
	t.Helper()
	prompts := got.logs("gemini_cli.user_prompt")
	if len(prompts) != 1 {
		t.Fatalf("%d gemini_cli.user_prompt events", len(prompts))
	}
	if _, ok := prompts[0].Attrs["prompt"]; ok {
		t.Errorf("user_prompt carries the prompt without logPrompts: %v", prompts[0].Attrs)
	}
	if prompts[0].Attrs["prompt_length"] != "40" {
		t.Errorf("user_prompt prompt_length = %v, want 40", prompts[0].Attrs["prompt_length"])
	}
	if len(got.logs("gemini_cli.api_response")) != 2 || len(got.logs("gemini_cli.api_request")) != 2 {
		t.Errorf("api_request/api_response events: %s", got)
	}
	call := got.logs("gemini_cli.tool_call")[0]
	if call.Attrs["function_name"] != "read_file" || call.Attrs["success"] != true {
		t.Errorf("tool_call event %v", call.Attrs)
	}
	if _, ok := call.Attrs["function_args"]; ok {
		t.Errorf("tool_call event carries the arguments without logPrompts: %v", call.Attrs)
	}
}

// TestTelemetryLogPrompts checks that --telemetry-log-prompts sends the
// prompt's text, answers and tool arguments, and with telemetry.traces
// the messages on the spans.
func TestTelemetryLogPrompts(t *testing.T) {
	t.Parallel()
	rc := startReceiver(t)
	e := e2etest.New(t)
	e.Write("README.md", e2etest.Readme)
	e.Srv.Enqueue(readScript(e.WS)...)
	res := e.RunExtraEnv([]string{"GEMINI_TELEMETRY_TRACES_ENABLED=true"},
		"-y", "-m", model, "-p", secretPrompt, "--telemetry", "--telemetry-otlp-endpoint", rc.GRPC, "--telemetry-log-prompts")
	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.Code, res.Stderr)
	}
	got := rc.waitFor("the turn's telemetry", complete)
	if p := got.logs("gemini_cli.user_prompt")[0].Attrs["prompt"]; p != secretPrompt {
		t.Errorf("user_prompt prompt = %v, want %q", p, secretPrompt)
	}
	if args, _ := got.logs("gemini_cli.tool_call")[0].Attrs["function_args"].(string); !strings.Contains(args, "README.md") {
		t.Errorf("tool_call function_args = %q", args)
	}
	// telemetry.traces with logPrompts: the messages and the request's
	// system instruction and tools are on the spans.
	first := got.spans("llm_call")[0]
	if in, _ := first.Attrs["gen_ai.input.messages"].(string); !strings.Contains(in, "PLUM-7731") {
		t.Errorf("llm_call gen_ai.input.messages = %q", in)
	}
	for _, k := range []string{"gen_ai.system_instructions", "gen_ai.tool.definitions"} {
		if v, _ := first.Attrs[k].(string); v == "" {
			t.Errorf("llm_call has no %s with telemetry.traces", k)
		}
	}
	if in, _ := got.spans("user_prompt")[0].Attrs["gen_ai.input.messages"].(string); in != secretPrompt {
		t.Errorf("user_prompt gen_ai.input.messages = %q", in)
	}
	var answered bool
	for _, l := range got.logs("gemini_cli.api_response") {
		answered = answered || l.Attrs["response_text"] == "It is a demo project."
	}
	if !answered {
		t.Errorf("no api_response carries the answer: %v", got.logs("gemini_cli.api_response"))
	}
}

// TestTelemetryOutfile checks --telemetry-outfile: spans, metrics and logs
// as JSON lines in the file, and the notice of target gcp.
func TestTelemetryOutfile(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write("README.md", e2etest.Readme)
	e.Srv.Enqueue(readScript(e.WS)...)
	out := filepath.Join(e.Home, "telemetry.log")
	res := e.Run("-y", "-m", model, "-p", secretPrompt, "--telemetry", "--telemetry-outfile", out, "--telemetry-target", "gcp")
	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.Code, res.Stderr)
	}
	if !strings.Contains(res.Stderr, "no direct Google Cloud exporter") {
		t.Errorf("stderr does not say what target gcp does:\n%s", res.Stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for line := range strings.Lines(string(data)) {
		var v struct {
			Name         string // a span
			EventName    string
			ScopeMetrics []struct {
				Metrics []struct{ Name string }
			}
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("a line of %s is not JSON: %v\n%s", out, err, line)
		}
		names[v.Name+v.EventName]++
		for _, sm := range v.ScopeMetrics {
			for _, m := range sm.Metrics {
				names[m.Name]++
			}
		}
	}
	for _, want := range []string{"user_prompt", "llm_call", "tool_call", "gemini_cli.user_prompt", "gemini_cli.tool_call",
		"gemini_cli.token.usage", "gemini_cli.tool.call.count"} {
		if names[want] == 0 {
			t.Errorf("%s has no %s; it has %v", out, want, names)
		}
	}
	if strings.Contains(string(data), "PLUM-7731") {
		t.Errorf("the prompt's text is in %s without logPrompts", out)
	}
}

// TestTelemetryMCPServe checks that castor mcp serve, which has no
// --telemetry flags, sends its sessions' telemetry when the settings turn
// it on, and flushes it when its client leaves.
func TestTelemetryMCPServe(t *testing.T) {
	t.Parallel()
	rc := startReceiver(t)
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Text("Served."))
	e.WriteUserSettings(`{"telemetry": {"enabled": true, "otlpEndpoint": "http://` + rc.GRPC + `"}}`)
	cmd := e2etest.Command(t, "mcp", "serve", "-m", model)
	cmd.Dir, cmd.Env = e.WS, e.Environ()
	ctx := t.Context()
	client := mcp.NewClient(&mcp.Implementation{Name: "telemetry-test", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "prompt", Arguments: map[string]any{"prompt": secretPrompt}})
	if err != nil || res.IsError {
		t.Fatalf("prompt: %v %+v", err, res)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	got := rc.waitFor("the served turn's telemetry", func(r received) bool {
		return len(r.spans("user_prompt")) == 1 && len(r.spans("llm_call")) == 1 && len(r.points("gemini_cli.token.usage")) > 0
	})
	if strings.Contains(got.Raw, "PLUM-7731") {
		t.Error("the prompt's text reached the collector without logPrompts")
	}
}

// TestTelemetrySubagent checks a subagent's part: its turn is an
// agent_call span under the user's turn, its model calls are llm_call
// spans under it and counted (api_response events of role subagent),
// and no user_prompt event is sent for it.
func TestTelemetrySubagent(t *testing.T) {
	t.Parallel()
	rc := startReceiver(t)
	e := e2etest.New(t)
	e2etest.WithReviewer(t, e)
	e.Srv.Enqueue(
		fakegemini.Call("invoke_agent", map[string]any{"agent_name": "reviewer", "prompt": "Review main.go"}),
		fakegemini.Call("read_file", map[string]any{"absolute_path": filepath.Join(e.WS, "main.go")}),
		fakegemini.Call("complete_task", map[string]any{"result": "Empty main package."}),
		fakegemini.Text("Reviewed."),
	)
	res := e.Run("-m", model, "-p", "Review my code", "--telemetry", "--telemetry-otlp-endpoint", rc.GRPC)
	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.Code, res.Stderr)
	}
	got := rc.waitFor("the subagent's telemetry", func(r received) bool {
		return len(r.spans("agent_call")) == 1 && len(r.spans("llm_call")) == 4 && len(r.logs("gemini_cli.api_response")) == 4 &&
			len(r.points("gemini_cli.agent.run.count")) == 1 && len(r.logs("gemini_cli.agent.finish")) == 1
	})
	// The run's events and metrics, as Gemini CLI's.
	start, finish := got.logs("gemini_cli.agent.start"), got.logs("gemini_cli.agent.finish")[0]
	if len(start) != 1 || start[0].Attrs["agent_name"] != "reviewer" || start[0].Attrs["agent_id"] != finish.Attrs["agent_id"] {
		t.Errorf("gemini_cli.agent.start events %v, finish %v", start, finish.Attrs)
	}
	if finish.Attrs["agent_name"] != "reviewer" || finish.Attrs["terminate_reason"] != "GOAL" || finish.Attrs["duration_ms"] == nil {
		t.Errorf("gemini_cli.agent.finish %v", finish.Attrs)
	}
	if runs := got.points("gemini_cli.agent.run.count")[0]; runs.Value != 1 || runs.Attrs["agent_name"] != "reviewer" || runs.Attrs["terminate_reason"] != "GOAL" {
		t.Errorf("gemini_cli.agent.run.count %v = %v", runs.Attrs, runs.Value)
	}
	if d := got.points("gemini_cli.agent.duration"); len(d) != 1 || d[0].Count != 1 || d[0].Attrs["agent_name"] != "reviewer" {
		t.Errorf("gemini_cli.agent.duration %+v", d)
	}
	turn, sub := got.spans("user_prompt")[0], got.spans("agent_call")[0]
	if sub.TraceID != turn.TraceID || sub.ParentSpanID != turn.SpanID {
		t.Errorf("agent_call is not under the user's turn")
	}
	var inSub, bySub int
	for _, s := range got.spans("llm_call") {
		if s.ParentSpanID == sub.SpanID {
			inSub++
		}
	}
	for _, l := range got.logs("gemini_cli.api_response") {
		if l.Attrs["role"] == "subagent" {
			bySub++
		}
	}
	if inSub != 2 || bySub != 2 {
		t.Errorf("%d llm_call spans under agent_call and %d api_response events of role subagent, want 2 and 2", inSub, bySub)
	}
	if n := len(got.logs("gemini_cli.user_prompt")); n != 1 {
		t.Errorf("%d user_prompt events, want the user's one", n)
	}
}

// TestTelemetryFileOperations checks Gemini CLI's file telemetry: a read,
// a file created and then edited give gemini_cli.file_operation events and
// gemini_cli.file.operation.count, and the edits gemini_cli.lines.changed.
func TestTelemetryFileOperations(t *testing.T) {
	t.Parallel()
	rc := startReceiver(t)
	e := e2etest.New(t)
	e.Write("README.md", e2etest.Readme)
	notes := filepath.Join(e.WS, "notes.txt")
	e.Srv.Enqueue(
		fakegemini.Call("read_file", map[string]any{"absolute_path": filepath.Join(e.WS, "README.md")}),
		fakegemini.Call("write_file", map[string]any{"file_path": notes, "content": "one\ntwo\nthree\n"}),
		fakegemini.Call("replace", map[string]any{"file_path": notes, "old_string": "two\n", "new_string": "2\n2b\n"}),
		fakegemini.Text("Done."),
	)
	res := e.Run("-y", "-m", model, "-p", "take notes", "--telemetry", "--telemetry-otlp-endpoint", rc.GRPC)
	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.Code, res.Stderr)
	}
	got := rc.waitFor("the file telemetry", func(r received) bool {
		return len(r.logs("gemini_cli.file_operation")) == 2 && len(r.points("gemini_cli.lines.changed")) > 0 &&
			len(r.points("gemini_cli.file.operation.count")) == 2
	})
	readmeLines := fmt.Sprint(len(strings.Split(e2etest.Readme, "\n")))
	ops := map[string]map[string]any{}
	for _, l := range got.logs("gemini_cli.file_operation") {
		ops[l.Attrs["operation"].(string)] = l.Attrs
	}
	if r := ops["read"]; r == nil || r["tool_name"] != "read_file" || r["extension"] != ".md" || r["lines"] != readmeLines {
		t.Errorf("read file_operation %v, want read_file, .md, %s lines", r, readmeLines)
	}
	if c := ops["create"]; c == nil || c["tool_name"] != "write_file" || c["extension"] != ".txt" || c["lines"] != "4" {
		t.Errorf("create file_operation %v, want write_file, .txt, 4 lines", c)
	} else if mt, ok := c["mimetype"]; ok && mt != "text/plain" {
		// The system's MIME table names .txt, when there is one.
		t.Errorf("create file_operation mimetype %v, want text/plain", mt)
	}
	for _, p := range got.points("gemini_cli.file.operation.count") {
		if p.Value != 1 || (p.Attrs["operation"] != "read" && p.Attrs["operation"] != "create") {
			t.Errorf("gemini_cli.file.operation.count point %v = %v", p.Attrs, p.Value)
		}
	}
	changed := map[string]float64{}
	for _, p := range got.points("gemini_cli.lines.changed") {
		changed[fmt.Sprint(p.Attrs["function_name"], " ", p.Attrs["type"])] += p.Value
	}
	// write_file adds its three lines; replace adds two, removes one.
	want := map[string]float64{"write_file added": 3, "replace added": 2, "replace removed": 1}
	if fmt.Sprint(changed) != fmt.Sprint(want) {
		t.Errorf("gemini_cli.lines.changed %v, want %v", changed, want)
	}
}

// TestTelemetryRouting: with the "auto" model, the router's decision is
// logged as Gemini CLI's gemini_cli.model_routing event, with the model
// chosen, the rule and the classifier's reasoning, and its latency is
// recorded in gemini_cli.model_routing.latency.
func TestTelemetryRouting(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.EnqueueRoute(fakegemini.Text(`{"complexity_reasoning":"one short answer","complexity_score":5}`))
	e.Srv.Enqueue(fakegemini.Text("hello"))
	out := filepath.Join(e.Home, "telemetry.log")
	res := e.Run("-m", "auto", "-p", "say hello", "--telemetry", "--telemetry-outfile", out)
	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.Code, res.Stderr)
	}
	events, metrics := readOutfile(t, out)
	routing := events["gemini_cli.model_routing"]
	if len(routing) != 1 || routing[0]["decision_model"] != "gemini-3.8-flash" || routing[0]["decision_source"] != "agent-router/Classifier" ||
		routing[0]["reasoning"] != "one short answer" || routing[0]["failed"] != false {
		t.Errorf("gemini_cli.model_routing events: %v", routing)
	}
	if !metrics["gemini_cli.model_routing.latency"] {
		t.Errorf("no gemini_cli.model_routing.latency among %v", metrics)
	}
}

// TestTelemetryLoops: a model that repeats one tool call is told of the
// loop once, then stopped; each is a gemini_cli.loop_detected event with
// its strike count, as Gemini CLI logs them.
func TestTelemetryLoops(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write("README.md", e2etest.Readme)
	for range 12 {
		e.Srv.Enqueue(fakegemini.Call("read_file", map[string]any{"file_path": filepath.Join(e.WS, "README.md")}))
	}
	out := filepath.Join(e.Home, "telemetry.log")
	res := e.Run("-y", "-m", model, "-p", "read it", "--telemetry", "--telemetry-outfile", out)
	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.Code, res.Stderr)
	}
	events, _ := readOutfile(t, out)
	var got []string
	for _, ev := range events["gemini_cli.loop_detected"] {
		got = append(got, fmt.Sprintf("%v %v", ev["loop_type"], ev["count"]))
	}
	if strings.Join(got, ",") != "consecutive_identical_tool_calls 1,consecutive_identical_tool_calls 2" {
		t.Errorf("gemini_cli.loop_detected events: %v", events["gemini_cli.loop_detected"])
	}
}

// readOutfile reads a --telemetry-outfile: the attributes of each log
// event by event name, and the names of the metrics.
func readOutfile(t *testing.T, path string) (map[string][]map[string]any, map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	events, metrics := map[string][]map[string]any{}, map[string]bool{}
	for line := range strings.Lines(string(data)) {
		var v struct {
			EventName  string
			Attributes []struct {
				Key   string
				Value struct{ Value any }
			}
			ScopeMetrics []struct{ Metrics []struct{ Name string } }
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("a line of %s is not JSON: %v\n%s", path, err, line)
		}
		if v.EventName != "" {
			attrs := map[string]any{}
			for _, a := range v.Attributes {
				attrs[a.Key] = a.Value.Value
			}
			events[v.EventName] = append(events[v.EventName], attrs)
		}
		for _, sm := range v.ScopeMetrics {
			for _, m := range sm.Metrics {
				metrics[m.Name] = true
			}
		}
	}
	return events, metrics
}
