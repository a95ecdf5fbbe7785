package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/npmtest"
	"github.com/castor-dev/castor/model/gemini"
)

func noEnv(string) (string, bool) { return "", false }

// recorder is a client handler that keeps every update and answers
// permissions from a script.
type recorder struct {
	mu          sync.Mutex
	updates     []sdk.SessionUpdate
	permissions []sdk.RequestPermissionRequest
	answers     []string // option ids; "" cancels
	onAsk       func(sdk.RequestPermissionRequest)
}

func (r *recorder) handler() acp.Handler {
	return acp.Handler{
		Update: func(_ context.Context, n sdk.SessionNotification) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.updates = append(r.updates, n.Update)
		},
		Permission: func(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			r.mu.Lock()
			r.permissions = append(r.permissions, p)
			a := ""
			if len(r.answers) > 0 {
				a, r.answers = r.answers[0], r.answers[1:]
			}
			ask := r.onAsk
			r.mu.Unlock()
			if ask != nil {
				ask(p)
			}
			if a == "" {
				return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
			}
			return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(a)}}}, nil
		},
	}
}

// kinds summarises the updates received since the last call.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, u := range r.updates {
		b, _ := json.Marshal(u)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		s := m["sessionUpdate"].(string)
		switch s {
		case "agent_message_chunk", "agent_thought_chunk", "user_message_chunk":
			s += ":" + m["content"].(map[string]any)["text"].(string)
		case "tool_call":
			s += ":" + m["kind"].(string) + ":" + m["status"].(string) + ":" + m["title"].(string)
		case "tool_call_update":
			st, _ := m["status"].(string)
			s += ":" + st
		}
		out = append(out, s)
	}
	r.updates = nil
	return out
}

type env struct {
	srv       *fakegemini.Server
	home, dir string
}

func newEnv(t *testing.T, replies ...fakegemini.Reply) *env {
	t.Helper()
	return &env{srv: fakegemini.Start(t, replies...), home: t.TempDir(), dir: t.TempDir()}
}

func (e *env) options(t *testing.T, extra ...castor.Option) []castor.Option {
	t.Helper()
	client, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: e.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return append([]castor.Option{
		castor.WithClient(client), castor.WithoutSettings(), castor.WithHomeDir(e.home), castor.WithEnv(noEnv),
	}, extra...)
}

func (e *env) connect(t *testing.T, h acp.Handler, opts ...castor.Option) *acp.Client {
	t.Helper()
	srv := acp.NewServer(e.options(t, opts...)...)
	srv.Log = testLog{t}
	c := srv.Connect(context.Background(), h)
	t.Cleanup(func() { c.Close() })
	if _, err := c.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func check(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s = %s\nwant %s", what, g, w)
	}
}

// TestServerAndClient drives an SDK agent with a custom tool through the
// SDK's own client: text and thoughts, a custom tool, an edit allowed for
// the session (asked once, written by the client's fs/write_text_file),
// a rejected shell call and a turn cancelled while a permission waits.
func TestServerAndClient(t *testing.T) {
	e := newEnv(t)
	a := filepath.Join(e.dir, "a.txt")
	b := filepath.Join(e.dir, "b.txt")
	e.srv.Enqueue(
		fakegemini.Parts(fakegemini.ThoughtPart("**Think** first"), fakegemini.TextPart("hi")),
		fakegemini.Call("get_weather", map[string]any{"city": "Paris"}), fakegemini.Text("sunny"),
		fakegemini.Call("write_file", map[string]any{"file_path": a, "content": "A\n"}),
		fakegemini.Call("write_file", map[string]any{"file_path": b, "content": "B\n"}),
		fakegemini.Text("done"),
		// printf, not echo: echo is a known-safe command that runs unasked.
		fakegemini.Call("run_shell_command", map[string]any{"command": "printf no"}),
		fakegemini.Text("not run"), // the model answers the Reject
		fakegemini.Call("run_shell_command", map[string]any{"command": "printf cancel"}),
	)
	type in struct {
		City string `json:"city"`
	}
	weather := castor.MustTool("get_weather", "Weather in a city.", func(_ context.Context, v in) (string, error) { return "sunny in " + v.City, nil })
	rec := &recorder{}
	var written []string
	h := acp.LocalFiles(rec.handler())
	write := h.WriteTextFile
	h.WriteTextFile = func(ctx context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
		written = append(written, r.Path)
		return write(ctx, r)
	}
	c := e.connect(t, h, castor.WithTools(weather), castor.WithoutRecording())
	ctx := context.Background()
	s, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}

	r, err := c.PromptText(ctx, s.SessionId, "hello")
	if err != nil {
		t.Fatal(err)
	}
	check(t, "stop", r.StopReason, sdk.StopReasonEndTurn)
	got := rec.take()
	// The commands announcement races the first prompt; it is checked apart.
	if len(got) > 0 && got[0] == "available_commands_update" {
		got = got[1:]
	}
	check(t, "text", got, []string{"agent_thought_chunk:**Think**\nfirst", "agent_message_chunk:hi"})

	r, err = c.PromptText(ctx, s.SessionId, "weather?")
	if err != nil {
		t.Fatal(err)
	}
	check(t, "custom tool", rec.take(), []string{"tool_call:other:pending:get_weather", "tool_call_update:in_progress", "tool_call_update:completed", "agent_message_chunk:sunny"})

	rec.answers = []string{"proceed_always"}
	if _, err := c.PromptText(ctx, s.SessionId, "write both"); err != nil {
		t.Fatal(err)
	}
	check(t, "asked once", len(rec.permissions), 1)
	check(t, "written through the client", written, []string{a, b})
	for _, p := range []string{a, b} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}

	rec.permissions = nil
	rec.answers = []string{"cancel"}
	r, err = c.PromptText(ctx, s.SessionId, "shell")
	if err != nil {
		t.Fatal(err)
	}
	check(t, "rejected stop", r.StopReason, sdk.StopReasonEndTurn)
	check(t, "rejected options", rec.permissions[0].Options, []sdk.PermissionOption{
		{OptionId: "proceed_once", Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: "proceed_always", Name: "Always allow printf for this session", Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: "cancel", Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
	})

	rec.take()
	rec.onAsk = func(sdk.RequestPermissionRequest) {
		if err := c.Cancel(ctx, sdk.CancelNotification{SessionId: s.SessionId}); err != nil {
			t.Error(err)
		}
	}
	rec.answers = []string{"proceed_once"} // too late: the turn is cancelled
	r, err = c.PromptText(ctx, s.SessionId, "shell again")
	if err != nil {
		t.Fatal(err)
	}
	check(t, "cancelled stop", r.StopReason, sdk.StopReasonCancelled)
	if _, err := os.Stat(filepath.Join(e.dir, "cancel")); err == nil {
		t.Error("the cancelled command ran")
	}
}

// TestLoadReplaysAndKeepsTheFile records a session through one server
// and loads it through another: the history comes back as updates and
// the session file only grows.
func TestLoadReplaysAndKeepsTheFile(t *testing.T) {
	e := newEnv(t,
		fakegemini.Call("write_todos", map[string]any{"todos": []any{
			map[string]any{"description": "one", "status": "completed"},
			map[string]any{"description": "two", "status": "in_progress"},
		}}),
		fakegemini.Text("planned"),
	)
	ctx := context.Background()
	rec := &recorder{}
	c := e.connect(t, rec.handler())
	s, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PromptText(ctx, s.SessionId, "plan it"); err != nil {
		t.Fatal(err)
	}
	live := rec.take()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(e.home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	before, _ := os.ReadFile(files[0])

	rec2 := &recorder{}
	c2 := e.connect(t, rec2.handler())
	list, err := c2.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: &e.dir})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "listed", len(list.Sessions), 1)
	if _, err := c2.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: e.dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	check(t, "replay", rec2.take(), []string{"user_message_chunk:plan it", "tool_call:think:completed:Set 2 todo(s)", "plan", "agent_message_chunk:planned", "available_commands_update"})
	if !contains(live, "plan") {
		t.Errorf("live updates have no plan: %v", live)
	}
	if err := c2.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(files[0])
	if !strings.HasPrefix(string(after), string(before)) {
		t.Errorf("the session file was rewritten")
	}

	// An unknown session is an error, not a new session.
	c3 := e.connect(t, (&recorder{}).handler())
	_, err = c3.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "no-such-session", Cwd: e.dir, McpServers: []sdk.McpServer{}})
	var re *sdk.RequestError
	if !asRequestError(err, &re) || re.Code != -32602 {
		t.Errorf("load of an unknown session: %v", err)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func asRequestError(err error, re **sdk.RequestError) bool {
	return errors.As(err, re)
}

// fakeTerminal is a client terminal that records what it was asked to
// run and prints a fixed output.
type fakeTerminal struct {
	mu       sync.Mutex
	commands [][]string
	released bool
}

func (f *fakeTerminal) CreateTerminal(_ context.Context, r sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.commands = append(f.commands, append([]string{r.Command}, r.Args...))
	return sdk.CreateTerminalResponse{TerminalId: "term-1"}, nil
}

func (f *fakeTerminal) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, nil
}

func (f *fakeTerminal) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{Output: "from the editor's terminal\n", ExitStatus: &sdk.TerminalExitStatus{ExitCode: sdk.Ptr(0)}}, nil
}

func (f *fakeTerminal) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.released = true
	return sdk.ReleaseTerminalResponse{}, nil
}

func (f *fakeTerminal) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{ExitCode: sdk.Ptr(0)}, nil
}

// lastResponse is the text of the function response the model got last.
func lastResponse(t *testing.T, srv *fakegemini.Server) string {
	t.Helper()
	req := srv.LastRequest()
	for i := len(req.Contents) - 1; i >= 0; i-- {
		for _, p := range req.Contents[i].Parts {
			if p.FunctionResponse != nil {
				b, _ := json.Marshal(p.FunctionResponse.Response)
				return string(b)
			}
		}
	}
	t.Fatal("no function response in the last request")
	return ""
}

// TestEditorFilesAndTerminal checks that with the client's capabilities
// read_file sees the editor's buffer and shell commands run in the
// editor's terminal, shown in the call's content.
func TestEditorFilesAndTerminal(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join(e.dir, "f.txt")
	if err := os.WriteFile(file, []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(
		fakegemini.Call("read_file", map[string]any{"file_path": file}), fakegemini.Text("read"),
		fakegemini.Call("run_shell_command", map[string]any{"command": "make test"}), fakegemini.Text("ran"),
	)
	rec := &recorder{answers: []string{"proceed_once"}}
	term := &fakeTerminal{}
	h := rec.handler()
	h.ReadTextFile = func(_ context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
		return sdk.ReadTextFileResponse{Content: "unsaved in the editor\n"}, nil
	}
	h.WriteTextFile = func(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
		return sdk.WriteTextFileResponse{}, nil
	}
	h.Terminal = term
	c := e.connect(t, h, castor.WithoutRecording())
	ctx := context.Background()
	s, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PromptText(ctx, s.SessionId, "read f.txt"); err != nil {
		t.Fatal(err)
	}
	if got := lastResponse(t, e.srv); !strings.Contains(got, "unsaved in the editor") {
		t.Errorf("read_file gave the model %s", got)
	}
	rec.take()
	if _, err := c.PromptText(ctx, s.SessionId, "run the tests"); err != nil {
		t.Fatal(err)
	}
	if got := lastResponse(t, e.srv); !strings.Contains(got, "from the editor's terminal") || !strings.Contains(got, "Exit Code: 0") {
		t.Errorf("run_shell_command gave the model %s", got)
	}
	check(t, "terminal commands", len(term.commands), 1)
	if len(term.commands) == 1 && (term.commands[0][0] != "bash" || !strings.HasSuffix(term.commands[0][2], "make test")) {
		t.Errorf("terminal ran %q", term.commands[0])
	}
	check(t, "released", term.released, true)
	var sawTerminal bool
	rec.mu.Lock()
	for _, u := range rec.updates {
		if u.ToolCallUpdate != nil {
			for _, c := range u.ToolCallUpdate.Content {
				sawTerminal = sawTerminal || (c.Terminal != nil && c.Terminal.TerminalId == "term-1")
			}
		}
	}
	rec.mu.Unlock()
	check(t, "terminal shown in the call", sawTerminal, true)
}

// TestClientMCPServers starts the MCP servers a client passes in
// session/new (server-everything over stdio) for that session only.
func TestClientMCPServers(t *testing.T) {
	node, everything := npmtest.Server(t, "server-everything")
	e := newEnv(t,
		fakegemini.Call("ev__echo", map[string]any{"message": "through the client's server"}),
		fakegemini.Text("echoed"),
	)
	rec := &recorder{answers: []string{"proceed_once"}}
	c := e.connect(t, rec.handler(), castor.WithoutRecording())
	ctx := context.Background()
	s, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "ev", Command: node, Args: []string{everything, "stdio"}, Env: []sdk.EnvVariable{}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.PromptText(ctx, s.SessionId, "echo")
	if err != nil {
		t.Fatal(err)
	}
	check(t, "stop", r.StopReason, sdk.StopReasonEndTurn)
	b, _ := json.Marshal(e.srv.LastRequest().Contents)
	if !strings.Contains(string(b), "through the client's server") {
		t.Errorf("the MCP tool's answer did not reach the model: %s", b)
	}
	check(t, "asked", len(rec.permissions), 1)
}

// TestModesModelsAndAuth switches the approval mode (yolo runs a shell
// call without asking) and the model (the next request names it), and
// checks authenticate and the errors of unknown sessions and methods.
func TestModesModelsAndAuth(t *testing.T) {
	e := newEnv(t,
		fakegemini.Call("run_shell_command", map[string]any{"command": "true"}), fakegemini.Text("ran"),
	)
	rec := &recorder{}
	c := e.connect(t, rec.handler(), castor.WithoutRecording())
	ctx := context.Background()
	s, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	resp, err := c.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: s.SessionId, ConfigId: "model", Value: "gemini-2.5-flash"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range resp.ConfigOptions {
		switch o.Select.Id {
		case "model":
			check(t, "model option", o.Select.CurrentValue, "gemini-2.5-flash")
		case "mode":
			check(t, "mode option", o.Select.CurrentValue, "yolo")
		}
	}
	if _, err := c.PromptText(ctx, s.SessionId, "run it"); err != nil {
		t.Fatal(err)
	}
	check(t, "asked in yolo", len(rec.permissions), 0)
	check(t, "model asked", e.srv.LastRequest().Model, "gemini-2.5-flash")

	_, err = c.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "chaos"})
	checkCode(t, "unknown mode", err, -32602)
	_, err = c.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: "nope", ModeId: "yolo"})
	checkCode(t, "unknown session", err, -32602)
	_, err = c.NewSession(ctx, sdk.NewSessionRequest{Cwd: "relative/dir", McpServers: []sdk.McpServer{}})
	checkCode(t, "relative cwd", err, -32602)
	_, err = c.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: "oauth-personal"})
	checkCode(t, "gemini's sign-in", err, -32602)
	if _, err := c.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: "gemini-api-key", Meta: map[string]any{"api-key": "k2"}}); err != nil {
		t.Error(err)
	}
}

func checkCode(t *testing.T, what string, err error, code int) {
	t.Helper()
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != code {
		t.Errorf("%s: error %v, want code %d", what, err, code)
	}
}

// TestSlashCommands runs the session's commands from prompts: /memory
// answers without the model, /init submits its prompt to the model, and a
// line naming no command goes to the model as typed.
func TestSlashCommands(t *testing.T) {
	e := newEnv(t, fakegemini.Text("initialised"), fakegemini.Text("not a command"))
	rec := &recorder{}
	c := e.connect(t, rec.handler(), castor.WithoutRecording())
	ctx := context.Background()
	s, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PromptText(ctx, s.SessionId, "/memory show"); err != nil {
		t.Fatal(err)
	}
	got := rec.take()
	var answered bool
	for _, u := range got {
		answered = answered || strings.HasPrefix(u, "agent_message_chunk:")
	}
	if !answered || len(e.srv.Requests()) != 0 {
		t.Errorf("/memory show: updates %q, %d model calls", got, len(e.srv.Requests()))
	}
	if _, err := c.PromptText(ctx, s.SessionId, "/init"); err != nil {
		t.Fatal(err)
	}
	if n := len(e.srv.Requests()); n != 1 || !strings.Contains(mustText(e.srv.LastRequest()), "GEMINI.md") {
		t.Errorf("/init: %d model calls, last %q", n, mustText(e.srv.LastRequest()))
	}
	if _, err := c.PromptText(ctx, s.SessionId, "/nope at all"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mustText(e.srv.LastRequest()), "/nope at all") {
		t.Errorf("an unknown command did not reach the model")
	}
}

func mustText(r *fakegemini.Request) string {
	if r == nil {
		return ""
	}
	b, _ := json.Marshal(r.Contents)
	return string(b)
}

// TestCancelWhileModelStreams cancels a turn whose model call hangs.
func TestCancelWhileModelStreams(t *testing.T) {
	e := newEnv(t, fakegemini.Hang(), fakegemini.Text("after"))
	rec := &recorder{}
	c := e.connect(t, rec.handler(), castor.WithoutRecording())
	ctx := context.Background()
	s, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		r   sdk.PromptResponse
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := c.PromptText(ctx, s.SessionId, "hang")
		done <- result{r, err}
	}()
	for len(e.srv.Requests()) == 0 {
		time.Sleep(5 * time.Millisecond) // waiting for the model call, not asserting time
	}
	if err := c.Cancel(ctx, sdk.CancelNotification{SessionId: s.SessionId}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.err != nil || res.r.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("cancelled prompt: %+v, %v", res.r, res.err)
	}
	// The session goes on.
	r, err := c.PromptText(ctx, s.SessionId, "again")
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("next prompt: %+v, %v", r, err)
	}
}

// TestDeleteSession: session/delete (advertised) removes a recorded
// session from session/list, closing it first when open; an unknown id
// or a list index is "Session not found", never another session.
func TestDeleteSession(t *testing.T) {
	e := newEnv(t, fakegemini.Text("one"), fakegemini.Text("two"))
	ctx := context.Background()
	c := e.connect(t, (&recorder{}).handler())
	var ids []sdk.SessionId
	for _, p := range []string{"first", "second"} {
		s, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.PromptText(ctx, s.SessionId, p); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.SessionId)
	}
	for _, bad := range []sdk.SessionId{"no-such-session", "1"} {
		_, err := c.UnstableDeleteSession(ctx, sdk.UnstableDeleteSessionRequest{SessionId: bad})
		var re *sdk.RequestError
		if !asRequestError(err, &re) || re.Code != -32602 {
			t.Errorf("delete %q: %v", bad, err)
		}
	}
	if _, err := c.UnstableDeleteSession(ctx, sdk.UnstableDeleteSessionRequest{SessionId: ids[0]}); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: &e.dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != ids[1] {
		t.Errorf("listed after delete: %+v", list.Sessions)
	}
	if _, err := c.PromptText(ctx, ids[0], "again"); err == nil {
		t.Error("a deleted session still takes prompts")
	}
}

// TestModelPickerOffers3x: the model selector offers auto and the 3.x
// models auto routes to (Gemini CLI 0.61's picker), not 2.5-era ones.
func TestModelPickerOffers3x(t *testing.T) {
	e := newEnv(t)
	c := e.connect(t, (&recorder{}).handler(), castor.WithoutRecording())
	s, err := c.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range s.ConfigOptions {
		if o.Select != nil && o.Select.Id == "model" && o.Select.Options.Ungrouped != nil {
			for _, v := range *o.Select.Options.Ungrouped {
				got = append(got, string(v.Value))
			}
		}
	}
	for _, want := range []string{"auto", "gemini-3.1-pro-preview", "gemini-3.8-flash", "gemini-3.5-flash-lite"} {
		if !contains(got, want) {
			t.Errorf("model options %v lack %s", got, want)
		}
	}
	if contains(got, "gemini-2.5-flash-lite") {
		t.Errorf("model options %v still offer 2.5 models", got)
	}
}
