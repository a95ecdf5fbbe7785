package agent

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// scripted is a model.Model that answers each stream call with the next
// scripted list of parts and records the requests.
type scripted struct {
	mu      sync.Mutex
	turns   [][]*genai.Part
	errs    map[int]error
	reqs    []*model.Request
	summary string
}

func (m *scripted) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText(m.summary, genai.RoleModel), FinishReason: genai.FinishReasonStop}}}, nil
}

func (m *scripted) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		m.mu.Lock()
		n := len(m.reqs)
		m.reqs = append(m.reqs, req)
		if err := m.errs[n]; err != nil {
			m.mu.Unlock()
			yield(nil, err)
			return
		}
		if len(m.turns) == 0 {
			m.mu.Unlock()
			yield(nil, errors.New("script exhausted"))
			return
		}
		parts := m.turns[0]
		m.turns = m.turns[1:]
		m.mu.Unlock()
		for _, p := range parts {
			if !yield(&genai.GenerateContentResponse{ModelVersion: "gemini-fake", Candidates: []*genai.Candidate{{Content: &genai.Content{Role: "model", Parts: []*genai.Part{p}}}}}, nil) {
				return
			}
		}
		yield(&genai.GenerateContentResponse{ModelVersion: "gemini-fake", Candidates: []*genai.Candidate{{FinishReason: genai.FinishReasonStop}},
			UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 5, TotalTokenCount: 15}}, nil)
	}
}

func (m *scripted) CountTokens(ctx context.Context, req *model.Request) (int32, error) { return 0, nil }

func call(name string, args map[string]any) *genai.Part {
	return &genai.Part{FunctionCall: &genai.FunctionCall{Name: name, Args: args}}
}

// echoTool returns its "text" argument; kind decides its approval needs.
type echoTool struct {
	name string
	kind tool.Kind
	ran  *[]string
	mu   *sync.Mutex
}

func (t echoTool) Name() string        { return t.name }
func (t echoTool) DisplayName() string { return t.name }
func (t echoTool) Description() string { return "echo" }
func (t echoTool) Kind() tool.Kind     { return t.kind }
func (t echoTool) Schema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []any{"text"}}
}
func (t echoTool) Build(args map[string]any) (tool.Call, error) {
	return echoCall{t: t, text: args["text"].(string)}, nil
}

type echoCall struct {
	t    echoTool
	text string
}

func (c echoCall) Describe() string { return c.text }
func (c echoCall) Confirmation(ctx context.Context) (*tool.ConfirmationDetails, error) {
	return &tool.ConfirmationDetails{Type: tool.ConfirmInfo, Title: "echo " + c.text}, nil
}
func (c echoCall) Execute(ctx context.Context, out func(string)) *tool.Result {
	if c.text == "block" {
		<-ctx.Done()
		return tool.Fail(tool.ErrCancelled, "cancelled")
	}
	if c.t.ran != nil {
		c.t.mu.Lock()
		*c.t.ran = append(*c.t.ran, c.text)
		c.t.mu.Unlock()
	}
	return tool.Text("echo: " + c.text)
}

func newTestSession(m *scripted, mode policy.Mode, interactive bool, tools ...tool.Tool) *Session {
	return New(Config{
		Model: m, ModelName: "gemini-2.5-pro", SessionID: "s1",
		Tools:      tool.NewRegistry(tools...),
		Policy:     policy.New(policy.Options{Mode: mode, Interactive: interactive}),
		EnvContext: func() string { return "<session_context>env</session_context>" },
	})
}

func collect(t *testing.T, seq iter.Seq2[*Event, error]) ([]*Event, error) {
	t.Helper()
	var evs []*Event
	for ev, err := range seq {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestTextTurnAndEnvContext(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{{Text: "**Plan** think", Thought: true}, {Text: "Hello"}, {Text: " world"}}}}
	s := newTestSession(m, policy.ModeDefault, false)
	evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("hi")))
	if err != nil {
		t.Fatal(err)
	}
	var text string
	var thought *Thought
	for _, ev := range evs {
		switch ev.Type {
		case EventContent:
			text += ev.Text
		case EventThought:
			thought = ev.Thought
		}
	}
	if text != "Hello world" {
		t.Errorf("text = %q", text)
	}
	if thought == nil || thought.Subject != "Plan" || thought.Description != "think" {
		t.Errorf("thought = %+v", thought)
	}
	h := s.History()
	if len(h) != 2 {
		t.Fatalf("history has %d contents", len(h))
	}
	if got := mustJSON(h[0]); got != `{"parts":[{"text":"\u003csession_context\u003eenv\u003c/session_context\u003e"},{"text":"hi"}],"role":"user"}` {
		t.Errorf("first user content = %s", got)
	}
	if got := mustJSON(h[1]); got != `{"parts":[{"text":"Hello world"}],"role":"model"}` {
		t.Errorf("model content = %s (thoughts must be dropped, text merged)", got)
	}
	// A second prompt carries no env context.
	m.turns = [][]*genai.Part{{{Text: "again"}}}
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("more"))); err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(s.History()[2]); got != `{"parts":[{"text":"more"}],"role":"user"}` {
		t.Errorf("second prompt = %s", got)
	}
}

func TestParallelCallsAnsweredInOrder(t *testing.T) {
	var ran []string
	mu := &sync.Mutex{}
	echo := echoTool{name: "echo", kind: tool.KindRead, ran: &ran, mu: mu}
	sig := []byte("sig-1")
	m := &scripted{turns: [][]*genai.Part{
		{{Text: "thinking", Thought: true}, {FunctionCall: &genai.FunctionCall{ID: "a", Name: "echo", Args: map[string]any{"text": "one"}}, ThoughtSignature: sig}, call("echo", map[string]any{"text": "two"}), call("nope", nil)},
		{{Text: "done"}},
	}}
	s := newTestSession(m, policy.ModeDefault, false, echo)
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go"))); err != nil {
		t.Fatal(err)
	}
	if len(m.reqs) != 2 {
		t.Fatalf("%d model calls", len(m.reqs))
	}
	second := m.reqs[1].Contents
	modelTurn := second[1]
	if modelTurn.Role != "model" || len(modelTurn.Parts) != 3 {
		t.Fatalf("model turn = %s", mustJSON(modelTurn))
	}
	if string(modelTurn.Parts[0].ThoughtSignature) != "sig-1" || modelTurn.Parts[0].Thought {
		t.Errorf("signature not kept on call: %s", mustJSON(modelTurn.Parts[0]))
	}
	genID := modelTurn.Parts[1].FunctionCall.ID
	if !strings.HasPrefix(genID, "echo_") || !strings.HasSuffix(genID, "_1") {
		t.Errorf("generated id = %q", genID)
	}
	resp := second[2]
	want := []string{
		`{"functionResponse":{"id":"a","name":"echo","response":{"output":"echo: one"}}}`,
		`{"functionResponse":{"id":"` + genID + `","name":"echo","response":{"output":"echo: two"}}}`,
		`{"functionResponse":{"id":"` + modelTurn.Parts[2].FunctionCall.ID + `","name":"nope","response":{"error":"Tool \"nope\" not found. Did you mean one of: \"echo\"?"}}}`,
	}
	if resp.Role != "user" || len(resp.Parts) != 3 {
		t.Fatalf("response content = %s", mustJSON(resp))
	}
	for i, w := range want {
		if got := mustJSON(resp.Parts[i]); got != w {
			t.Errorf("part %d = %s\nwant %s", i, got, w)
		}
	}
	st := s.Stats()
	if st.Tools.TotalCalls != 3 || st.Tools.TotalSuccess != 2 || st.Tools.TotalFail != 1 {
		t.Errorf("tool stats = %+v", st.Tools)
	}
	if st.Models["gemini-fake"] == nil || st.Models["gemini-fake"].API.TotalRequests != 2 {
		t.Errorf("model stats = %s", mustJSON(st.Models))
	}
}

func TestHeadlessDeniesAndHidesEdits(t *testing.T) {
	write := echoTool{name: "write", kind: tool.KindEdit}
	m := &scripted{turns: [][]*genai.Part{{call("write", map[string]any{"text": "x"})}, {{Text: "ok"}}}}
	s := newTestSession(m, policy.ModeDefault, false, write, echoTool{name: "read", kind: tool.KindRead})
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go"))); err != nil {
		t.Fatal(err)
	}
	decls := m.reqs[0].Config.Tools[0].FunctionDeclarations
	if len(decls) != 1 || decls[0].Name != "read" {
		t.Errorf("declared %s", mustJSON(decls))
	}
	got := mustJSON(m.reqs[1].Contents[2].Parts[0].FunctionResponse.Response)
	if got != `{"error":"Tool \"write\" not found. Did you mean one of: \"read\"?"}` {
		t.Errorf("response = %s", got)
	}
}

func TestInvalidParams(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{call("echo", map[string]any{})}, {{Text: "ok"}}}}
	s := newTestSession(m, policy.ModeDefault, false, echoTool{name: "echo", kind: tool.KindRead})
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go"))); err != nil {
		t.Fatal(err)
	}
	got := mustJSON(m.reqs[1].Contents[2].Parts[0].FunctionResponse.Response)
	if got != `{"error":"params must have required property 'text'"}` {
		t.Errorf("response = %s", got)
	}
}

func TestConfirmNowAndLater(t *testing.T) {
	var ran []string
	mu := &sync.Mutex{}
	edit := echoTool{name: "edit", kind: tool.KindEdit, ran: &ran, mu: mu}

	// Answered while handling the event: the turn goes straight on.
	m := &scripted{turns: [][]*genai.Part{{call("edit", map[string]any{"text": "now"})}, {{Text: "ok"}}}}
	s := newTestSession(m, policy.ModeDefault, true, edit)
	for ev, err := range s.Send(context.Background(), genai.NewPartFromText("go")) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == EventToolCall && ev.Call.Status == StatusAwaitingApproval {
			ev.Call.Confirmation.Answer(tool.Decision{Outcome: tool.ProceedOnce})
		}
	}
	if len(ran) != 1 || ran[0] != "now" {
		t.Fatalf("ran = %v", ran)
	}

	// Not answered: the turn pauses, then resumes after Answer.
	m2 := &scripted{turns: [][]*genai.Part{{call("edit", map[string]any{"text": "later"})}, {{Text: "ok"}}}}
	s2 := newTestSession(m2, policy.ModeDefault, true, edit)
	evs, err := collect(t, s2.Send(context.Background(), genai.NewPartFromText("go")))
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.Type != EventInputRequired {
		t.Fatalf("last event = %s", last.Type)
	}
	pend := s2.Pending()
	if len(pend) != 1 {
		t.Fatalf("pending = %d", len(pend))
	}
	if _, err := collect(t, s2.Resume(context.Background())); !errors.Is(err, ErrUnanswered) {
		t.Fatalf("resume before answer: %v", err)
	}
	if err := s2.Answer(pend[0].ID, tool.Decision{Outcome: tool.ProceedAlways}); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, s2.Resume(context.Background())); err != nil {
		t.Fatal(err)
	}
	if len(ran) != 2 || ran[1] != "later" {
		t.Fatalf("ran = %v", ran)
	}
	// "Always" was remembered: the next call runs without asking.
	m2.turns = [][]*genai.Part{{call("edit", map[string]any{"text": "again"})}, {{Text: "ok"}}}
	evs, err = collect(t, s2.Send(context.Background(), genai.NewPartFromText("more")))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Type == EventInputRequired {
			t.Fatal("asked again after proceed_always")
		}
	}
}

func TestCancellationKeepsHistoryValid(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{call("echo", map[string]any{"text": "block"})}}}
	s := newTestSession(m, policy.ModeYolo, false, echoTool{name: "echo", kind: tool.KindRead})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var err error
	for ev, e := range s.Send(ctx, genai.NewPartFromText("go")) {
		if e != nil {
			err = e
			break
		}
		if ev.Type == EventToolCall && ev.Call.Status == StatusExecuting {
			cancel()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	h := s.History()
	last := h[len(h)-1]
	if last.Role != "user" || last.Parts[0].FunctionResponse == nil {
		t.Fatalf("history must end with the call's response: %s", mustJSON(last))
	}
	if !strings.Contains(mustJSON(last), "Operation Cancelled") {
		t.Errorf("response = %s", mustJSON(last))
	}
}

func TestMaxSessionTurns(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{call("echo", map[string]any{"text": "1"})}, {call("echo", map[string]any{"text": "2"})}}}
	s := newTestSession(m, policy.ModeYolo, false, echoTool{name: "echo", kind: tool.KindRead})
	s.cfg.MaxSessionTurns = 1
	_, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go")))
	if !errors.Is(err, ErrMaxSessionTurns) {
		t.Fatalf("err = %v", err)
	}
}

// TestLoopDetection: the fifth identical call is a loop; as in Gemini CLI
// 0.61 the model is first told (its calls answered as cancelled, with the
// feedback after them) and a sixth identical call stops the prompt.
func TestLoopDetection(t *testing.T) {
	var turns [][]*genai.Part
	for range 7 {
		turns = append(turns, []*genai.Part{call("echo", map[string]any{"text": "same"})})
	}
	m := &scripted{turns: turns}
	s := newTestSession(m, policy.ModeYolo, false, echoTool{name: "echo", kind: tool.KindRead})
	evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go")))
	if !errors.Is(err, ErrLoopDetected) {
		t.Fatalf("err = %v", err)
	}
	if evs[len(evs)-1].Type != EventLoopDetected {
		t.Errorf("last event %s", evs[len(evs)-1].Type)
	}
	if len(m.reqs) != identicalCallThreshold+1 {
		t.Fatalf("model called %d times", len(m.reqs))
	}
	told := m.reqs[identicalCallThreshold].Contents
	if last := told[len(told)-1]; len(last.Parts) != 2 || last.Parts[0].FunctionResponse == nil ||
		last.Parts[1].Text != loopFeedback(`Repeated tool call: echo with arguments {"text":"same"}`) {
		t.Errorf("request after the first loop ends with %s", mustJSON(last))
	}
	h := s.History()
	if last := h[len(h)-1]; last.Parts[0].FunctionResponse == nil {
		t.Errorf("history must end with responses: %s", mustJSON(last))
	}
}

// TestChantingDetected: chanting is dropped and told to the model once;
// chanting again stops the prompt.
func TestChantingDetected(t *testing.T) {
	chant := strings.Repeat("I will now do the same thing over and over again. ", 30)
	m := &scripted{turns: [][]*genai.Part{{{Text: chant}}, {{Text: chant}}}}
	s := newTestSession(m, policy.ModeYolo, false)
	_, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go")))
	if !errors.Is(err, ErrLoopDetected) {
		t.Fatalf("err = %v", err)
	}
	if len(m.reqs) != 2 {
		t.Fatalf("model called %d times", len(m.reqs))
	}
	told := m.reqs[1].Contents
	if len(told) != 1 || !strings.HasPrefix(told[0].Parts[len(told[0].Parts)-1].Text, `System: Potential loop detected. Details: Repeating content detected: "`) {
		t.Errorf("second request: %s", mustJSON(told))
	}
}

// TestLoopTold: a model told of its first loop that changes course
// finishes the prompt, whichever rule found the loop.
func TestLoopTold(t *testing.T) {
	same := []*genai.Part{call("echo", map[string]any{"text": "same"})}
	chant := []*genai.Part{{Text: strings.Repeat("I will now do the same thing over and over again. ", 30)}}
	for _, tc := range []struct {
		name  string
		turns [][]*genai.Part
	}{
		{name: "tool calls", turns: [][]*genai.Part{same, same, same, same, same, {call("echo", map[string]any{"text": "other"})}, {{Text: "done"}}}},
		{name: "chanting", turns: [][]*genai.Part{chant, {{Text: "done"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &scripted{turns: tc.turns}
			s := newTestSession(m, policy.ModeYolo, false, echoTool{name: "echo", kind: tool.KindRead})
			evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go")))
			if err != nil {
				t.Fatal(err)
			}
			if last := evs[len(evs)-1]; last.Type != EventTurnEnd || last.Text != "done" {
				t.Errorf("last event %s %q", last.Type, last.Text)
			}
			for _, ev := range evs {
				if ev.Type == EventLoopDetected {
					t.Errorf("loop reported: %q", ev.Text)
				}
			}
			checkContents(t, "history", s.History())
		})
	}
}

func TestStreamErrorKeepsUserTurn(t *testing.T) {
	m := &scripted{errs: map[int]error{0: model.ErrStreamCut}}
	s := newTestSession(m, policy.ModeYolo, false)
	_, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go")))
	if !errors.Is(err, model.ErrStreamCut) {
		t.Fatalf("err = %v", err)
	}
	if h := s.History(); len(h) != 1 || h[0].Role != "user" {
		t.Fatalf("history = %s", mustJSON(h))
	}
}

func TestCompression(t *testing.T) {
	m := &scripted{summary: "<state_snapshot>all of it</state_snapshot>"}
	var hist []*genai.Content
	for i := range 10 {
		hist = append(hist, genai.NewContentFromText(strings.Repeat("x", 400)+string(rune('a'+i)), genai.RoleUser),
			genai.NewContentFromText(strings.Repeat("y", 400), genai.RoleModel))
	}
	m.turns = [][]*genai.Part{{{Text: "ok"}}}
	s := New(Config{Model: m, ModelName: "gemini-2.5-pro", History: hist, TokenLimit: 1000, CompressionThreshold: 0.5})
	evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("next")))
	if err != nil {
		t.Fatal(err)
	}
	var info *CompressionInfo
	for _, ev := range evs {
		if ev.Type == EventCompressed {
			info = ev.Compression
		}
	}
	if info == nil || info.Status != "COMPRESSED" {
		t.Fatalf("compression = %+v", info)
	}
	sent := m.reqs[0].Contents
	if sent[0].Parts[0].Text != "<state_snapshot>all of it</state_snapshot>" || sent[1].Parts[0].Text != compressionAck {
		t.Errorf("compressed head = %s", mustJSON(sent[:2]))
	}
	if last := sent[len(sent)-1]; last.Parts[0].Text != "next" {
		t.Errorf("tail lost: %s", mustJSON(last))
	}
	if len(sent) >= len(hist) {
		t.Errorf("history not shortened: %d", len(sent))
	}
}

func TestParseThought(t *testing.T) {
	for in, want := range map[string]Thought{
		"**Subject** rest":         {"Subject", "rest"},
		"before **S** after":       {"S", "before  after"},
		"no subject":               {"", "no subject"},
		"**A**\n\ndesc **B** more": {"A", "desc **B** more"},
	} {
		if got := parseThought(in); got != want {
			t.Errorf("parseThought(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestPromptContext(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{{Text: "a"}}, {{Text: "b"}}}}
	s := newTestSession(m, policy.ModeDefault, false)
	var firsts []bool
	s.cfg.PromptContext = func(first bool) []*genai.Part {
		firsts = append(firsts, first)
		return []*genai.Part{{Text: "editor context"}}
	}
	collect(t, s.Send(context.Background(), genai.NewPartFromText("one")))
	collect(t, s.Send(context.Background(), genai.NewPartFromText("two")))
	got := mustJSON(m.reqs[1].Contents)
	want := `[{"parts":[{"text":"\u003csession_context\u003eenv\u003c/session_context\u003e"}],"role":"user"},{"parts":[{"text":"editor context"}],"role":"user"},{"parts":[{"text":"one"}],"role":"user"},{"parts":[{"text":"a"}],"role":"model"},{"parts":[{"text":"editor context"}],"role":"user"},{"parts":[{"text":"two"}],"role":"user"}]`
	if got != want {
		t.Errorf("contents:\n got %s\nwant %s", got, want)
	}
	if len(firsts) != 2 || !firsts[0] || firsts[1] {
		t.Errorf("first flags = %v", firsts)
	}
}

func TestGeneratedCallIDsAreUnique(t *testing.T) {
	var turns [][]*genai.Part
	for i := range 4 {
		turns = append(turns, []*genai.Part{call("echo", map[string]any{"text": string(rune('a' + i))})})
	}
	turns = append(turns, []*genai.Part{{Text: "done"}})
	m := &scripted{turns: turns}
	s := newTestSession(m, policy.ModeYolo, false, echoTool{name: "echo", kind: tool.KindRead})
	evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go")))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ev := range evs {
		if ev.Type == EventToolCall && ev.Call.Status == StatusValidating {
			if seen[ev.Call.ID] {
				t.Errorf("id %s generated twice", ev.Call.ID)
			}
			seen[ev.Call.ID] = true
		}
	}
	if len(seen) != 4 {
		t.Errorf("%d distinct ids", len(seen))
	}
}
