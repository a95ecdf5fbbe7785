package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// fakeHooks answers each event with a function and records the inputs.
type fakeHooks struct {
	mu  sync.Mutex
	on  map[HookEvent]func(*HookInput) (*HookOutput, error)
	ins []*HookInput
}

func (h *fakeHooks) Handles(e HookEvent) bool { return h.on[e] != nil }

func (h *fakeHooks) Fire(_ context.Context, in *HookInput) (*HookOutput, error) {
	h.mu.Lock()
	h.ins = append(h.ins, in.Clone())
	h.mu.Unlock()
	return h.on[in.HookEventName](in)
}

func (h *fakeHooks) inputs(e HookEvent) []*HookInput {
	var out []*HookInput
	for _, in := range h.ins {
		if in.HookEventName == e {
			out = append(out, in)
		}
	}
	return out
}

func out(o *HookOutput) func(*HookInput) (*HookOutput, error) {
	return func(*HookInput) (*HookOutput, error) { return o, nil }
}

func falsePtr() *bool { f := false; return &f }

// requestText is the text of every content of a request.
func requestText(cs []*genai.Content) string {
	var b strings.Builder
	for _, c := range cs {
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

func TestHookPoints(t *testing.T) {
	ctxOut := func(s string) *HookOutput {
		return &HookOutput{HookSpecificOutput: &HookSpecificOutput{AdditionalContext: s}}
	}
	for _, tt := range []struct {
		name  string
		turns [][]*genai.Part
		on    map[HookEvent]func(*HookInput) (*HookOutput, error)
		// check gets the events, the model's requests and what ran.
		check func(t *testing.T, evs []*Event, m *scripted, ran []string, h *fakeHooks)
	}{
		{
			name:  "BeforeAgent context reaches the model",
			turns: [][]*genai.Part{{{Text: "ok"}}},
			on:    map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeAgent: out(ctxOut("a <b>"))},
			check: func(t *testing.T, evs []*Event, m *scripted, _ []string, h *fakeHooks) {
				if got := requestText(m.reqs[0].Contents); !strings.Contains(got, "hello\n<hook_context>a &lt;b&gt;</hook_context>") {
					t.Errorf("request %q", got)
				}
				if p := h.inputs(HookBeforeAgent)[0].Prompt; p == nil || *p != "hello" {
					t.Errorf("prompt %v", p)
				}
			},
		},
		{
			name:  "BeforeAgent deny drops the prompt",
			turns: [][]*genai.Part{{{Text: "never"}}},
			on:    map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeAgent: out(&HookOutput{Decision: "deny", Reason: "no"})},
			check: func(t *testing.T, evs []*Event, m *scripted, _ []string, _ *fakeHooks) {
				if len(m.reqs) != 0 {
					t.Error("model called")
				}
				if last := evs[len(evs)-1]; last.Type != EventTurnEnd || last.Reason != TurnBlocked || last.Text != "no" {
					t.Errorf("last event %+v", last)
				}
			},
		},
		{
			name:  "BeforeAgent stop keeps the prompt",
			turns: [][]*genai.Part{{{Text: "never"}}},
			on:    map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeAgent: out(&HookOutput{Continue: falsePtr(), Reason: "later"})},
			check: func(t *testing.T, evs []*Event, m *scripted, _ []string, _ *fakeHooks) {
				if len(m.reqs) != 0 {
					t.Error("model called")
				}
				if last := evs[len(evs)-1]; last.Reason != TurnStopped || last.Text != "later" {
					t.Errorf("last event %+v", last)
				}
			},
		},
		{
			name:  "BeforeModel synthetic response skips the model",
			turns: nil,
			on: map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeModel: out(&HookOutput{HookSpecificOutput: &HookSpecificOutput{
				LLMResponse: &LLMResponse{Candidates: []LLMCandidate{{Content: LLMContent{Role: "model", Parts: []string{"from hook"}}, FinishReason: "STOP"}}}}})},
			check: func(t *testing.T, evs []*Event, m *scripted, _ []string, _ *fakeHooks) {
				if len(m.reqs) != 0 {
					t.Error("model called")
				}
				if last := evs[len(evs)-1]; last.Text != "from hook" || last.Reason != TurnCompleted {
					t.Errorf("last event %+v", last)
				}
			},
		},
		{
			name:  "BeforeModel request override",
			turns: [][]*genai.Part{{{Text: "ok"}}},
			on: map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeModel: func(in *HookInput) (*HookOutput, error) {
				msgs := append(in.LLMRequest.Messages, LLMMessage{Role: "user", Content: "extra"})
				return &HookOutput{HookSpecificOutput: &HookSpecificOutput{LLMRequest: &LLMRequest{Model: "gemini-other", Messages: msgs, Config: map[string]any{"temperature": 0.25}}}}, nil
			}},
			check: func(t *testing.T, evs []*Event, m *scripted, _ []string, _ *fakeHooks) {
				r := m.reqs[0]
				if r.Model != "gemini-other" || r.Config.Temperature == nil || *r.Config.Temperature != 0.25 || !strings.HasSuffix(requestText(r.Contents), "extra\n") {
					t.Errorf("request model %s config %+v contents %q", r.Model, r.Config, requestText(r.Contents))
				}
			},
		},
		{
			name:  "BeforeToolSelection restricts tools",
			turns: [][]*genai.Part{{{Text: "ok"}}},
			on: map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeToolSelection: out(&HookOutput{HookSpecificOutput: &HookSpecificOutput{
				ToolConfig: &HookToolConfig{Mode: "ANY", AllowedFunctionNames: []string{"read"}}}})},
			check: func(t *testing.T, evs []*Event, m *scripted, _ []string, h *fakeHooks) {
				cfg := m.reqs[0].Config
				fc := cfg.ToolConfig.FunctionCallingConfig
				if fc.Mode != genai.FunctionCallingConfigModeAny || len(fc.AllowedFunctionNames) != 1 || len(cfg.Tools[0].FunctionDeclarations) != 1 {
					t.Errorf("tool config %s tools %s", mustJSON(cfg.ToolConfig), mustJSON(cfg.Tools))
				}
				if tc := h.inputs(HookBeforeToolSelection)[0].LLMRequest.ToolConfig; tc == nil || len(tc.AllowedFunctionNames) != 2 {
					t.Errorf("input tool config %s", mustJSON(tc))
				}
			},
		},
		{
			name:  "AfterModel replaces chunks",
			turns: [][]*genai.Part{{{Text: "secret"}}},
			on: map[HookEvent]func(*HookInput) (*HookOutput, error){HookAfterModel: func(in *HookInput) (*HookOutput, error) {
				if in.LLMResponse.Text == "" {
					return nil, nil
				}
				return &HookOutput{HookSpecificOutput: &HookSpecificOutput{LLMResponse: &LLMResponse{Candidates: []LLMCandidate{{Content: LLMContent{Parts: []string{"[redacted]"}}}}}}}, nil
			}},
			check: func(t *testing.T, evs []*Event, _ *scripted, _ []string, _ *fakeHooks) {
				if last := evs[len(evs)-1]; last.Text != "[redacted]" {
					t.Errorf("answer %q", last.Text)
				}
			},
		},
		{
			name:  "AfterModel stop halts",
			turns: [][]*genai.Part{{{Text: "x"}}},
			on:    map[HookEvent]func(*HookInput) (*HookOutput, error){HookAfterModel: out(&HookOutput{Continue: falsePtr(), StopReason: "enough"})},
			check: func(t *testing.T, evs []*Event, _ *scripted, _ []string, _ *fakeHooks) {
				if last := evs[len(evs)-1]; last.Reason != TurnStopped || last.Text != "enough" {
					t.Errorf("last %+v", last)
				}
			},
		},
		{
			name:  "BeforeTool block",
			turns: [][]*genai.Part{{callID("r1", "read", "x")}, {{Text: "done"}}},
			on:    map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeTool: out(&HookOutput{Decision: "deny", Reason: "nope"})},
			check: func(t *testing.T, evs []*Event, m *scripted, ran []string, h *fakeHooks) {
				if len(ran) != 0 {
					t.Errorf("tool ran: %v", ran)
				}
				if got := requestText(m.reqs[1].Contents); !strings.Contains(got, `{"error":"Tool execution blocked: nope"}`) {
					t.Errorf("request %q", got)
				}
				if in := h.inputs(HookBeforeTool)[0]; in.ToolName != "read" || in.ToolInput["text"] != "x" {
					t.Errorf("input %s", mustJSON(in))
				}
			},
		},
		{
			name:  "BeforeTool rewrites input",
			turns: [][]*genai.Part{{callID("r1", "read", "x")}, {{Text: "done"}}},
			on: map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeTool: out(&HookOutput{HookSpecificOutput: &HookSpecificOutput{
				ToolInput: map[string]any{"text": "rewritten"}}})},
			check: func(t *testing.T, evs []*Event, m *scripted, ran []string, _ *fakeHooks) {
				if len(ran) != 1 || ran[0] != "rewritten" {
					t.Errorf("ran %v", ran)
				}
				if got := requestText(m.reqs[1].Contents); !strings.Contains(got, "echo: rewritten\\n\\n[System] Tool input parameters were modified by a hook before execution.") {
					t.Errorf("request %q", got)
				}
			},
		},
		{
			name:  "BeforeTool input adds to the call's arguments",
			turns: [][]*genai.Part{{callID("r1", "read", "x")}, {{Text: "done"}}},
			on: map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeTool: out(&HookOutput{HookSpecificOutput: &HookSpecificOutput{
				ToolInput: map[string]any{"extra": "e"}}})},
			check: func(t *testing.T, evs []*Event, m *scripted, ran []string, _ *fakeHooks) {
				if len(ran) != 1 || ran[0] != "x" {
					t.Errorf("ran %v, want the call's own text", ran)
				}
				var args []string
				for _, ev := range evs {
					if ev.Type == EventToolCall && ev.Call.Status == StatusSuccess {
						args = append(args, mustJSON(ev.Call.Args))
					}
				}
				if len(args) != 1 || args[0] != `{"extra":"e","text":"x"}` {
					t.Errorf("arguments of the calls that ran: %v", args)
				}
			},
		},
		{
			name:  "BeforeTool ask: an allowed call needs approval, which headless is a refusal",
			turns: [][]*genai.Part{{callID("r1", "read", "x")}, {{Text: "done"}}},
			on:    map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeTool: out(&HookOutput{Decision: "ask"})},
			check: func(t *testing.T, evs []*Event, m *scripted, ran []string, _ *fakeHooks) {
				if len(ran) != 0 {
					t.Errorf("tool ran: %v", ran)
				}
				if got := requestText(m.reqs[1].Contents); !strings.Contains(got, `{"error":"Tool execution denied by policy."}`) {
					t.Errorf("request %q", got)
				}
			},
		},
		{
			name:  "BeforeTool stop halts after the batch",
			turns: [][]*genai.Part{{callID("r1", "read", "x")}, {{Text: "never"}}},
			on:    map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeTool: out(&HookOutput{Continue: falsePtr(), StopReason: "halt"})},
			check: func(t *testing.T, evs []*Event, m *scripted, ran []string, _ *fakeHooks) {
				if len(m.reqs) != 1 || len(ran) != 0 {
					t.Errorf("model calls %d, ran %v", len(m.reqs), ran)
				}
				if last := evs[len(evs)-1]; last.Reason != TurnStopped || last.Text != "halt" {
					t.Errorf("last %+v", last)
				}
			},
		},
		{
			name:  "AfterTool context, output and tail call",
			turns: [][]*genai.Part{{callID("r1", "read", "x"), callID("r2", "read", "y")}, {{Text: "done"}}},
			on: map[HookEvent]func(*HookInput) (*HookOutput, error){HookAfterTool: func(in *HookInput) (*HookOutput, error) {
				if in.ToolInput["text"] == "x" {
					return &HookOutput{HookSpecificOutput: &HookSpecificOutput{AdditionalContext: "after"}}, nil
				}
				if in.ToolInput["text"] == "y" {
					return &HookOutput{HookSpecificOutput: &HookSpecificOutput{TailToolCallRequest: &TailToolCall{Name: "read", Args: map[string]any{"text": "tail"}}}}, nil
				}
				return nil, nil
			}},
			check: func(t *testing.T, evs []*Event, m *scripted, ran []string, h *fakeHooks) {
				got := requestText(m.reqs[1].Contents)
				if !strings.Contains(got, `echo: x\n\n\u003chook_context\u003eafter\u003c/hook_context\u003e`) || !strings.Contains(got, `"output":"echo: tail"`) {
					t.Errorf("request %q", got)
				}
				if r := h.inputs(HookAfterTool)[0].ToolResponse; r["llmContent"] == nil {
					t.Errorf("tool_response %v", r)
				}
			},
		},
		{
			name:  "AfterTool deny replaces the result",
			turns: [][]*genai.Part{{callID("r1", "read", "x")}, {{Text: "done"}}},
			on:    map[HookEvent]func(*HookInput) (*HookOutput, error){HookAfterTool: out(&HookOutput{Decision: "block", Reason: "hidden"})},
			check: func(t *testing.T, evs []*Event, m *scripted, ran []string, _ *fakeHooks) {
				if got := requestText(m.reqs[1].Contents); !strings.Contains(got, "Tool execution blocked: hidden") || strings.Contains(got, "echo: x") {
					t.Errorf("request %q", got)
				}
			},
		},
		{
			name:  "AfterAgent deny retries once",
			turns: [][]*genai.Part{{{Text: "first"}}, {{Text: "second"}}},
			on: map[HookEvent]func(*HookInput) (*HookOutput, error){HookAfterAgent: func(in *HookInput) (*HookOutput, error) {
				if *in.StopHookActive {
					return nil, nil
				}
				return &HookOutput{Decision: "deny", Reason: "try again"}, nil
			}},
			check: func(t *testing.T, evs []*Event, m *scripted, _ []string, h *fakeHooks) {
				if len(m.reqs) != 2 || !strings.HasSuffix(requestText(m.reqs[1].Contents), "try again\n") {
					t.Errorf("requests %d", len(m.reqs))
				}
				ins := h.inputs(HookAfterAgent)
				if len(ins) != 2 || *ins[0].PromptResponse != "first" || *ins[1].Prompt != "hello" {
					t.Errorf("inputs %s", mustJSON(ins))
				}
				if last := evs[len(evs)-1]; last.Text != "second" {
					t.Errorf("answer %q", last.Text)
				}
			},
		},
		{
			name:  "system messages and hook errors are events",
			turns: [][]*genai.Part{{{Text: "ok"}}},
			on: map[HookEvent]func(*HookInput) (*HookOutput, error){HookBeforeModel: func(*HookInput) (*HookOutput, error) {
				return &HookOutput{SystemMessage: "note"}, errors.New("hook x failed")
			}},
			check: func(t *testing.T, evs []*Event, _ *scripted, _ []string, _ *fakeHooks) {
				var kinds []string
				for _, ev := range evs {
					if ev.Type == EventWarning || ev.Type == EventHookMessage {
						kinds = append(kinds, string(ev.Type)+":"+ev.Text)
					}
				}
				if strings.Join(kinds, ",") != "warning:hook x failed,hook_message:note" {
					t.Errorf("events %v", kinds)
				}
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ran []string
			var mu sync.Mutex
			m := &scripted{turns: tt.turns}
			h := &fakeHooks{on: tt.on}
			s := New(Config{
				Model: m, ModelName: "gemini-2.5-pro", SessionID: "s1",
				Tools:  tool.NewRegistry(echoTool{name: "read", kind: tool.KindRead, ran: &ran, mu: &mu}, echoTool{name: "other", kind: tool.KindRead}),
				Policy: policy.New(policy.Options{}),
				Hooks:  h,
			})
			evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("hello")))
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range h.ins {
				if in.SessionID != "s1" || in.Timestamp == "" {
					t.Errorf("common fields of %s: %s", in.HookEventName, mustJSON(in))
				}
			}
			tt.check(t, evs, m, ran, h)
			// A denied prompt leaves no trace in history; any other is kept.
			denied := tt.name == "BeforeAgent deny drops the prompt"
			if hist := s.History(); denied != (len(hist) == 0) {
				t.Errorf("history after the turn: %s", mustJSON(hist))
			}
		})
	}
}

// TestSessionHooks: SessionStart context goes before the first prompt's
// text, as Gemini CLI 0.61 prepends it (BeforeAgent sees it in its
// prompt), and its messages open the first turn; SessionEnd returns its
// messages.
func TestSessionHooks(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{{Text: "ok"}}}}
	h := &fakeHooks{on: map[HookEvent]func(*HookInput) (*HookOutput, error){
		HookSessionStart: out(&HookOutput{SystemMessage: "welcome", HookSpecificOutput: &HookSpecificOutput{AdditionalContext: "start ctx"}}),
		HookSessionEnd:   out(&HookOutput{SystemMessage: "bye"}),
		HookBeforeAgent:  out(nil),
	}}
	s := New(Config{Model: m, ModelName: "gemini-2.5-pro", SessionID: "s1", Hooks: h})
	s.StartHooks(context.Background(), "startup")
	evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("hello")))
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Type != EventHookMessage || evs[0].Text != "welcome" {
		t.Errorf("first event %+v", evs[0])
	}
	if got := requestText(m.reqs[0].Contents); got != "<hook_context>start ctx</hook_context>\n\nhello\n" {
		t.Errorf("request %q", got)
	}
	if p := h.inputs(HookBeforeAgent); len(p) != 1 || p[0].Prompt == nil || *p[0].Prompt != "<hook_context>start ctx</hook_context>\n\nhello" {
		t.Errorf("BeforeAgent input %s", mustJSON(p))
	}
	end := s.EndHooks(context.Background(), "exit")
	if len(end) != 1 || end[0].Text != "bye" || h.inputs(HookSessionEnd)[0].Reason != "exit" || h.inputs(HookSessionStart)[0].Source != "startup" {
		t.Errorf("end %v inputs %s", end, mustJSON(h.ins))
	}
}

// TestNotificationAndPreCompress: a call waiting for permission fires
// Notification; passing the compression threshold fires PreCompress.
func TestNotificationAndPreCompress(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{callID("e1", "edit", "x")}}}
	h := &fakeHooks{on: map[HookEvent]func(*HookInput) (*HookOutput, error){
		HookNotification: out(nil),
		HookPreCompress:  out(nil),
	}}
	s := New(Config{
		Model: m, ModelName: "gemini-2.5-pro", SessionID: "s1", Hooks: h,
		Tools:                tool.NewRegistry(echoTool{name: "edit", kind: tool.KindEdit}),
		Policy:               policy.New(policy.Options{Interactive: true}),
		CompressionThreshold: 1e-9,
	})
	evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("hello")))
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.Type != EventInputRequired {
		t.Fatalf("last %+v", last)
	}
	n := h.inputs(HookNotification)
	if len(n) != 1 || n[0].NotificationType != "ToolPermission" || n[0].Details["tool_name"] != "edit" || n[0].Message == "" {
		t.Errorf("notification %s", mustJSON(n))
	}
	if got, want := mustJSON(n[0].Details), `{"title":"echo x","tool_input":{"text":"x"},"tool_name":"edit","type":"info"}`; got != want {
		t.Errorf("notification details %s, want %s", got, want)
	}
	if p := h.inputs(HookPreCompress); len(p) == 0 || p[0].Trigger != "auto" {
		t.Errorf("precompress %s", mustJSON(p))
	}
}

// TestReplaceChunk: an AfterModel replacement's texts take the place of a
// chunk's texts candidate by candidate; each candidate keeps its calls,
// thoughts, finish reason (unless the hook gives one) and citations; a
// candidate the chunk did not have is taken as the hook wrote it.
func TestReplaceChunk(t *testing.T) {
	cite := &genai.CitationMetadata{Citations: []*genai.Citation{{URI: "https://example.com"}}}
	call := genai.NewPartFromFunctionCall("ls", nil)
	resp := &genai.GenerateContentResponse{ModelVersion: "v", Candidates: []*genai.Candidate{{
		Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "old"}, {Text: "thinking", Thought: true}, call, nil,
		}},
		FinishReason:     genai.FinishReasonMaxTokens,
		CitationMetadata: cite,
	}}}
	tests := []struct {
		name string
		lr   *LLMResponse
		want []*genai.Candidate // nil: the chunk unchanged
	}{
		{"no replacement", nil, nil},
		{"no candidates", &LLMResponse{Text: "t"}, nil},
		{"no parts", &LLMResponse{Candidates: []LLMCandidate{{}}}, nil},
		{"texts replaced", &LLMResponse{Candidates: []LLMCandidate{{Content: LLMContent{Parts: []string{"new"}}}}},
			[]*genai.Candidate{{
				Content:          &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "new"}, {Text: "thinking", Thought: true}, call}},
				FinishReason:     genai.FinishReasonMaxTokens,
				CitationMetadata: cite,
			}}},
		{"the hook's finish reason", &LLMResponse{Candidates: []LLMCandidate{{Content: LLMContent{Parts: []string{"new"}}, FinishReason: "STOP"}}},
			[]*genai.Candidate{{
				Content:          &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "new"}, {Text: "thinking", Thought: true}, call}},
				FinishReason:     genai.FinishReasonStop,
				CitationMetadata: cite,
			}}},
		{"a candidate more", &LLMResponse{Candidates: []LLMCandidate{
			{Content: LLMContent{Parts: []string{"one"}}}, {Content: LLMContent{Parts: []string{"two"}}},
		}}, []*genai.Candidate{
			{
				Content:          &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "one"}, {Text: "thinking", Thought: true}, call}},
				FinishReason:     genai.FinishReasonMaxTokens,
				CitationMetadata: cite,
			},
			{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "two"}}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := mustJSON(resp)
			got := replaceChunk(resp, tt.lr)
			if mustJSON(resp) != before {
				t.Fatalf("the chunk itself changed: %s", mustJSON(resp))
			}
			if tt.want == nil {
				if got != resp {
					t.Errorf("got %s, want the chunk", mustJSON(got))
				}
				return
			}
			want := &genai.GenerateContentResponse{ModelVersion: "v", Candidates: tt.want}
			if mustJSON(got) != mustJSON(want) {
				t.Errorf("got  %s\nwant %s", mustJSON(got), mustJSON(want))
			}
		})
	}
}

// TestPreCompressEveryModelCall: PreCompress (auto) fires before every
// main-loop model call, far under the compression threshold too, as
// Gemini CLI 0.61 fires it on each compression attempt; the history is
// left as it was.
func TestPreCompressEveryModelCall(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{callID("r1", "read", "x")}, {genai.NewPartFromText("done")}}}
	h := &fakeHooks{on: map[HookEvent]func(*HookInput) (*HookOutput, error){HookPreCompress: out(nil)}}
	s := New(Config{
		Model: m, ModelName: "gemini-2.5-pro", SessionID: "s1", Hooks: h,
		Tools:  tool.NewRegistry(echoTool{name: "read", kind: tool.KindRead}),
		Policy: policy.New(policy.Options{Interactive: true}),
	})
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("hello"))); err != nil {
		t.Fatal(err)
	}
	p := h.inputs(HookPreCompress)
	if len(p) != 2 || p[0].Trigger != "auto" || p[1].Trigger != "auto" {
		t.Errorf("PreCompress fired %s, want twice with trigger auto", mustJSON(p))
	}
	if got := len(s.History()); got != 4 {
		t.Errorf("history has %d contents, want 4 (nothing compressed)", got)
	}
}
