package agent

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// cut makes one model call fail: after its first `after` chunks, or
// before the script is asked when after is 0.
type cut struct {
	after int
	err   error
}

// watched puts a model/fake script behind a model.Model that keeps every
// request and cuts the streams it is told to.
type watched struct {
	model.Model
	mu   sync.Mutex
	reqs []*model.Request
	cuts map[int]cut
}

func (w *watched) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	w.mu.Lock()
	n := len(w.reqs)
	w.reqs = append(w.reqs, req)
	c, ok := w.cuts[n]
	w.mu.Unlock()
	if !ok {
		return w.Model.GenerateContentStream(ctx, req)
	}
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		if c.after > 0 {
			i := 0
			for resp, err := range w.Model.GenerateContentStream(ctx, req) {
				if !yield(resp, err) || err != nil {
					return
				}
				if i++; i == c.after {
					break
				}
			}
		}
		yield(nil, c.err)
	}
}

func (w *watched) last() *model.Request {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reqs[len(w.reqs)-1]
}

// checkContents reports what makes contents an invalid request: roles
// that do not alternate (starting with user), or a function call not
// answered by the user content after it.
func checkContents(t *testing.T, what string, contents []*genai.Content) {
	t.Helper()
	for i, c := range contents {
		want := genai.RoleUser
		if i%2 == 1 {
			want = genai.RoleModel
		}
		if c == nil || c.Role != want {
			t.Errorf("%s: content %d is not %s: %s", what, i, want, mustJSON(contents))
			return
		}
		for _, p := range c.Parts {
			if p.FunctionCall == nil {
				continue
			}
			answered := false
			if i+1 < len(contents) {
				for _, q := range contents[i+1].Parts {
					answered = answered || (q.FunctionResponse != nil && q.FunctionResponse.ID == p.FunctionCall.ID)
				}
			}
			if !answered {
				t.Errorf("%s: call %s is not answered: %s", what, p.FunctionCall.ID, mustJSON(contents))
			}
		}
	}
}

// TestEarlyEndingsKeepHistoryValid ends a turn in every way a turn can end
// early, then sends another prompt: the history in between and the next
// request alternate user and model, answer every call, and the next turn
// completes.
func TestEarlyEndingsKeepHistoryValid(t *testing.T) {
	const chant = "All work and no play makes Jack a dull boy, again. "
	chanting := make([]string, 20)
	for i := range chanting {
		chanting[i] = chant
	}
	same := fake.Call("read", map[string]any{"text": "a"})
	stopped := false
	stopHook := func(*HookInput) (*HookOutput, error) {
		return &HookOutput{Continue: &stopped, StopReason: "enough"}, nil
	}
	for _, tt := range []struct {
		name   string
		script []fake.Entry
		cuts   map[int]cut
		// onEvent sees each event of the first turn with the turn's
		// cancel; returning false stops ranging.
		onEvent  func(ev *Event, cancel context.CancelFunc) bool
		confirm  func(ctx context.Context, c *ToolCall) (tool.Decision, error)
		hooks    map[HookEvent]func(*HookInput) (*HookOutput, error)
		maxTurns int
		// partial is the model text the history keeps from the first
		// turn's last answer ("" when it keeps none).
		partial string
	}{{
		name:    "consumer stops mid-answer",
		script:  []fake.Entry{fake.Text("Hello", " world")},
		onEvent: func(ev *Event, _ context.CancelFunc) bool { return ev.Type != EventContent },
		partial: "Hello",
	}, {
		name:   "context cancelled mid-answer",
		script: []fake.Entry{fake.Text("Hello", " world")},
		onEvent: func(ev *Event, cancel context.CancelFunc) bool {
			if ev.Type == EventContent {
				cancel()
			}
			return true
		},
		partial: "Hello",
	}, {
		name:    "model error mid-answer",
		script:  []fake.Entry{fake.Text("Hello", " world")},
		cuts:    map[int]cut{0: {after: 1, err: &model.APIError{StatusCode: 500, Message: "boom"}}},
		partial: "Hello",
	}, {
		name:    "stream cut in half",
		script:  []fake.Entry{fake.Text("Hello", " world")},
		cuts:    map[int]cut{0: {after: 1, err: io.ErrUnexpectedEOF}},
		partial: "Hello",
	}, {
		name: "model error before any answer",
		cuts: map[int]cut{0: {err: &model.APIError{StatusCode: 429, Message: "quota"}}},
	}, {
		name:    "consumer stops at a tool call",
		script:  []fake.Entry{fake.Call("read", map[string]any{"text": "a"})},
		onEvent: func(ev *Event, _ context.CancelFunc) bool { return ev.Type != EventToolCall },
	}, {
		name:   "cancelled during a tool",
		script: []fake.Entry{fake.Call("read", map[string]any{"text": "block"})},
		onEvent: func(ev *Event, cancel context.CancelFunc) bool {
			if ev.Type == EventToolCall && ev.Call.Status == StatusExecuting {
				cancel()
			}
			return true
		},
	}, {
		name:   "cancelled during a confirmation",
		script: []fake.Entry{fake.Call("edit", map[string]any{"text": "a"})},
		confirm: func(ctx context.Context, _ *ToolCall) (tool.Decision, error) {
			<-ctx.Done()
			return tool.Decision{}, ctx.Err()
		},
		onEvent: func(ev *Event, cancel context.CancelFunc) bool {
			if ev.Type == EventToolCall && ev.Call.Status == StatusAwaitingApproval {
				cancel()
			}
			return true
		},
	}, {
		name:   "consumer stops at a confirmation",
		script: []fake.Entry{fake.Call("edit", map[string]any{"text": "a"})},
		onEvent: func(ev *Event, _ context.CancelFunc) bool {
			return ev.Type != EventToolCall || ev.Call.Status != StatusAwaitingApproval
		},
	}, {
		name:   "confirmation never answered",
		script: []fake.Entry{fake.Call("edit", map[string]any{"text": "a"})},
	}, {
		name:     "max turns",
		script:   []fake.Entry{fake.Call("read", map[string]any{"text": "a"})},
		maxTurns: 1,
	}, {
		name:   "loop detected in tool calls",
		script: []fake.Entry{same, same, same, same, same, same},
	}, {
		name:   "loop detected in content",
		script: []fake.Entry{fake.Text(chanting...), fake.Text(chanting...)},
	}, {
		name:  "hook stops before the agent",
		hooks: map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeAgent: stopHook},
	}, {
		name:   "hook stops mid-answer",
		script: []fake.Entry{fake.Text("Hello", " world")},
		hooks:  map[HookEvent]func(*HookInput) (*HookOutput, error){HookAfterModel: stopHook},
	}, {
		name:   "hook stops after a tool",
		script: []fake.Entry{fake.Call("read", map[string]any{"text": "a"})},
		hooks:  map[HookEvent]func(*HookInput) (*HookOutput, error){HookAfterTool: stopHook},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			m := &watched{Model: fake.Script(append(tt.script, fake.Text("fine"))...), cuts: tt.cuts}
			cfg := Config{
				Model: m, ModelName: "gemini-2.5-pro", SessionID: "s1",
				Tools:           tool.NewRegistry(echoTool{name: "read", kind: tool.KindRead}, echoTool{name: "edit", kind: tool.KindEdit}),
				Policy:          policy.New(policy.Options{Mode: policy.ModeDefault, Interactive: true}),
				EnvContext:      func() string { return "<session_context>env</session_context>" },
				Confirm:         tt.confirm,
				MaxSessionTurns: tt.maxTurns,
			}
			if tt.hooks != nil {
				cfg.Hooks = &fakeHooks{on: tt.hooks}
			}
			s := New(cfg)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			for ev, err := range s.Send(ctx, genai.NewPartFromText("go")) {
				if err != nil || tt.onEvent == nil {
					continue
				}
				if !tt.onEvent(ev, cancel) {
					break
				}
			}

			h := s.History()
			valid := h
			if len(s.Pending()) > 0 {
				// A paused turn's calls wait for answers; the next prompt
				// answers them (TestUnansweredPauseGoesWithNextPrompt).
				valid = RepairHistory(h, "")
			}
			if n := len(valid); n > 0 && valid[n-1].Role == genai.RoleUser {
				// Checked as the request the next prompt will join.
				valid = append(valid, &genai.Content{Role: genai.RoleModel})
			}
			checkContents(t, "history after the turn", valid)
			kept := ""
			for _, c := range h {
				if c.Role == genai.RoleModel {
					kept = ""
					for _, p := range c.Parts {
						kept += p.Text
					}
				}
			}
			if tt.partial != "" && kept != tt.partial {
				t.Errorf("kept answer %q, want %q: %s", kept, tt.partial, mustJSON(h))
			}
			if tt.partial == "" && strings.Contains(kept, "Hello") {
				t.Errorf("kept answer %q the hook stopped", kept)
			}

			s.cfg.MaxSessionTurns = 0
			s.cfg.Hooks = nil
			evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("next")))
			if err != nil {
				t.Fatalf("next prompt: %v", err)
			}
			if last := evs[len(evs)-1]; last.Type != EventTurnEnd || last.Reason != TurnCompleted || last.Text != "fine" {
				t.Errorf("next turn ended with %s %s %q", last.Type, last.Reason, last.Text)
			}
			req := m.last().Contents
			checkContents(t, "next request", req)
			lastUser := req[len(req)-1].Parts
			if p := lastUser[len(lastUser)-1]; p.Text != "next" {
				t.Errorf("next request ends with %s", mustJSON(p))
			}
			if len(s.Pending()) != 0 {
				t.Error("calls still pending")
			}
		})
	}
}

// TestResumedHistoryAlternates: a recorded conversation whose turn ended
// before the model answered holds two user messages in a row; the
// session built from it joins them.
func TestResumedHistoryAlternates(t *testing.T) {
	m := &watched{Model: fake.Script(fake.Text("fine"))}
	s := New(Config{Model: m, ModelName: "gemini-2.5-pro", History: []*genai.Content{
		genai.NewContentFromText("first", genai.RoleUser),
		genai.NewContentFromText("second", genai.RoleUser),
		genai.NewContentFromText("answer", genai.RoleModel),
	}})
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("third"))); err != nil {
		t.Fatal(err)
	}
	want := `[{"parts":[{"text":"first"},{"text":"second"}],"role":"user"},{"parts":[{"text":"answer"}],"role":"model"},{"parts":[{"text":"third"}],"role":"user"}]`
	if got := mustJSON(m.last().Contents); got != want {
		t.Errorf("request = %s\nwant %s", got, want)
	}
	if err := s.SetHistory([]*genai.Content{genai.NewContentFromText("a", genai.RoleUser), genai.NewContentFromText("b", genai.RoleUser)}); err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(s.History()); got != `[{"parts":[{"text":"a"},{"text":"b"}],"role":"user"}]` {
		t.Errorf("restored history = %s", got)
	}
}

// FuzzJoinUserContents: a recorded history, joined, never holds two user
// contents in a row and keeps every part in order.
func FuzzJoinUserContents(f *testing.F) {
	f.Add(`[{"role":"user","parts":[{"text":"a"}]},{"role":"user","parts":[{"text":"b"}]},{"role":"model","parts":[{"text":"c"}]}]`)
	f.Add(`[null,{"role":"user"},{"role":"user","parts":[null]},{"role":"model"}]`)
	f.Fuzz(func(t *testing.T, in string) {
		var h []*genai.Content
		if json.Unmarshal([]byte(in), &h) != nil {
			return
		}
		before := mustJSON(h)
		out := joinUserContents(h)
		if mustJSON(h) != before {
			t.Fatalf("input changed: %s", mustJSON(h))
		}
		var parts, joined int
		for i, c := range out {
			if c != nil {
				joined += len(c.Parts)
			}
			if i > 0 && c != nil && out[i-1] != nil && c.Role == genai.RoleUser && out[i-1].Role == genai.RoleUser {
				t.Fatalf("two user contents in a row: %s", mustJSON(out))
			}
		}
		for _, c := range h {
			if c != nil {
				parts += len(c.Parts)
			}
		}
		if parts != joined {
			t.Fatalf("%d parts, %d after joining", parts, joined)
		}
	})
}
