package mcpserve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/policy"
)

// harness is a server on a fake model and a go-sdk client connected in
// memory.
type harness struct {
	fake *fakegemini.Server
	wd   string
	cs   *mcp.ClientSession
}

func start(t *testing.T, max policy.Mode, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *harness {
	return startWith(t, max, &mcp.ClientOptions{ElicitationHandler: elicit}, nil, oldProtocol)
}

// oldProtocol is the last version in which a server asks while a call
// runs; later ones (the go-sdk client's default) get questions in the
// call's result (mrtr.go).
const oldProtocol = "2025-11-25"

// startWith is start with the client's options and a change to the
// server's environment.
func startWith(t *testing.T, max policy.Mode, copts *mcp.ClientOptions, envChange func(map[string]string), protocol string) *harness {
	t.Helper()
	fake := fakegemini.Start(t)
	env := map[string]string{"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": fake.URL, "GEMINI_CLI_TRUST_WORKSPACE": "true"}
	if envChange != nil {
		envChange(env)
	}
	wd := t.TempDir()
	s := New(Config{
		Base: setup.Options{
			WorkDir: wd, HomeDir: t.TempDir(), Model: "gemini-2.5-flash", EnforceTrust: true,
			Env:  func(k string) (string, bool) { v, ok := env[k]; return v, ok },
			Warn: func(s string) { t.Log("warning: " + s) },
		},
		MaxApprovalMode: max,
	})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &harness{fake: fake, wd: wd, cs: cs}
}

func (h *harness) call(t *testing.T, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %v", name, res.Content)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
	return res
}

func TestPromptToolCallThenResume(t *testing.T) {
	h := start(t, policy.ModeDefault, nil)
	if err := os.WriteFile(filepath.Join(h.wd, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.fake.Enqueue(
		fakegemini.Call("read_file", map[string]any{"file_path": "notes.txt"}),
		fakegemini.Text("The file says 42."),
	)
	var first PromptResult
	res := h.call(t, "prompt", map[string]any{"prompt": "What does notes.txt say?", "approval_mode": "yolo"}, &first)
	if first.Response != "The file says 42." || first.SessionID == "" {
		t.Fatalf("first answer %+v", first)
	}
	if first.ApprovalMode != "default" {
		t.Errorf("approval mode %q: yolo asked of a server capped at default must run as default", first.ApprovalMode)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != first.Response {
		t.Errorf("text content %v", res.Content)
	}
	if body := string(h.fake.LastRequest().Body); !strings.Contains(body, "the answer is 42") {
		t.Errorf("the tool's output did not reach the model: %s", body)
	}

	h.fake.Enqueue(fakegemini.Text("You asked about notes.txt."))
	var second PromptResult
	h.call(t, "prompt", map[string]any{"prompt": "What did I ask?", "session_id": first.SessionID}, &second)
	if second.SessionID != first.SessionID || second.Response != "You asked about notes.txt." {
		t.Fatalf("resumed answer %+v", second)
	}
	if body := string(h.fake.LastRequest().Body); !strings.Contains(body, "What does notes.txt say?") || !strings.Contains(body, "The file says 42.") {
		t.Errorf("the resumed session did not carry its history: %s", body)
	}

	var list ListResult
	h.call(t, "list_sessions", nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != first.SessionID {
		t.Fatalf("sessions %+v", list)
	}
	var read ReadResult
	h.call(t, "read_session", map[string]any{"session_id": first.SessionID[:8]}, &read)
	var texts []string
	for _, m := range read.Messages {
		texts = append(texts, m.Type+": "+m.Text+" "+strings.Join(m.ToolCalls, ","))
	}
	got := strings.Join(texts, "\n")
	for _, want := range []string{"user: What does notes.txt say?", "read_file", "gemini: The file says 42.", "user: What did I ask?", "gemini: You asked about notes.txt."} {
		if !strings.Contains(got, want) {
			t.Errorf("read_session lacks %q:\n%s", want, got)
		}
	}
}

func TestConfirmations(t *testing.T) {
	tests := []struct {
		name    string
		elicit  func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		written bool
	}{
		{"no elicitation: refused by policy", nil, false},
		{"allowed through elicitation", func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if !strings.Contains(r.Params.Message, "Writing to out") {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answerOnce}}, nil
		}, true},
		{"declined through elicitation", func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}, false},
	}
	for _, protocol := range []string{oldProtocol, ""} {
		for _, tt := range tests {
			t.Run(protocol+" "+tt.name, func(t *testing.T) {
				h := startWith(t, policy.ModeDefault, &mcp.ClientOptions{ElicitationHandler: tt.elicit}, nil, protocol)
				// Two calls, two questions: a paused turn asks again.
				h.fake.Enqueue(
					fakegemini.Call("write_file", map[string]any{"file_path": "out.txt", "content": "hi"}),
					fakegemini.Call("write_file", map[string]any{"file_path": "out2.txt", "content": "hi"}),
					fakegemini.Text("done"),
				)
				var r PromptResult
				h.call(t, "prompt", map[string]any{"prompt": "write out.txt"}, &r)
				for _, f := range []string{"out.txt", "out2.txt"} {
					_, err := os.Stat(filepath.Join(h.wd, f))
					if written := err == nil; written != tt.written {
						t.Errorf("%s written %v, want %v (answer %+v)", f, written, tt.written, r)
					}
				}
				if r.Response != "done" && tt.written {
					t.Errorf("answer %+v", r)
				}
			})
		}
	}
}

func TestPromptErrors(t *testing.T) {
	h := start(t, policy.ModeDefault, nil)
	for _, args := range []map[string]any{
		{"prompt": " "},
		{"prompt": "hi", "approval_mode": "reckless"},
		{"prompt": "hi", "session_id": "no-such-session"},
	} {
		res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "prompt", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			t.Errorf("%v: no error", args)
		}
	}
}

// TestProgress: a caller that sends a progress token gets the answer's
// text as it streams.
func TestProgress(t *testing.T) {
	msgs := make(chan string, 16)
	h := startWith(t, policy.ModeDefault, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			msgs <- r.Params.Message
		},
	}, nil, oldProtocol)
	h.fake.Enqueue(fakegemini.Text("hello ", "world"))
	p := &mcp.CallToolParams{Name: "prompt", Arguments: map[string]any{"prompt": "hi"}}
	p.SetProgressToken("tok")
	res, err := h.cs.CallTool(context.Background(), p)
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	if got := <-msgs + "|" + <-msgs; got != "hello |world" {
		t.Errorf("progress messages %q", got)
	}
}

// TestUntrustedWorkspace: as in a headless run, a folder that folder
// trust does not trust is refused, and the caller is told why.
func TestUntrustedWorkspace(t *testing.T) {
	h := startWith(t, policy.ModeDefault, nil, func(env map[string]string) { delete(env, "GEMINI_CLI_TRUST_WORKSPACE") }, oldProtocol)
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "prompt", Arguments: map[string]any{"prompt": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if tc, _ := res.Content[0].(*mcp.TextContent); !res.IsError || tc == nil || !strings.Contains(tc.Text, "trust") {
		t.Errorf("untrusted folder: %v %v", res.IsError, res.Content)
	}
	if n := len(h.fake.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
}
