package castor_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// scriptOptions are the options of an agent that plays m on a fresh
// workspace, with no settings, environment or recording of the machine.
func scriptOptions(t testing.TB, m *fake.Model, opts ...castor.Option) []castor.Option {
	t.Helper()
	return append([]castor.Option{
		castor.WithClient(m),
		castor.WithoutSettings(),
		castor.WithHomeDir(t.TempDir()),
		castor.WithoutRecording(),
		castor.WithEnv(noEnv),
		castor.WithWorkDir(t.TempDir()),
	}, opts...)
}

// scriptAgent builds an agent that plays m; the test closes it.
func scriptAgent(t testing.TB, m *fake.Model, opts ...castor.Option) *castor.Agent {
	t.Helper()
	a, err := castor.New(context.Background(), scriptOptions(t, m, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestOptionMisuse checks that options a program got wrong make New
// return a *ConfigError naming them, instead of panicking deep in the
// assembly or letting one option silently win; a nil Option is skipped.
func TestOptionMisuse(t *testing.T) {
	echo := castor.MustTool("echo", "Echoes.", func(ctx context.Context, in struct{}) (string, error) { return "", nil })
	tests := []struct {
		name    string
		opts    []castor.Option
		wantErr string // "" when New succeeds
	}{
		{name: "nil option", opts: []castor.Option{nil}},
		{name: "nil tool", opts: []castor.Option{castor.WithTools(echo, nil)}, wantErr: "WithTools: tool 2 of 2 is nil"},
		{name: "nil trusted tool", opts: []castor.Option{castor.WithTrustedTools(nil)}, wantErr: "WithTools: tool 1 of 1 is nil"},
		{name: "nil warnings and instructions func", opts: []castor.Option{castor.WithWarnings(nil), castor.WithInstructionsFunc(nil), castor.WithIncludeDirectories("/nonexistent-castor-dir")}},
		{name: "two tools of one name", opts: []castor.Option{castor.WithTools(echo), castor.WithTrustedTools(echo)}, wantErr: `two tools are named "echo"`},
		{name: "bad tool name", opts: []castor.Option{castor.WithTools(badNameTool{})}, wantErr: `WithTools: tool name "launch rocket"`},
		{name: "unknown approval mode", opts: []castor.Option{castor.WithApprovalMode("sometimes")}, wantErr: `WithApprovalMode: invalid approval mode "sometimes"`},
		{name: "approval mode in capitals", opts: []castor.Option{castor.WithApprovalMode("YOLO")}},
		{name: "hook without func", opts: []castor.Option{castor.WithHooks(castor.Hook{Event: castor.BeforeTool, Name: "audit"})}, wantErr: `WithHooks: hook 1 ("audit", BeforeTool) has no Func`},
		{name: "hook of no event", opts: []castor.Option{castor.WithHooks(castor.Hook{Event: "BeforeEverything", Func: noHook})}, wantErr: `unknown event "BeforeEverything"`},
		{name: "resume and session id", opts: []castor.Option{castor.WithResume("latest"), castor.WithSessionID("s1")}, wantErr: `WithResume("latest") and WithSessionID("s1") cannot go together`},
		{name: "resume and history", opts: []castor.Option{castor.WithResume("latest"), castor.WithHistory([]*genai.Content{})}, wantErr: `WithResume("latest") and WithHistory cannot go together`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := castor.New(context.Background(), scriptOptions(t, fake.Script(), tt.opts...)...)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				a.Close()
				return
			}
			var ce *castor.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("New: %v (%T), want a *ConfigError", err, err)
			}
			if got := err.Error(); !strings.Contains(got, tt.wantErr) {
				t.Errorf("error %q lacks %q", got, tt.wantErr)
			}
		})
	}
}

// badNameTool is a hand-written tool whose name Gemini refuses.
type badNameTool struct{ askingTool }

func (badNameTool) Name() string { return "launch rocket" }

// TestClosedAgent checks that Close may be called again (and at once
// from two goroutines) and that a closed agent refuses new turns with
// ErrClosed instead of calling the model without its recording and
// servers.
func TestClosedAgent(t *testing.T) {
	m := fake.Script(fake.Text("never"))
	a, err := castor.New(context.Background(), scriptOptions(t, m)...)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if err := a.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	wg.Wait()
	if err := a.Close(); err != nil {
		t.Errorf("third Close: %v", err)
	}
	if _, err := a.Send(context.Background(), "hi"); !errors.Is(err, castor.ErrClosed) {
		t.Errorf("Send after Close: %v, want ErrClosed", err)
	}
	if _, err := a.Resume(context.Background()); !errors.Is(err, castor.ErrClosed) {
		t.Errorf("Resume after Close: %v, want ErrClosed", err)
	}
	n := 0
	for _, err := range a.Stream(context.Background(), "hi") {
		n++
		if !errors.Is(err, castor.ErrClosed) {
			t.Errorf("Stream after Close: %v, want ErrClosed", err)
		}
	}
	if n != 1 {
		t.Errorf("Stream after Close yielded %d pairs, want 1", n)
	}
	if m.Remaining() != 1 {
		t.Error("a closed agent called the model")
	}
}

type deployIn struct {
	Env string `json:"env" jsonschema:"staging or prod"`
}

// TestAskFirst checks that a NewTool tool made with AskFirst is
// confirmed like a built-in edit (asked through WithConfirm, paused with
// WithPausedConfirmations, refused with no one to ask, allowed by yolo,
// WithAllowedTools), and that one made without it runs unasked even when
// the program can answer, unless a rule of a policy file asks or denies.
func TestAskFirst(t *testing.T) {
	dir := t.TempDir()
	askPolicy, denyPolicy := filepath.Join(dir, "ask.toml"), filepath.Join(dir, "deny.toml")
	for path, decision := range map[string]string{askPolicy: "ask_user", denyPolicy: "deny"} {
		rule := "[[rule]]\ntoolName = \"deploy\"\ndecision = \"" + decision + "\"\npriority = 500\n"
		if err := os.WriteFile(path, []byte(rule), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		askFirst bool
		answer   tool.Outcome // "" for no WithConfirm
		opts     []castor.Option
		wantAsk  bool
		wantRan  bool
		wantText string // in the function response
		wantHeld bool   // the turn paused with the call pending
	}{
		{name: "asked, allowed", askFirst: true, answer: tool.ProceedOnce, wantAsk: true, wantRan: true, wantText: "deployed prod"},
		{name: "asked, refused", askFirst: true, answer: tool.Cancel, wantAsk: true},
		{name: "no one to ask", askFirst: true, wantText: "denied by policy"},
		{name: "paused", askFirst: true, opts: []castor.Option{castor.WithPausedConfirmations()}, wantHeld: true},
		{name: "yolo", askFirst: true, answer: tool.Cancel, opts: []castor.Option{castor.WithApprovalMode(policy.ModeYolo)}, wantRan: true, wantText: "deployed prod"},
		{name: "allowed tools", askFirst: true, answer: tool.Cancel, opts: []castor.Option{castor.WithAllowedTools("deploy")}, wantRan: true, wantText: "deployed prod"},
		{name: "trusted by the program", answer: tool.Cancel, wantRan: true, wantText: "deployed prod"},
		{name: "policy file asks", answer: tool.ProceedOnce, opts: []castor.Option{castor.WithPolicyFiles(askPolicy)}, wantAsk: true, wantRan: true, wantText: "deployed prod"},
		{name: "policy file denies", answer: tool.ProceedOnce, opts: []castor.Option{castor.WithPolicyFiles(denyPolicy)}, wantText: `Tool "deploy" not found`}, // hidden, as Gemini CLI hides denied tools
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran, asked := false, false
			var topts []castor.ToolOption
			if tt.askFirst {
				topts = append(topts, castor.AskFirst())
			}
			deploy := castor.MustTool("deploy", "Deploys the service.", func(ctx context.Context, in deployIn) (string, error) {
				ran = true
				return "deployed " + in.Env, nil
			}, topts...)
			opts := append([]castor.Option{castor.WithTools(deploy)}, tt.opts...)
			if tt.answer != "" {
				opts = append(opts, castor.WithConfirm(func(_ context.Context, c *agent.ToolCall) (tool.Decision, error) {
					asked = true
					d := c.Confirmation.Details
					if d.ToolName != "deploy" || d.ToolArgs["env"] != "prod" || d.Title == "" {
						t.Errorf("confirmation details %+v", d)
					}
					return tool.Decision{Outcome: tt.answer}, nil
				}))
			}
			m := fake.Script(fake.Call("deploy", map[string]any{"env": "prod"}), fake.Text("done"))
			a := scriptAgent(t, m, opts...)
			res, err := a.Send(context.Background(), "deploy")
			if err != nil {
				t.Fatal(err)
			}
			if asked != tt.wantAsk || ran != tt.wantRan {
				t.Errorf("asked %v, ran %v; want %v, %v", asked, ran, tt.wantAsk, tt.wantRan)
			}
			if held := len(res.Pending) == 1; held != tt.wantHeld {
				t.Errorf("%d calls pending", len(res.Pending))
			}
			if tt.wantText == "" {
				return
			}
			h := a.Session().History()
			var got string
			for _, c := range h {
				for _, p := range c.Parts {
					if p.FunctionResponse != nil {
						got = fmt.Sprint(p.FunctionResponse.Response)
					}
				}
			}
			if !strings.Contains(got, tt.wantText) {
				t.Errorf("function response %q lacks %q", got, tt.wantText)
			}
		})
	}
}

// settled waits (with a generous deadline, for slow machines) until the
// number of goroutines is at most want, and returns the last count.
func settled(want int) int {
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNoGoroutineLeft builds agents, runs a turn with a tool call and a
// cancelled turn on each, and closes them: no goroutine outlives Close.
func TestNoGoroutineLeft(t *testing.T) {
	before := runtime.NumGoroutine()
	wait := castor.MustTool("wait", "Waits for cancellation.", func(ctx context.Context, in struct{}) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	for range 3 {
		m := fake.Script(fake.Call("list_directory", map[string]any{"path": "."}), fake.Text("listed"), fake.Call("wait", map[string]any{}))
		a, err := castor.New(context.Background(), scriptOptions(t, m, castor.WithTools(wait))...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Send(context.Background(), "list"); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err = a.Send(ctx, "wait")
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("cancelled turn: %v", err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := settled(before); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after Close:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// TestCancelledTurnThenNextPrompt cancels a turn while its tool runs: the
// error is the context's, and the same agent answers the next prompt
// with the cancelled call in its history.
func TestCancelledTurnThenNextPrompt(t *testing.T) {
	started := make(chan struct{})
	wait := castor.MustTool("wait", "Waits for cancellation.", func(ctx context.Context, in struct{}) (string, error) {
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	})
	m := fake.Script(fake.Call("wait", map[string]any{}), fake.Text("next answer"))
	a := scriptAgent(t, m, castor.WithTools(wait))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	var last error
	for _, err := range a.Stream(ctx, "wait") {
		last = err
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("cancelled stream ended with %v", last)
	}
	res, err := a.Send(context.Background(), "again")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "next answer" {
		t.Errorf("next turn answered %q", res.Text)
	}
}

// TestTwoAgentsAtOnce runs turns of several agents at the same time (run
// with -race): each answers from its own script and its own workspace.
func TestTwoAgentsAtOnce(t *testing.T) {
	const n = 3
	agents := make([]*castor.Agent, n)
	for i := range agents {
		agents[i] = scriptAgent(t, fake.Script(
			fake.Call("list_directory", map[string]any{"path": "."}),
			fake.Text(fmt.Sprint("agent ", i))))
	}
	var wg sync.WaitGroup
	for i, a := range agents {
		wg.Go(func() {
			res, err := a.Send(context.Background(), "list")
			if err != nil {
				t.Error(err)
				return
			}
			if want := fmt.Sprint("agent ", i); res.Text != want || res.Stats.Tools.TotalCalls != 1 {
				t.Errorf("agent %d: %q after %d calls", i, res.Text, res.Stats.Tools.TotalCalls)
			}
		})
	}
	wg.Wait()
}

// TestOneTurnAtATime sends a prompt to an agent from inside its own
// running turn: the second prompt fails with agent.ErrBusy, and the turn
// goes on.
func TestOneTurnAtATime(t *testing.T) {
	var a *castor.Agent
	var inner error
	nested := castor.MustTool("nested", "Sends a prompt to its own agent.", func(ctx context.Context, in struct{}) (string, error) {
		_, inner = a.Send(ctx, "inner")
		return "tried", nil
	})
	a = scriptAgent(t, fake.Script(fake.Call("nested", map[string]any{}), fake.Text("done")), castor.WithTools(nested))
	res, err := a.Send(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(inner, agent.ErrBusy) {
		t.Errorf("a prompt during a turn: %v, want agent.ErrBusy", inner)
	}
	if res.Text != "done" {
		t.Errorf("the turn answered %q", res.Text)
	}
}

// TestConfirmError checks that an error from the WithConfirm function is
// returned by Send, naming the call, instead of pausing the turn in
// silence, and that the call stays pending for Answer and Resume.
func TestConfirmError(t *testing.T) {
	ran := false
	deploy := castor.MustTool("deploy", "Deploys.", func(ctx context.Context, in deployIn) (string, error) {
		ran = true
		return "deployed", nil
	}, castor.AskFirst())
	m := fake.Script(fake.Call("deploy", map[string]any{"env": "prod"}), fake.Text("done"))
	a := scriptAgent(t, m, castor.WithTools(deploy), castor.WithConfirm(func(context.Context, *agent.ToolCall) (tool.Decision, error) {
		return tool.Decision{}, errors.New("the approval window was closed")
	}))
	res, err := a.Send(context.Background(), "deploy")
	if err == nil || !strings.Contains(err.Error(), "the approval window was closed") || !strings.Contains(err.Error(), "deploy") {
		t.Fatalf("Send: %v, want the confirm function's error naming the tool", err)
	}
	if len(res.Pending) != 1 || ran {
		t.Fatalf("%d calls pending, ran %v", len(res.Pending), ran)
	}
	if err := a.Session().Answer(res.Pending[0].ID, tool.Decision{Outcome: tool.ProceedOnce}); err != nil {
		t.Fatal(err)
	}
	res, err = a.Resume(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !ran || res.Text != "done" {
		t.Errorf("after Resume: ran %v, answer %q", ran, res.Text)
	}
}

// TestCloseDuringTurn closes an agent while its tool runs, from another
// goroutine and from the loop over Stream's events: the turn is
// cancelled with ErrClosed, the model is not asked again, Close does not
// wait for the turn (no deadlock in the loop), and no goroutine is left
// once the turn has ended.
func TestCloseDuringTurn(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, fromLoop := range []bool{false, true} {
		started := make(chan struct{})
		wait := castor.MustTool("wait", "Waits for cancellation.", func(ctx context.Context, in struct{}) (string, error) {
			close(started)
			<-ctx.Done()
			return "", ctx.Err()
		})
		m := fake.Script(fake.Call("wait", map[string]any{}), fake.Text("never"))
		a, err := castor.New(context.Background(), scriptOptions(t, m, castor.WithTools(wait))...)
		if err != nil {
			t.Fatal(err)
		}
		if !fromLoop {
			go func() { <-started; a.Close() }()
		}
		var last error
		for ev, err := range a.Stream(context.Background(), "wait") {
			last = err
			if fromLoop && ev != nil && ev.Type == agent.EventToolCall && ev.Call.Status == agent.StatusExecuting {
				if err := a.Close(); err != nil {
					t.Errorf("Close in the loop: %v", err)
				}
			}
		}
		if !errors.Is(last, castor.ErrClosed) || !errors.Is(last, context.Canceled) {
			t.Errorf("fromLoop=%v: the turn ended with %v, want ErrClosed", fromLoop, last)
		}
		if m.Remaining() != 1 {
			t.Errorf("fromLoop=%v: the model was asked again after Close", fromLoop)
		}
	}
	if n := settled(before); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

func noHook(context.Context, *castor.HookInput, castor.SessionContext) (*castor.HookOutput, error) {
	return nil, nil
}

// TestTurnWarningsReachWithWarnings checks that Send hands the warnings
// of its turn (a hook that failed) to the WithWarnings function, which
// otherwise only Stream's caller could see.
func TestTurnWarningsReachWithWarnings(t *testing.T) {
	failing := castor.Hook{Event: castor.BeforeAgent, Name: "audit", Func: func(context.Context, *castor.HookInput, castor.SessionContext) (*castor.HookOutput, error) {
		return nil, errors.New("audit log is full")
	}}
	var warnings []string
	a := scriptAgent(t, fake.Script(fake.Text("answer")), castor.WithHooks(failing), castor.WithWarnings(func(s string) { warnings = append(warnings, s) }))
	res, err := a.Send(context.Background(), "hi")
	if err != nil || res.Text != "answer" {
		t.Fatalf("Send: %q, %v", res.Text, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `hook "audit"`) || !strings.Contains(warnings[0], "audit log is full") {
		t.Errorf("warnings %q, want the hook's error", warnings)
	}
}

// TestMalformedSettingsIsConfigError: a settings file that does not parse
// makes New return the SDK's own *ConfigError (not the assembly's, which a
// program cannot name), naming the file.
func TestMalformedSettingsIsConfigError(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	settings := filepath.Join(home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"model": {"name": `), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := castor.New(context.Background(), castor.WithClient(fake.Script()), castor.WithHomeDir(home),
		castor.WithWorkDir(ws), castor.WithoutRecording(), castor.WithEnv(noEnv))
	var ce *castor.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("New: %v (%T), want a *castor.ConfigError", err, err)
	}
	if !strings.Contains(err.Error(), settings) {
		t.Errorf("error %q does not name %s", err, settings)
	}
}
