package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/a2a/internal/semver"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

func TestSemver(t *testing.T) {
	for _, tt := range []struct {
		have, want string
		ok         bool
	}{
		{"v0", "v0", true},
		{"v0", "0.0.0", true},
		{"v0", "v0.1", false}, // 0.x minors are incompatible
		{"v0.2", "v0.2.1", false},
		{"v0.2.3", "v0.2.1", true},
		{"v1.4", "v1.2", true},
		{"v1.2", "v1.4", false},
		{"v1", "v2", false},
		{"v2", "v1", false},
		{"v1.0.0", "v1.0.0-rc.1", true},
		{"v1.0.0-rc.1", "v1.0.0", false},
	} {
		have, ok1 := semver.Parse(tt.have)
		want, ok2 := semver.Parse(tt.want)
		if !ok1 || !ok2 {
			t.Fatalf("parse %q %q", tt.have, tt.want)
		}
		if got := semver.Satisfies(have, want); got != tt.ok {
			t.Errorf("%s satisfies %s = %v, want %v", tt.have, tt.want, got, tt.ok)
		}
	}
	for _, bad := range []string{"", "v", "x", "1.2.3.4", "01", "1..2", "1.-2", "1.0.0-"} {
		if _, ok := semver.Parse(bad); ok {
			t.Errorf("parseSemver(%q) accepted", bad)
		}
	}
}

func TestParseConfirmation(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tt := range []struct {
		name string
		data any
		want *confirmation
	}{
		{"gemini", map[string]any{"callId": "c1", "outcome": "proceed_once"}, &confirmation{CallID: "c1", Outcome: "proceed_once"}},
		{"gemini new content", map[string]any{"callId": "c1", "outcome": "proceed_once", "newContent": "x"}, &confirmation{CallID: "c1", Outcome: "proceed_once", NewContent: s("x")}},
		{"gemini answers", map[string]any{"callId": "c1", "outcome": "proceed_once", "answers": map[string]any{"0": "yes"}}, &confirmation{CallID: "c1", Outcome: "proceed_once", Answers: map[string]string{"0": "yes"}}},
		{"gemini plan feedback", map[string]any{"callId": "c1", "outcome": "proceed_once", "approved": false, "feedback": "smaller"}, &confirmation{CallID: "c1", Outcome: "proceed_once", Plan: &tool.PlanVerdict{Feedback: "smaller"}}},
		{"gemini empty outcome", map[string]any{"callId": "c1", "outcome": ""}, nil},
		{"gemini outcome not string", map[string]any{"callId": "c1", "outcome": 3}, nil},
		{"rfc", map[string]any{"tool_call_id": "c2", "selected_option_id": "cancel"}, &confirmation{CallID: "c2", Outcome: "cancel"}},
		{"rfc camel", map[string]any{"toolCallId": "c2", "selectedOptionId": "cancel"}, &confirmation{CallID: "c2", Outcome: "cancel"}},
		{"rfc file details", map[string]any{"tool_call_id": "c2", "selected_option_id": "proceed_once", "file_details": map[string]any{"new_content": "y"}}, &confirmation{CallID: "c2", Outcome: "proceed_once", NewContent: s("y")}},
		{"rfc keyed by uri", map[string]any{ExtensionURI: map[string]any{"tool_call_id": "c3", "selected_option_id": "proceed_once"}}, &confirmation{CallID: "c3", Outcome: "proceed_once"}},
		{"rfc no option", map[string]any{"tool_call_id": "c2"}, nil},
		{"other data", map[string]any{"hello": "world"}, nil},
		{"not an object", "text", nil},
	} {
		got, ok := parseConfirmation(tt.data)
		if (tt.want != nil) != ok {
			t.Errorf("%s: ok = %v", tt.name, ok)
			continue
		}
		if ok && (got.CallID != tt.want.CallID || got.Outcome != tt.want.Outcome || (got.NewContent == nil) != (tt.want.NewContent == nil) ||
			(got.NewContent != nil && *got.NewContent != *tt.want.NewContent)) {
			t.Errorf("%s: got %+v", tt.name, got)
		}
	}
}

func TestParseAgentSettings(t *testing.T) {
	for _, tt := range []struct {
		name    string
		meta    map[string]any
		ws      string
		auto    bool
		wantErr bool
		none    bool
	}{
		{"gemini", map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": "/w", "autoExecute": true, "isTrusted": true}}, "/w", true, false, false},
		{"gemini other kind", map[string]any{"coderAgent": map[string]any{"kind": "thought"}}, "", false, false, true},
		{"gemini bad path", map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": 1}}, "", false, true, false},
		{"gemini bad auto", map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "autoExecute": "yes"}}, "", false, true, false},
		{"rfc", map[string]any{ExtensionURI: map[string]any{"workspace_path": "/r"}}, "/r", false, false, false},
		{"rfc camel", map[string]any{ExtensionURI: map[string]any{"workspacePath": "/r"}}, "/r", false, false, false},
		{"rfc bad path", map[string]any{ExtensionURI: map[string]any{"workspace_path": 3}}, "", false, true, false},
		{"nothing", map[string]any{"x": 1}, "", false, false, true},
	} {
		got, err := parseAgentSettings(tt.meta)
		switch {
		case tt.wantErr:
			if err == nil {
				t.Errorf("%s: no error", tt.name)
			}
		case tt.none:
			if got != nil || err != nil {
				t.Errorf("%s: got %+v, %v", tt.name, got, err)
			}
		default:
			if err != nil || got == nil || got.WorkspacePath != tt.ws || got.AutoExecute != tt.auto {
				t.Errorf("%s: got %+v, %v", tt.name, got, err)
			}
		}
	}
}

func call(status agent.Status, d *tool.ConfirmationDetails) *agent.ToolCall {
	c := &agent.ToolCall{ID: "c1", Name: "run_shell_command", Args: map[string]any{"command": "ls"}, Status: status}
	if d != nil {
		c.Confirmation = &agent.Confirmation{CallID: "c1", Details: d}
	}
	return c
}

// TestRFCConformance checks each schema of the RFC's §3.2 on the objects
// the extension format produces.
func TestRFCConformance(t *testing.T) {
	orig := "old"
	for _, tt := range []struct {
		section string
		check   func() string
	}{
		{"3.2 ToolCall status PENDING", func() string {
			return expect(extToolCall(call(agent.StatusScheduled, nil), "/ws").Status, devPending)
		}},
		{"3.2 ToolCall status EXECUTING with live_content", func() string {
			c := call(agent.StatusExecuting, nil)
			c.LiveOutput = "partial"
			tc := extToolCall(c, "/ws")
			if tc.LiveContent == nil {
				return "no live_content"
			}
			return expect(tc.Status+" "+*tc.LiveContent, "EXECUTING partial")
		}},
		{"3.2 ToolOutput text", func() string {
			c := call(agent.StatusSuccess, nil)
			c.Result = tool.Text("listing")
			tc := extToolCall(c, "/ws")
			if tc.Output == nil || tc.Output.Text == nil {
				return "no text output"
			}
			return expect(tc.Status+" "+*tc.Output.Text, "SUCCEEDED listing")
		}},
		{"3.2 ToolOutput diff", func() string {
			c := call(agent.StatusSuccess, nil)
			c.Result = &tool.Result{LLMText: "ok", Diff: tool.NewFileDiff("/ws/a.txt", &orig, "new", "new")}
			tc := extToolCall(c, "/ws")
			if tc.Output == nil || tc.Output.Diff == nil {
				return "no diff output"
			}
			return expect(tc.Output.Diff.FileName+" "+*tc.Output.Diff.OldContent+" "+tc.Output.Diff.NewContent, "a.txt old new")
		}},
		{"3.2 ToolOutput structured_data", func() string {
			c := call(agent.StatusSuccess, nil)
			c.Result = &tool.Result{LLMPart: &genai.Part{FunctionResponse: &genai.FunctionResponse{Response: map[string]any{"todos": []any{"a"}}}}}
			tc := extToolCall(c, "/ws")
			if tc.Output == nil || tc.Output.StructuredData == nil {
				return "no structured_data"
			}
			return ""
		}},
		{"3.2 ErrorDetails", func() string {
			c := call(agent.StatusError, nil)
			c.Result = tool.Fail(tool.ErrFileNotFound, "no such file")
			tc := extToolCall(c, "/ws")
			if tc.Error == nil {
				return "no error"
			}
			return expect(tc.Status+" "+tc.Error.Message+" "+tc.Error.Type, "FAILED no such file file_not_found")
		}},
		{"3.2 CANCELLED", func() string {
			c := call(agent.StatusCancelled, nil)
			c.Result = tool.Fail(tool.ErrCancelled, "denied")
			return expect(extToolCall(c, "/ws").Status, devCancelled)
		}},
		{"3.2 ConfirmationRequest execute_details", func() string {
			tc := extToolCall(call(agent.StatusAwaitingApproval, &tool.ConfirmationDetails{Type: tool.ConfirmExec, Command: "ls -l", RootCommand: "ls"}), "/ws")
			cr := tc.ConfirmationRequest
			if cr == nil || cr.ExecuteDetails == nil {
				return "no execute_details"
			}
			return expect(cr.ExecuteDetails.Command+" "+cr.ExecuteDetails.WorkingDirectory+" "+optionIDs(cr), "ls -l /ws proceed_once,proceed_always,cancel")
		}},
		{"3.2 ConfirmationRequest file_edit_details", func() string {
			tc := extToolCall(call(agent.StatusAwaitingApproval, &tool.ConfirmationDetails{Type: tool.ConfirmEdit, FileName: "a", FilePath: "/ws/a", FileDiff: "--- a", OriginalContent: &orig, NewContent: "n"}), "/ws")
			cr := tc.ConfirmationRequest
			if cr == nil || cr.FileEditDetails == nil {
				return "no file_edit_details"
			}
			return expect(cr.FileEditDetails.FilePath+" "+cr.FileEditDetails.FormattedDiff, "/ws/a --- a")
		}},
		{"3.2 ConfirmationRequest mcp_details", func() string {
			tc := extToolCall(call(agent.StatusAwaitingApproval, &tool.ConfirmationDetails{Type: tool.ConfirmMCP, ServerName: "srv", ToolName: "t"}), "/ws")
			cr := tc.ConfirmationRequest
			if cr == nil || cr.McpDetails == nil {
				return "no mcp_details"
			}
			return expect(cr.McpDetails.ServerName+" "+cr.McpDetails.ToolName+" "+optionIDs(cr), "srv t proceed_once,proceed_always_tool,proceed_always_server,cancel")
		}},
		{"3.2 ConfirmationRequest generic_details", func() string {
			tc := extToolCall(call(agent.StatusAwaitingApproval, &tool.ConfirmationDetails{Type: tool.ConfirmInfo, Title: "Fetch", URLs: []string{"https://x"}}), "/ws")
			cr := tc.ConfirmationRequest
			if cr == nil || cr.GenericDetails == nil || !strings.Contains(cr.GenericDetails.Description, "https://x") {
				return "no generic_details"
			}
			return ""
		}},
		{"3.2 proto field names on the wire", func() string {
			b, _ := json.Marshal(extToolCall(call(agent.StatusAwaitingApproval, &tool.ConfirmationDetails{Type: tool.ConfirmExec, Command: "ls"}), "/ws"))
			for _, k := range []string{`"tool_call_id"`, `"tool_name"`, `"input_parameters"`, `"confirmation_request"`, `"execute_details"`, `"working_directory"`} {
				if !bytes.Contains(b, []byte(k)) {
					return "missing " + k + " in " + string(b)
				}
			}
			return ""
		}},
		{"3.2 DevelopmentToolEvent metadata keyed by URI", func() string {
			r := newRenderer(true, "t", "c")
			evs := r.render(&update{kind: uError, text: "boom", errMsg: "boom", model: "m", state: StateWorking})
			su := evs[0].(*StatusUpdateEvent)
			ev, _ := su.Metadata[ExtensionURI].(map[string]any)
			return expect(ev["kind"].(string)+" "+ev["model"].(string)+" "+ev["error"].(string), "STATE_CHANGE m boom")
		}},
		{"3.2 AgentThought", func() string {
			r := newRenderer(true, "t", "c")
			evs := r.render(&update{kind: uThought, thought: &agent.Thought{Subject: "S", Description: "D"}, state: StateWorking})
			su := evs[0].(*StatusUpdateEvent)
			b, _ := json.Marshal(su.Status.Message.Parts[0])
			return expect(string(b), `{"kind":"data","data":{"description":"D","subject":"S"}}`)
		}},
		{"3.3 one ToolCall update per status change", func() string {
			r := newRenderer(true, "t", "c")
			n := 0
			for _, s := range []agent.Status{agent.StatusExecuting, agent.StatusExecuting, agent.StatusSuccess} {
				c := call(s, nil)
				if s == agent.StatusSuccess {
					c.Result = tool.Text("x")
				}
				n += len(r.render(&update{kind: uTool, call: c}))
			}
			return expect(strings.Repeat("x", n), "xx")
		}},
	} {
		if msg := tt.check(); msg != "" {
			t.Errorf("%s: %s", tt.section, msg)
		}
	}
}

func expect(got, want string) string {
	if got != want {
		return "got " + got + ", want " + want
	}
	return ""
}

func optionIDs(cr *devConfirmationRequest) string {
	var ids []string
	for _, o := range cr.Options {
		ids = append(ids, o.ID)
	}
	return strings.Join(ids, ",")
}

func TestEvictIdle(t *testing.T) {
	now := time.Unix(1000, 0)
	s, err := NewServer(Config{AllowedRoot: t.TempDir(), Now: func() time.Time { return now }, NewSession: noSession})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(t.Context())
	tk := s.newTask("idle-task", "ctx", AgentSettings{})
	tk.state = StateInputRequired
	s.host.Add(tk)
	if n := s.host.EvictIdle(now.Add(-time.Minute)); n != 0 {
		t.Fatalf("evicted a fresh task")
	}
	if n := s.host.EvictIdle(now.Add(time.Minute)); n != 1 {
		t.Fatalf("evicted %d", n)
	}
	// Evicted from memory, not from the store.
	got, err := s.lookupTask(t.Context(), "idle-task")
	if err != nil || got.state != StateInputRequired {
		t.Fatalf("reload = %v, %v", got, err)
	}
}

func TestStoreRejectsBadIDs(t *testing.T) {
	fs := NewMemoryStore()
	for _, id := range []string{"../x", "a/b", "", "a b", strings.Repeat("x", 200)} {
		if err := fs.Save(t.Context(), &StoredTask{ID: id}); err == nil {
			t.Errorf("saved %q", id)
		}
		if _, err := fs.Load(t.Context(), id); err != ErrNotFound {
			t.Errorf("load %q: %v", id, err)
		}
	}
}

// --- fuzz tests of everything a client sends -----------------------------

func FuzzParseConfirmation(f *testing.F) {
	f.Add(`{"callId":"c","outcome":"proceed_once","newContent":"x"}`)
	f.Add(`{"tool_call_id":"c","selected_option_id":"cancel","file_details":{"new_content":"y"}}`)
	f.Add(`{"` + ExtensionURI + `":{"toolCallId":"c","selectedOptionId":"x"}}`)
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		if c, ok := parseConfirmation(v); ok && (c.CallID == "" || c.Outcome == "") {
			t.Fatalf("empty confirmation %+v", c)
		}
	})
}

func FuzzParseAgentSettings(f *testing.F) {
	f.Add(`{"coderAgent":{"kind":"agent-settings","workspacePath":"/x","autoExecute":true}}`)
	f.Add(`{"` + ExtensionURI + `":{"workspace_path":"/y"}}`)
	f.Add(`{"coderAgent":{"kind":"agent-settings","workspacePath":[]}}`)
	f.Fuzz(func(t *testing.T, s string) {
		var m map[string]any
		if json.Unmarshal([]byte(s), &m) != nil {
			return
		}
		parseAgentSettings(m)
	})
}

func FuzzPartJSON(f *testing.F) {
	f.Add(`{"kind":"text","text":"hi"}`)
	f.Add(`{"kind":"data","data":{"a":1}}`)
	f.Add(`{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain"}}`)
	f.Fuzz(func(t *testing.T, s string) {
		var p Part
		if json.Unmarshal([]byte(s), &p) != nil {
			return
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var q Part
		if err := json.Unmarshal(b, &q); err != nil {
			t.Fatalf("round trip of %s: %v", b, err)
		}
	})
}

func FuzzSemver(f *testing.F) {
	for _, s := range []string{"v0", "1.2.3", "v1.0.0-rc.1+b", "01", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := semver.Parse(s)
		if ok && !semver.Satisfies(v, v) {
			t.Fatalf("%q does not satisfy itself", s)
		}
		extensionFor(extensionURIPrefix + s + extensionURISuffix)
	})
}

// FuzzServeHTTP sends arbitrary bodies to the JSON-RPC endpoint: every
// answer is a JSON-RPC error or result, never a crash. Only methods that
// need no model are reachable with a well-formed request here.
func FuzzServeHTTP(f *testing.F) {
	root := f.TempDir()
	ws := filepath.Join(root, "ws")
	os.Mkdir(ws, 0o755)
	// No model and no credentials: a turn that slips through fails fast
	// and never reaches a real service.
	s, err := NewServer(Config{AllowedRoot: root, Workspace: ws, HomeDir: root,
		NewSession: noSession})
	if err != nil {
		f.Fatal(err)
	}
	for _, b := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x","historyLength":-3}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{"taskId":"x","pushNotificationConfig":{"url":"http://[::1]/"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"command/execute","params":{"command_path":["extensions","list"]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"commands/get"}`,
		`{"jsonrpc":"2.0","id":1,"method":"commands/get","params":{"taskId":"zz"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"command/execute","params":{"command_path":["compress"],"taskId":"zz"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m","parts":[{"kind":"data","data":{}}],"taskId":"zz"}}}`,
	} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var probe struct {
			Method string `json:"method"`
		}
		json.Unmarshal(body, &probe)
		if probe.Method == "message/send" || probe.Method == "message/stream" {
			// Only against unknown tasks: a real turn needs a model.
			if !bytes.Contains(body, []byte(`"taskId"`)) {
				return
			}
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
		if rec.Code == http.StatusOK && strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			return
		}
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out["jsonrpc"] != "2.0" {
			t.Fatalf("answer %d %q", rec.Code, rec.Body.String())
		}
	})
}

// noSession is a session factory for tests that never run a turn.
func noSession(context.Context, SessionSpec) (*TaskSession, error) {
	return nil, errors.New("no model in this test")
}
