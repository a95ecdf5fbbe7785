package castor_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/tool"
)

// unsetenv removes k from the process environment for the test, so that a
// machine with the variable set does not decide what the test sees.
func unsetenv(t *testing.T, k string) {
	t.Helper()
	if old, ok := os.LookupEnv(k); ok {
		t.Cleanup(func() { os.Setenv(k, old) })
	}
	os.Unsetenv(k)
}

// TestDotEnvStaysWithItsAgent builds two agents on two workspaces whose
// .env files hold different API keys: each agent calls the model with its
// own key, and the process environment is not changed.
func TestDotEnvStaysWithItsAgent(t *testing.T) {
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA", "CASTOR_DOTENV_MARK"} {
		unsetenv(t, k)
	}
	srv := fakegemini.Start(t, fakegemini.Text("a"), fakegemini.Text("b"))
	before := os.Environ()
	home := t.TempDir()
	agents := map[string]*castor.Agent{}
	for _, name := range []string{"alpha", "beta"} {
		ws := t.TempDir()
		env := "GEMINI_API_KEY=key-" + name + "\nGOOGLE_GEMINI_BASE_URL=" + srv.URL + "\nCASTOR_DOTENV_MARK=" + name + "\n"
		if err := os.WriteFile(filepath.Join(ws, ".env"), []byte(env), 0o600); err != nil {
			t.Fatal(err)
		}
		a, err := castor.New(context.Background(), castor.WithWorkDir(ws), castor.WithHomeDir(home), castor.WithoutRecording())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		agents[name] = a
	}
	for _, name := range []string{"alpha", "beta"} {
		if _, err := agents[name].Send(context.Background(), "hi"); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, name := range []string{"alpha", "beta"} {
		if got := reqs[i].Header.Get("X-Goog-Api-Key"); got != "key-"+name {
			t.Errorf("agent %s called the model with key %q", name, got)
		}
	}
	for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", "CASTOR_DOTENV_MARK"} {
		if v, ok := os.LookupEnv(k); ok {
			t.Errorf("the process environment gained %s=%q", k, v)
		}
	}
	if after := os.Environ(); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("the process environment changed")
	}
}

// askingTool is a custom tool whose calls ask for approval.
type askingTool struct{ ran *int }

func (askingTool) Name() string           { return "launch_rocket" }
func (askingTool) DisplayName() string    { return "Launch rocket" }
func (askingTool) Description() string    { return "Launches the rocket." }
func (askingTool) Kind() tool.Kind        { return tool.KindOther }
func (askingTool) Schema() map[string]any { return map[string]any{"type": "object"} }
func (t askingTool) Build(map[string]any) (tool.Call, error) {
	return askingCall(t), nil
}

type askingCall askingTool

func (askingCall) Describe() string { return "launch the rocket" }
func (askingCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return &tool.ConfirmationDetails{Type: tool.ConfirmInfo, Title: "Launch the rocket?", Prompt: "launch"}, nil
}
func (c askingCall) Execute(context.Context, func(string)) *tool.Result {
	*c.ran++
	return tool.Text("launched")
}

// TestCustomToolThatAsksIsConfirmed checks that a custom tool whose
// Confirmation asks goes through WithConfirm (and runs only when
// allowed), is refused when nobody can answer, and runs unasked when
// marked trusted.
func TestCustomToolThatAsksIsConfirmed(t *testing.T) {
	tests := []struct {
		name     string
		opts     func(tl tool.Tool, asked *int) []castor.Option
		answer   tool.Outcome
		wantRan  int
		wantAsk  int
		wantText string
		// wantOneCall: refusing the only call ends the turn without a
		// second model call.
		wantOneCall bool
	}{
		{
			name: "allowed through WithConfirm",
			opts: func(tl tool.Tool, asked *int) []castor.Option {
				return []castor.Option{castor.WithTools(tl), castor.WithConfirm(func(_ context.Context, c *agent.ToolCall) (tool.Decision, error) {
					*asked++
					if c.Name != "launch_rocket" || c.Confirmation == nil || c.Confirmation.Details.Title != "Launch the rocket?" {
						t.Errorf("confirmation for %+v", c)
					}
					return tool.Decision{Outcome: tool.ProceedOnce}, nil
				})}
			},
			wantRan: 1, wantAsk: 1, wantText: "launched",
		},
		{
			name: "refused through WithConfirm",
			opts: func(tl tool.Tool, asked *int) []castor.Option {
				return []castor.Option{castor.WithTools(tl), castor.WithConfirm(func(context.Context, *agent.ToolCall) (tool.Decision, error) {
					*asked++
					return tool.Decision{Outcome: tool.Cancel}, nil
				})}
			},
			wantRan: 0, wantAsk: 1, wantOneCall: true,
		},
		{
			name:    "nobody to ask",
			opts:    func(tl tool.Tool, _ *int) []castor.Option { return []castor.Option{castor.WithTools(tl)} },
			wantRan: 0, wantText: "denied by policy",
		},
		{
			name:    "trusted",
			opts:    func(tl tool.Tool, _ *int) []castor.Option { return []castor.Option{castor.WithTrustedTools(tl)} },
			wantRan: 1, wantText: "launched",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, fakegemini.Call("launch_rocket", map[string]any{}), fakegemini.Text("done"))
			ran, asked := 0, 0
			a := newAgent(t, srv, tt.opts(askingTool{ran: &ran}, &asked)...)
			if _, err := a.Send(context.Background(), "launch"); err != nil {
				t.Fatal(err)
			}
			if ran != tt.wantRan || asked != tt.wantAsk {
				t.Errorf("ran %d times, asked %d times; want %d, %d", ran, asked, tt.wantRan, tt.wantAsk)
			}
			reqs := srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("no model request")
			}
			declared := false
			for _, d := range reqs[0].FunctionDeclarations() {
				declared = declared || d.Name == "launch_rocket"
			}
			if !declared {
				t.Error("launch_rocket was not declared to the model")
			}
			if tt.wantOneCall != (len(reqs) == 1) {
				t.Errorf("%d model requests", len(reqs))
			}
			if len(reqs) > 1 {
				resp, _ := json.Marshal(reqs[1].LastContent())
				if !strings.Contains(strings.ToLower(string(resp)), strings.ToLower(tt.wantText)) {
					t.Errorf("function response %s lacks %q", resp, tt.wantText)
				}
			}
		})
	}
}

// TestNewIsCancellable cancels New while an MCP server hangs in its
// start: New returns the context's error instead of waiting for the
// server's connect timeout.
func TestNewIsCancellable(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	// A stdio "server" that never answers initialize.
	settings := `{"mcpServers":{"hang":{"command":"sleep","args":["600"]}}}`
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakegemini.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		a, err := castor.New(ctx, castor.WithWorkDir(ws), castor.WithHomeDir(home), castor.WithoutRecording(),
			castor.WithEnv(func(k string) (string, bool) {
				switch k {
				case "GEMINI_API_KEY":
					return "k", true
				case "GOOGLE_GEMINI_BASE_URL":
					return srv.URL, true
				case "GEMINI_CLI_TRUST_WORKSPACE":
					return "true", true
				}
				return "", false
			}))
		if a != nil {
			a.Close()
		}
		done <- err
	}()
	// Give the start a moment to reach the MCP server; cancelling earlier
	// must work as well, so no wait is needed for correctness.
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("New = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("New did not return after its context was cancelled (the MCP connect timeout is a minute)")
	}
}

// TestPausedConfirmationThenResume pauses a turn on a call that needs
// approval, answers it through the session and resumes it with
// Agent.Resume; the session id and the starting history come from options.
func TestPausedConfirmationThenResume(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Call("launch_rocket", map[string]any{}), fakegemini.Text("Launched."))
	ran := 0
	earlier := []*genai.Content{
		genai.NewContentFromText("Earlier question.", genai.RoleUser),
		genai.NewContentFromText("Earlier answer.", genai.RoleModel),
	}
	var warnings []string
	a := newAgent(t, srv,
		castor.WithTools(askingTool{ran: &ran}),
		castor.WithPausedConfirmations(),
		castor.WithSessionID("session-from-option"),
		castor.WithHistory(earlier),
		castor.WithIncludeDirectories(filepath.Join(t.TempDir(), "missing")),
		castor.WithWarnings(func(s string) { warnings = append(warnings, "first: "+s) }),
		castor.WithWarnings(func(s string) { warnings = append(warnings, "second: "+s) }),
	)
	if a.SessionID() != "session-from-option" {
		t.Errorf("session id %q", a.SessionID())
	}
	if len(warnings) != 2 || !strings.HasPrefix(warnings[0], "first: ") || !strings.HasPrefix(warnings[1], "second: ") {
		t.Errorf("warnings reached %q; both handlers should see the missing directory", warnings)
	}
	res, err := a.Send(context.Background(), "launch")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pending) != 1 || res.Pending[0].Name != "launch_rocket" || ran != 0 {
		t.Fatalf("pending %+v, ran %d", res.Pending, ran)
	}
	if err := a.Session().Answer(res.Pending[0].ID, tool.Decision{Outcome: tool.ProceedOnce}); err != nil {
		t.Fatal(err)
	}
	res, err = a.Resume(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ran != 1 || res.Text != "Launched." || len(res.Pending) != 0 {
		t.Errorf("after resume: ran %d, %+v", ran, res)
	}
	first := srv.Requests()[0]
	if len(first.Contents) < 3 || contentText(first.Contents[0]) != "Earlier question." {
		t.Errorf("the first request does not continue the given history: %d contents", len(first.Contents))
	}
}

// TestCancelEveryCallStopsTheTurn refuses both calls of a model response
// through WithConfirm: the turn ends without a second model call, the
// history keeps the cancelled answers, and the next prompt carries on.
func TestCancelEveryCallStopsTheTurn(t *testing.T) {
	ws := t.TempDir()
	srv := fakegemini.Start(t,
		fakegemini.Parts(
			fakegemini.CallPart("write_file", map[string]any{"file_path": filepath.Join(ws, "a.txt"), "content": "a"}),
			fakegemini.CallPart("write_file", map[string]any{"file_path": filepath.Join(ws, "b.txt"), "content": "b"}),
		),
		fakegemini.Text("Understood, nothing written."),
	)
	asked := 0
	a := newAgent(t, srv, castor.WithWorkDir(ws), castor.WithConfirm(func(context.Context, *agent.ToolCall) (tool.Decision, error) {
		asked++
		return tool.Decision{Outcome: tool.Cancel}, nil
	}))
	var ended *agent.Event
	for ev, err := range a.Stream(context.Background(), "write two files") {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == agent.EventTurnEnd {
			ended = ev
		}
	}
	if ended == nil || ended.Reason != agent.TurnCancelled {
		t.Errorf("turn end = %+v, want reason %q", ended, agent.TurnCancelled)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d model requests after every call was refused, want 1", n)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	res, err := a.Send(context.Background(), "ok, never mind")
	if err != nil || res.Text != "Understood, nothing written." {
		t.Fatalf("next prompt: %+v, %v", res, err)
	}
	next := srv.Requests()[1]
	cancelled := 0
	for _, c := range next.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				cancelled++
			}
		}
	}
	if cancelled != 2 {
		t.Errorf("the next request carries %d function responses, want the 2 cancelled ones", cancelled)
	}
}
