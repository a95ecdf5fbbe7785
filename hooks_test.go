package castor_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model/gemini"
	"github.com/castor-dev/castor/policy"
)

// commandHook is the Go hook the test binary runs as a command hook when
// CASTOR_TEST_HOOK is set (see TestMain): it blocks writes of secrets and
// logs what it saw through the SessionContext's filesystem.
var commandHook = castor.Hook{
	Event: castor.BeforeTool,
	Name:  "no-secrets",
	Func: func(ctx context.Context, in *castor.HookInput, sc castor.SessionContext) (*castor.HookOutput, error) {
		seen := in.ToolName + " " + sc.SessionID
		for _, c := range sc.Transcript {
			for _, p := range c.Parts {
				if p.Text == "write two files" {
					seen += " (prompt in transcript)"
				}
			}
		}
		if err := sc.FS.WriteFile("hook-saw.txt", seen); err != nil {
			return nil, err
		}
		if c, _ := in.ToolInput["content"].(string); strings.Contains(c, "secret") {
			return castor.Block("secrets stay out of files"), nil
		}
		return nil, nil
	},
}

func TestMain(m *testing.M) {
	if os.Getenv("CASTOR_TEST_HOOK") != "" {
		commandHook.RunAsCommand()
	}
	os.Exit(m.Run())
}

// requestText is every text and function response of a request.
func requestText(r *fakegemini.Request) string {
	var b strings.Builder
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			b.WriteString(p.Text)
			if p.FunctionResponse != nil {
				b.WriteString(mustJSON(p.FunctionResponse.Response))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func hookFunc(out *castor.HookOutput) castor.HookFunc {
	return func(context.Context, *castor.HookInput, castor.SessionContext) (*castor.HookOutput, error) {
		return out, nil
	}
}

// TestHooksInjectContent: context from SessionStart, BeforeAgent and
// AfterTool hooks reaches the model.
func TestHooksInjectContent(t *testing.T) {
	srv := fakegemini.Start(t,
		fakegemini.Call("list_directory", map[string]any{"dir_path": "."}),
		fakegemini.Text("done"))
	a := newAgent(t, srv, castor.WithHooks(
		castor.Hook{Event: castor.SessionStart, Func: hookFunc(castor.AddContext("from session start"))},
		castor.Hook{Event: castor.BeforeAgent, Func: hookFunc(castor.AddContext("from before agent"))},
		castor.Hook{Event: castor.AfterTool, Matcher: "list_.*", Func: hookFunc(castor.AddContext("from after tool"))},
	))
	if _, err := a.Send(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	first := requestText(reqs[0])
	for _, want := range []string{"<hook_context>from session start</hook_context>\n\ngo\n<hook_context>from before agent</hook_context>"} {
		if !strings.Contains(first, want) {
			t.Errorf("first request lacks %q:\n%s", want, first)
		}
	}
	if second := requestText(reqs[1]); !strings.Contains(second, `\u003chook_context\u003efrom after tool\u003c/hook_context\u003e`) {
		t.Errorf("second request:\n%s", second)
	}
}

// TestHookGlobalHalt: continue: false from any hook stops the agent.
func TestHookGlobalHalt(t *testing.T) {
	for _, tt := range []struct {
		event    castor.HookEvent
		requests int
	}{
		{castor.BeforeAgent, 0},
		{castor.BeforeModel, 0},
		{castor.AfterModel, 1},
		{castor.BeforeTool, 1},
		{castor.AfterTool, 1},
	} {
		t.Run(string(tt.event), func(t *testing.T) {
			srv := fakegemini.Start(t,
				fakegemini.Call("write_file", map[string]any{"file_path": "x.txt", "content": "x"}),
				fakegemini.Text("never"))
			a := newAgent(t, srv, castor.WithApprovalMode(policy.ModeYolo),
				castor.WithHooks(castor.Hook{Event: tt.event, Func: hookFunc(castor.Halt("stop now"))}))
			var last *agent.Event
			for ev, err := range a.Stream(context.Background(), "go") {
				if err != nil {
					t.Fatal(err)
				}
				last = ev
			}
			if last.Type != agent.EventTurnEnd || last.Reason != agent.TurnStopped {
				t.Errorf("last event %s %s %q", last.Type, last.Reason, last.Text)
			}
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("%d model requests, want %d", n, tt.requests)
			}
		})
	}
}

// TestHookReturnValues: what each kind of hook returns takes effect.
func TestHookReturnValues(t *testing.T) {
	writeX := fakegemini.Call("write_file", map[string]any{"file_path": "x.txt", "content": "original"})
	for _, tt := range []struct {
		name    string
		replies []fakegemini.Reply
		hook    castor.Hook
		check   func(t *testing.T, ws string, res *castor.Result, reqs []*fakegemini.Request)
	}{
		{
			name: "BeforeTool block", replies: []fakegemini.Reply{writeX, fakegemini.Text("ok")},
			hook: castor.Hook{Event: castor.BeforeTool, Matcher: "write_file", Func: hookFunc(castor.Block("read-only today"))},
			check: func(t *testing.T, ws string, _ *castor.Result, reqs []*fakegemini.Request) {
				if !strings.Contains(requestText(reqs[1]), `{"error":"Tool execution blocked: read-only today"}`) {
					t.Errorf("request: %s", requestText(reqs[1]))
				}
				if _, err := os.Stat(filepath.Join(ws, "x.txt")); err == nil {
					t.Error("blocked write ran")
				}
			},
		},
		{
			name: "BeforeTool rewrites arguments", replies: []fakegemini.Reply{writeX, fakegemini.Text("ok")},
			hook: castor.Hook{Event: castor.BeforeTool, Func: hookFunc(&castor.HookOutput{HookSpecificOutput: &castor.HookSpecificOutput{ToolInput: map[string]any{"content": "rewritten"}}})},
			check: func(t *testing.T, ws string, _ *castor.Result, reqs []*fakegemini.Request) {
				if b, _ := os.ReadFile(filepath.Join(ws, "x.txt")); string(b) != "rewritten" {
					t.Errorf("x.txt = %q", b)
				}
			},
		},
		{
			name: "AfterTool replaces the output", replies: []fakegemini.Reply{writeX, fakegemini.Text("ok")},
			hook: castor.Hook{Event: castor.AfterTool, Func: hookFunc(&castor.HookOutput{HookSpecificOutput: &castor.HookSpecificOutput{ToolOutput: ptr("replaced")}})},
			check: func(t *testing.T, ws string, _ *castor.Result, reqs []*fakegemini.Request) {
				if !strings.Contains(requestText(reqs[1]), `{"output":"replaced"}`) {
					t.Errorf("request: %s", requestText(reqs[1]))
				}
			},
		},
		{
			name: "BeforeModel synthetic response", replies: nil,
			hook: castor.Hook{Event: castor.BeforeModel, Func: hookFunc(&castor.HookOutput{HookSpecificOutput: &castor.HookSpecificOutput{
				LLMResponse: &castor.LLMResponse{Candidates: []castor.LLMCandidate{{Content: castor.LLMContent{Role: "model", Parts: []string{"cached answer"}}}}}}})},
			check: func(t *testing.T, ws string, res *castor.Result, reqs []*fakegemini.Request) {
				if res.Text != "cached answer" || len(reqs) != 0 {
					t.Errorf("answer %q, %d requests", res.Text, len(reqs))
				}
			},
		},
		{
			name: "BeforeModel request override", replies: []fakegemini.Reply{fakegemini.Text("ok")},
			hook: castor.Hook{Event: castor.BeforeModel, Func: func(_ context.Context, in *castor.HookInput, _ castor.SessionContext) (*castor.HookOutput, error) {
				msgs := append(in.LLMRequest.Messages, castor.LLMMessage{Role: "system", Content: "Be brief."})
				return &castor.HookOutput{HookSpecificOutput: &castor.HookSpecificOutput{LLMRequest: &castor.LLMRequest{Model: "gemini-2.5-flash", Messages: msgs}}}, nil
			}},
			check: func(t *testing.T, ws string, _ *castor.Result, reqs []*fakegemini.Request) {
				if reqs[0].Model != "gemini-2.5-flash" || !strings.HasSuffix(systemText(reqs[0]), "Be brief.") {
					t.Errorf("model %s system ends %q", reqs[0].Model, systemText(reqs[0])[max(0, len(systemText(reqs[0]))-20):])
				}
			},
		},
		{
			name: "BeforeToolSelection NONE", replies: []fakegemini.Reply{fakegemini.Text("ok")},
			hook: castor.Hook{Event: castor.BeforeToolSelection, Func: hookFunc(&castor.HookOutput{HookSpecificOutput: &castor.HookSpecificOutput{ToolConfig: &castor.HookToolConfig{Mode: "NONE"}}})},
			check: func(t *testing.T, ws string, _ *castor.Result, reqs []*fakegemini.Request) {
				if tc := reqs[0].ToolConfig; tc == nil || tc.FunctionCallingConfig == nil || tc.FunctionCallingConfig.Mode != genai.FunctionCallingConfigModeNone {
					t.Errorf("tool config %s", mustJSON(tc))
				}
			},
		},
		{
			name: "AfterModel redacts", replies: []fakegemini.Reply{fakegemini.Text("the password is hunter2")},
			hook: castor.Hook{Event: castor.AfterModel, Func: func(_ context.Context, in *castor.HookInput, _ castor.SessionContext) (*castor.HookOutput, error) {
				if !strings.Contains(in.LLMResponse.Text, "hunter2") {
					return nil, nil
				}
				return &castor.HookOutput{HookSpecificOutput: &castor.HookSpecificOutput{LLMResponse: &castor.LLMResponse{Candidates: []castor.LLMCandidate{{Content: castor.LLMContent{Parts: []string{strings.ReplaceAll(in.LLMResponse.Text, "hunter2", "***")}}}}}}}, nil
			}},
			check: func(t *testing.T, ws string, res *castor.Result, _ []*fakegemini.Request) {
				if res.Text != "the password is ***" {
					t.Errorf("answer %q", res.Text)
				}
			},
		},
		{
			name: "AfterAgent asks again", replies: []fakegemini.Reply{fakegemini.Text("draft"), fakegemini.Text("final")},
			hook: castor.Hook{Event: castor.AfterAgent, Func: func(_ context.Context, in *castor.HookInput, _ castor.SessionContext) (*castor.HookOutput, error) {
				if *in.StopHookActive {
					return nil, nil
				}
				return castor.Block("Please double-check."), nil
			}},
			check: func(t *testing.T, ws string, res *castor.Result, reqs []*fakegemini.Request) {
				if res.Text != "final" || len(reqs) != 2 || !strings.HasSuffix(requestText(reqs[1]), "Please double-check.\n") {
					t.Errorf("answer %q, %d requests", res.Text, len(reqs))
				}
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, tt.replies...)
			ws := t.TempDir()
			a := newAgent(t, srv, castor.WithWorkDir(ws), castor.WithApprovalMode(policy.ModeYolo), castor.WithHooks(tt.hook))
			res, err := a.Send(context.Background(), "go")
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, ws, res, srv.Requests())
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestSessionAndNotificationHooks: SessionEnd fires when the agent is
// closed, Notification when a call waits for permission.
func TestSessionAndNotificationHooks(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Call("write_file", map[string]any{"file_path": "x.txt", "content": "x"}))
	var mu sync.Mutex
	var got []string
	record := func(_ context.Context, in *castor.HookInput, _ castor.SessionContext) (*castor.HookOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, string(in.HookEventName)+":"+in.MatchTarget())
		return nil, nil
	}
	a, err := castor.New(context.Background(), castor.WithClient(mustClient(t, srv)), castor.WithoutSettings(), castor.WithHomeDir(t.TempDir()),
		castor.WithoutRecording(), castor.WithEnv(noEnv), castor.WithWorkDir(t.TempDir()), castor.WithPausedConfirmations(),
		castor.WithHooks(
			castor.Hook{Event: castor.SessionStart, Func: record},
			castor.Hook{Event: castor.Notification, Matcher: "ToolPermission", Func: record},
			castor.Hook{Event: castor.SessionEnd, Func: record},
		))
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Send(context.Background(), "write")
	if err != nil || len(res.Pending) != 1 {
		t.Fatalf("%v, pending %d", err, len(res.Pending))
	}
	a.Close()
	if strings.Join(got, " ") != "SessionStart:startup Notification:ToolPermission SessionEnd:exit" {
		t.Errorf("hooks ran: %v", got)
	}
}

// TestGoHookAsCommand: a Go hook run as a command hook from a settings
// file (this test binary, see TestMain) blocks a write and sees the
// session through its SessionContext.
func TestGoHookAsCommand(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	settings := `{"hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "CASTOR_TEST_HOOK=1 '` + os.Args[0] + `'"}]}]}}`
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakegemini.Start(t,
		fakegemini.Call("write_file", map[string]any{"file_path": "plain.txt", "content": "hello"}),
		fakegemini.Call("write_file", map[string]any{"file_path": "key.txt", "content": "my secret"}),
		fakegemini.Text("done"))
	var warnings []string
	a, err := castor.New(context.Background(), castor.WithClient(mustClient(t, srv)), castor.WithHomeDir(home), castor.WithEnv(noEnv),
		castor.WithWorkDir(ws), castor.WithApprovalMode(policy.ModeYolo),
		castor.WithWarnings(func(s string) { warnings = append(warnings, s) }))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Send(context.Background(), "write two files"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "plain.txt")); string(b) != "hello" {
		t.Errorf("plain.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "key.txt")); err == nil {
		t.Error("the hook did not block the secret")
	}
	reqs := srv.Requests()
	if !strings.Contains(requestText(reqs[2]), `{"error":"Tool execution blocked: secrets stay out of files"}`) {
		t.Errorf("request: %s", requestText(reqs[2]))
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "hook-saw.txt")); string(b) != "write_file "+a.SessionID()+" (prompt in transcript)" {
		t.Errorf("hook-saw.txt = %q (warnings %v)", b, warnings)
	}
}

// TestRunCommandExitCodes: RunCommand prints JSON and exits 0, or exits 1
// with the error on stderr (a panic included; a hook without a Func too).
func TestRunCommandExitCodes(t *testing.T) {
	h := castor.Hook{Event: castor.BeforeAgent, Func: func(_ context.Context, in *castor.HookInput, _ castor.SessionContext) (*castor.HookOutput, error) {
		switch *in.Prompt {
		case "fail":
			return nil, errors.New("cannot decide")
		case "panic":
			panic("out of its mind")
		}
		return castor.Block("no " + *in.Prompt), nil
	}}
	for _, tt := range []struct {
		stdin, stdout, stderr string
		code                  int
	}{
		{`{"hook_event_name":"BeforeAgent","prompt":"x"}`, `{"decision":"deny","reason":"no x"}` + "\n", "", 0},
		{`{"hook_event_name":"BeforeAgent","prompt":"fail"}`, "", "cannot decide\n", 1},
		{`{"hook_event_name":"AfterAgent"}`, "", " handles BeforeAgent, not AfterAgent\n", 1},
		{`not json`, "", "stdin is not a hook input", 1},
		// A panic would exit 2, which Gemini CLI reads as "block".
		{`{"hook_event_name":"BeforeAgent","prompt":"panic"}`, "", "panicked: out of its mind\n", 1},
	} {
		var out, errw bytes.Buffer
		code := h.RunCommand(context.Background(), strings.NewReader(tt.stdin), &out, &errw)
		if code != tt.code || out.String() != tt.stdout || !strings.Contains(errw.String(), tt.stderr) {
			t.Errorf("%s: code %d stdout %q stderr %q", tt.stdin, code, out.String(), errw.String())
		}
	}
	var errw bytes.Buffer
	if code := (castor.Hook{Name: "empty"}).RunCommand(context.Background(), strings.NewReader("{}"), io.Discard, &errw); code != 1 || errw.String() != "hook empty has no Func\n" {
		t.Errorf("a hook without a Func: code %d, stderr %q", code, errw.String())
	}
}

// TestSessionContext: the filesystem keeps to the workspace and the
// shell runs, streams and times out.
func TestSessionContext(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("ok"))
	ws := t.TempDir()
	var sc castor.SessionContext
	a := newAgent(t, srv, castor.WithWorkDir(ws), castor.WithHooks(castor.Hook{Event: castor.BeforeAgent,
		Func: func(_ context.Context, _ *castor.HookInput, c castor.SessionContext) (*castor.HookOutput, error) {
			sc = c
			return nil, nil
		}}))
	if _, err := a.Send(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if sc.SessionID != a.SessionID() || sc.WorkDir != ws || sc.Agent == nil || sc.Agent.SessionID() != a.SessionID() || sc.Timestamp.IsZero() {
		t.Errorf("context %+v", sc)
	}
	fs := sc.FS
	if err := fs.WriteFile("sub/a.txt", "hello"); err != nil {
		t.Fatal(err)
	}
	if s, err := fs.ReadFile(filepath.Join(ws, "sub", "a.txt")); err != nil || s != "hello" {
		t.Errorf("read %q %v", s, err)
	}
	if ents, err := fs.ReadDir("sub"); err != nil || len(ents) != 1 || ents[0].Name() != "a.txt" {
		t.Errorf("readdir %v %v", ents, err)
	}
	if m, err := fs.Glob("sub/*.txt"); err != nil || len(m) != 1 {
		t.Errorf("glob %v %v", m, err)
	}
	for _, p := range []string{"../outside.txt", "/etc/passwd"} {
		if _, err := fs.ReadFile(p); !errors.Is(err, castor.ErrOutsideWorkspace) {
			t.Errorf("read %s: %v", p, err)
		}
	}
	if err := fs.WriteFile("../x", "x"); !errors.Is(err, castor.ErrOutsideWorkspace) {
		t.Errorf("write outside: %v", err)
	}

	ctx := context.Background()
	res, err := sc.Shell.Exec(ctx, `echo out; echo err >&2; echo "$GREETING" > greet.txt; pwd; exit 3`, &castor.ShellOptions{Env: map[string]string{"GREETING": "hi"}, Dir: "sub"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.Stdout != "out\n"+filepath.Join(ws, "sub")+"\n" || res.Stderr != "err\n" || !strings.Contains(res.Output, "out\n") || !strings.Contains(res.Output, "err\n") {
		t.Errorf("exec %+v", res)
	}
	if s, _ := fs.ReadFile("sub/greet.txt"); s != "hi\n" {
		t.Errorf("env: %q", s)
	}
	if _, err := sc.Shell.Exec(ctx, "sleep 10", &castor.ShellOptions{Timeout: 50 * time.Millisecond}); err == nil {
		t.Error("no timeout error")
	}
	if _, err := sc.Shell.Exec(ctx, "true", &castor.ShellOptions{Dir: "/"}); !errors.Is(err, castor.ErrOutsideWorkspace) {
		t.Errorf("dir outside: %v", err)
	}
	p, err := sc.Shell.Start(ctx, "tr a-z A-Z", nil)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p.Stdin, "streamed\n")
	p.Stdin.Close()
	out, _ := io.ReadAll(p.Stdout)
	if code, err := p.Wait(); code != 0 || err != nil || string(out) != "STREAMED\n" {
		t.Errorf("start: %q %d %v", out, code, err)
	}
}

// TestSessionContextPlanMode: in plan mode the filesystem only reads and
// the shell refuses.
func TestSessionContextPlanMode(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("ok"))
	var sc castor.SessionContext
	a := newAgent(t, srv, castor.WithApprovalMode(policy.ModePlan), castor.WithHooks(castor.Hook{Event: castor.BeforeAgent,
		Func: func(_ context.Context, _ *castor.HookInput, c castor.SessionContext) (*castor.HookOutput, error) {
			sc = c
			return nil, nil
		}}))
	if _, err := a.Send(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if err := sc.FS.WriteFile("a.txt", "x"); !errors.Is(err, castor.ErrPlanMode) {
		t.Errorf("write: %v", err)
	}
	if _, err := sc.Shell.Exec(context.Background(), "true", nil); err == nil {
		t.Error("shell ran in plan mode")
	}
}

func mustClient(t *testing.T, srv *fakegemini.Server) *gemini.Model {
	t.Helper()
	c, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestToolSessionContext: a tool reaches its session through its context.
func TestToolSessionContext(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Call("whoami", map[string]any{}), fakegemini.Text("ok"))
	type none struct{}
	var got castor.SessionContext
	var ok bool
	who := castor.MustTool("whoami", "Says which session this is.", func(ctx context.Context, _ none) (string, error) {
		got, ok = castor.SessionContextFrom(ctx)
		return got.SessionID, nil
	})
	a := newAgent(t, srv, castor.WithTrustedTools(who))
	if _, err := a.Send(context.Background(), "who?"); err != nil {
		t.Fatal(err)
	}
	if !ok || got.SessionID != a.SessionID() || got.FS == nil || got.Shell == nil || len(got.Transcript) == 0 {
		t.Errorf("context %v %+v", ok, got)
	}
	if _, ok := castor.SessionContextFrom(context.Background()); ok {
		t.Error("a context outside a turn has a session")
	}
}
