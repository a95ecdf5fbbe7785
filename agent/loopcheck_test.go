package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// checked is a model.Model for the loop check: each stream call before
// the last makes one echo call with new arguments (so no rule of loop.go
// fires), the last answers "done"; each unary call is a check, answered
// from verdicts (the last one repeated) and recorded with the number of
// stream calls made before it.
type checked struct {
	mu       sync.Mutex
	turns    int // stream calls to answer; the last answers text
	streams  []*model.Request
	checks   []*model.Request
	at       []int // stream calls made before each check
	verdicts []checkAnswer
}

// checkAnswer is one scripted answer of the check: text, or an error.
type checkAnswer struct {
	text string
	err  error
}

func verdict(confidence float64, analysis string) checkAnswer {
	return checkAnswer{text: fmt.Sprintf(`{"unproductive_state_analysis":%q,"unproductive_state_confidence":%v}`, analysis, confidence)}
}

func (m *checked) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.checks = append(m.checks, req)
	m.at = append(m.at, len(m.streams))
	a := checkAnswer{err: errors.New("no check scripted")}
	if n := len(m.verdicts); n > 0 {
		a = m.verdicts[min(len(m.checks), n)-1]
	}
	if a.err != nil {
		return nil, a.err
	}
	return &genai.GenerateContentResponse{ModelVersion: req.Model + "-001", Candidates: []*genai.Candidate{{Content: genai.NewContentFromText(a.text, genai.RoleModel), FinishReason: genai.FinishReasonStop}},
		UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 100, CandidatesTokenCount: 7, TotalTokenCount: 107}}, nil
}

func (m *checked) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		m.mu.Lock()
		m.streams = append(m.streams, req)
		n := len(m.streams)
		m.mu.Unlock()
		p := &genai.Part{Text: "done"}
		if n < m.turns {
			p = &genai.Part{FunctionCall: &genai.FunctionCall{ID: fmt.Sprintf("c%d", n), Name: "echo", Args: map[string]any{"text": fmt.Sprintf("step %d", n)}}}
		}
		yield(&genai.GenerateContentResponse{ModelVersion: "gemini-fake", Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{p}}, FinishReason: genai.FinishReasonStop}},
			UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 5, TotalTokenCount: 15}}, nil)
	}
}

func (m *checked) CountTokens(ctx context.Context, req *model.Request) (int32, error) { return 0, nil }

// checkTurns are the model turns before which a check was made (the
// turn's number within the prompt, from 1).
func (m *checked) checkTurns() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []int
	for i, n := range m.at {
		if i == 0 || n != m.at[i-1] { // a double check comes before the same turn
			out = append(out, n+1)
		}
	}
	return out
}

func newCheckedSession(m *checked, lc *LoopCheck, debug *[]string) *Session {
	cfg := Config{
		Model: m, ModelName: "gemini-2.5-pro", SessionID: "s1",
		Tools:     tool.NewRegistry(echoTool{name: "echo", kind: tool.KindRead}),
		Policy:    policy.New(policy.Options{Mode: policy.ModeYolo}),
		LoopCheck: lc,
	}
	if debug != nil {
		cfg.Debug = func(s string) { *debug = append(*debug, s) }
	}
	return New(cfg)
}

var flashOnly = &LoopCheck{Model: "check-flash"}

// TestLoopCheckSchedule: no check before turn 30 of a prompt, one at 30,
// then every 10 turns until an answer moves the interval between 5 and
// 15 (5 + 10 × (1 − confidence)); none without a LoopCheck, none with
// loop detection off, and a new prompt starts counting again.
func TestLoopCheckSchedule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lc       *LoopCheck
		disabled bool
		turns    int
		verdicts []checkAnswer
		want     []int
	}{
		{name: "short prompt", lc: flashOnly, turns: 29, verdicts: []checkAnswer{verdict(0, "")}},
		{name: "at 30", lc: flashOnly, turns: 30, verdicts: []checkAnswer{verdict(0.5, "")}, want: []int{30}},
		{name: "sure of progress: every 15", lc: flashOnly, turns: 70, verdicts: []checkAnswer{verdict(0, "")}, want: []int{30, 45, 60}},
		{name: "undecided: every 10", lc: flashOnly, turns: 70, verdicts: []checkAnswer{verdict(0.5, "")}, want: []int{30, 40, 50, 60, 70}},
		{name: "suspicious: every 7", lc: flashOnly, turns: 60, verdicts: []checkAnswer{verdict(0.8, "")}, want: []int{30, 37, 44, 51, 58}},
		{name: "interval follows each answer", lc: flashOnly, turns: 70, verdicts: []checkAnswer{verdict(0.85, ""), verdict(0.1, ""), verdict(0.5, "")}, want: []int{30, 37, 51, 61}},
		{name: "no LoopCheck", turns: 45, verdicts: []checkAnswer{verdict(0.99, "")}},
		{name: "disabled", lc: flashOnly, disabled: true, turns: 45, verdicts: []checkAnswer{verdict(0.99, "")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &checked{turns: tc.turns, verdicts: tc.verdicts}
			s := newCheckedSession(m, tc.lc, nil)
			s.cfg.DisableLoopDetection = tc.disabled
			s.loops.disabled = tc.disabled
			evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("count")))
			if err != nil || evs[len(evs)-1].Type != EventTurnEnd {
				t.Fatalf("err %v, last event %s", err, evs[len(evs)-1].Type)
			}
			if got := m.checkTurns(); !slices.Equal(got, tc.want) {
				t.Errorf("checks before turns %v, want %v", got, tc.want)
			}
			if len(m.streams) != tc.turns {
				t.Errorf("%d model turns, want %d", len(m.streams), tc.turns)
			}
		})
	}

	t.Run("counted per prompt", func(t *testing.T) {
		m := &checked{turns: 20, verdicts: []checkAnswer{verdict(0, "")}}
		s := newCheckedSession(m, flashOnly, nil)
		for range 2 {
			if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("count"))); err != nil {
				t.Fatal(err)
			}
			m.mu.Lock()
			m.turns += 20
			m.mu.Unlock()
		}
		if len(m.checks) != 0 {
			t.Errorf("%d checks over two prompts of 20 turns", len(m.checks))
		}
	})
}

// TestLoopCheckStops: a confident verdict, confirmed by the double-check
// model, first adds Gemini CLI's feedback to the next request; the second
// stops the prompt as the rule-based detector does (EventLoopDetected,
// ErrLoopDetected), with a history the next prompt can carry. Every check
// is counted in the stats under utility_loop_detector.
func TestLoopCheckStops(t *testing.T) {
	m := &checked{turns: 100, verdicts: []checkAnswer{verdict(0.95, "flash says loop"), verdict(0.97, "It keeps echoing numbers.")}}
	s := newCheckedSession(m, &LoopCheck{Model: "check-flash", DoubleCheckModel: "check-pro"}, nil)
	evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("count")))
	if !errors.Is(err, ErrLoopDetected) {
		t.Fatalf("err = %v", err)
	}
	last := evs[len(evs)-1]
	if last.Type != EventLoopDetected || !strings.Contains(last.Text, "It keeps echoing numbers.") {
		t.Errorf("last event %s %q", last.Type, last.Text)
	}
	// Gemini CLI 0.61 against the same script: 38 main requests and 4
	// loop checks (flash and double check before turns 30 and 40).
	if len(m.streams) != 38 {
		t.Fatalf("%d main requests, want 38", len(m.streams))
	}
	var models []string
	for _, c := range m.checks {
		models = append(models, c.Model)
	}
	if want := []string{"check-flash", "check-pro", "check-flash", "check-pro"}; !slices.Equal(models, want) {
		t.Errorf("checks asked %v, want %v", models, want)
	}
	// The turn that takes the feedback is the 31st of the prompt but the
	// 30th main request.
	if !slices.Equal(m.at, []int{29, 29, 38, 38}) {
		t.Errorf("checks after %v main requests", m.at)
	}

	// The feedback goes with the responses of the calls it follows.
	fb := m.streams[29].Contents
	req := fb[len(fb)-1]
	if len(req.Parts) != 2 || req.Parts[0].FunctionResponse == nil || req.Parts[1].Text != loopFeedback("It keeps echoing numbers.") {
		t.Errorf("request after the first loop: %s", mustJSON(req))
	}
	if !strings.HasPrefix(req.Parts[1].Text, "System: Potential loop detected. Details: It keeps echoing numbers.. Please take a step back") {
		t.Errorf("feedback %q", req.Parts[1].Text)
	}
	h := s.History()
	if end := h[len(h)-1]; end.Role != genai.RoleUser || end.Parts[0].FunctionResponse == nil {
		t.Errorf("history must end with responses: %s", mustJSON(end))
	}
	if u := s.Stats().Models["check-pro-001"]; u == nil || u.Roles[LoopCheckRole] == nil || u.Roles[LoopCheckRole].TotalRequests != 2 {
		t.Errorf("stats: %s", mustJSON(s.Stats().Models))
	}
}

// TestLoopCheckDoubleCheck: the double-check model's answer decides; when
// it disagrees the interval follows its confidence, and when it fails the
// flash verdict alone does not stop anything.
func TestLoopCheckDoubleCheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		verdicts []checkAnswer
		want     []int
	}{
		{name: "pro disagrees", verdicts: []checkAnswer{verdict(0.95, ""), verdict(0.2, ""), verdict(0.95, ""), verdict(0.2, ""), verdict(0.95, ""), verdict(0.2, "")}, want: []int{30, 43, 56}},
		{name: "pro fails", verdicts: []checkAnswer{verdict(0.95, ""), {err: &model.APIError{StatusCode: 400, Message: "bad"}}}, want: []int{30, 40, 50, 60}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &checked{turns: 60, verdicts: tc.verdicts}
			s := newCheckedSession(m, &LoopCheck{Model: "check-flash", DoubleCheckModel: "check-pro"}, nil)
			if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("count"))); err != nil {
				t.Fatal(err)
			}
			if got := m.checkTurns(); !slices.Equal(got, tc.want) {
				t.Errorf("checks before turns %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLoopCheckBadAnswers: an answer that is no verdict (the call failing,
// text that is not JSON, JSON without a number for the confidence) never
// stops the turn and leaves the interval as it was; it is logged. Text
// that is not JSON is asked for once more, as Gemini CLI does.
func TestLoopCheckBadAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer checkAnswer
		asks   int // calls per check
	}{
		{name: "call fails", answer: checkAnswer{err: &model.APIError{StatusCode: 400, Message: "bad request"}}, asks: 1},
		{name: "not JSON", answer: checkAnswer{text: "I think it loops."}, asks: 2},
		{name: "empty", answer: checkAnswer{text: ""}, asks: 2},
		{name: "no confidence", answer: checkAnswer{text: `{"unproductive_state_analysis":"loop"}`}, asks: 1},
		{name: "confidence as text", answer: checkAnswer{text: `{"unproductive_state_analysis":"loop","unproductive_state_confidence":"0.99"}`}, asks: 1},
		{name: "array", answer: checkAnswer{text: `[0.99]`}, asks: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var debug []string
			m := &checked{turns: 45, verdicts: []checkAnswer{tc.answer}}
			s := newCheckedSession(m, flashOnly, &debug)
			evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("count")))
			if err != nil || evs[len(evs)-1].Type != EventTurnEnd {
				t.Fatalf("err %v, last event %s", err, evs[len(evs)-1].Type)
			}
			if got := m.checkTurns(); !slices.Equal(got, []int{30, 40}) {
				t.Errorf("checks before turns %v, want [30 40]", got)
			}
			if len(m.checks) != 2*tc.asks {
				t.Errorf("%d calls for 2 checks, want %d", len(m.checks), 2*tc.asks)
			}
			if len(debug) != 2 || !strings.Contains(debug[0], "check-flash gave no verdict") {
				t.Errorf("debug lines %q", debug)
			}
			for _, e := range evs {
				if e.Type == EventLoopDetected || e.Type == EventWarning {
					t.Errorf("event %s %q", e.Type, e.Text)
				}
			}
		})
	}

	t.Run("fenced JSON is a verdict", func(t *testing.T) {
		m := &checked{turns: 45, verdicts: []checkAnswer{{text: "```json\n{\"unproductive_state_analysis\":\"\",\"unproductive_state_confidence\":0}\n```"}}}
		s := newCheckedSession(m, flashOnly, nil)
		if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("count"))); err != nil {
			t.Fatal(err)
		}
		if got := m.checkTurns(); !slices.Equal(got, []int{30, 45}) {
			t.Errorf("checks before turns %v, want [30 45]", got)
		}
	})
}

// TestLoopCheckRequest: the check's request as Gemini CLI 0.61 sends it:
// the check model, its system instruction, a JSON answer with the
// schema's two fields, utility settings, no tools; contents are the
// original request, the last 20 contents before the pending request with
// no call cut from its response, and the task.
func TestLoopCheckRequest(t *testing.T) {
	m := &checked{turns: 31, verdicts: []checkAnswer{verdict(0.1, "")}}
	s := newCheckedSession(m, flashOnly, nil)
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("count to 30"))); err != nil {
		t.Fatal(err)
	}
	if len(m.checks) != 1 {
		t.Fatalf("%d checks", len(m.checks))
	}
	req := m.checks[0]
	cfg := req.Config
	if req.Model != "check-flash" || req.PromptID == "" || req.SessionID != "s1" {
		t.Errorf("model %q prompt %q session %q", req.Model, req.PromptID, req.SessionID)
	}
	if cfg.SystemInstruction == nil || cfg.SystemInstruction.Parts[0].Text != loopCheckInstruction || len(cfg.Tools) != 0 {
		t.Errorf("config %s", mustJSON(cfg))
	}
	if cfg.ResponseMIMEType != "application/json" || !strings.Contains(mustJSON(cfg.ResponseJsonSchema), `"required":["unproductive_state_analysis","unproductive_state_confidence"]`) {
		t.Errorf("answer asked for: %s %s", cfg.ResponseMIMEType, mustJSON(cfg.ResponseJsonSchema))
	}
	if cfg.Temperature == nil || *cfg.Temperature != 0 || cfg.TopP == nil || *cfg.TopP != 1 {
		t.Errorf("temperature %v top-p %v", cfg.Temperature, cfg.TopP)
	}
	c := req.Contents
	if c[0].Parts[0].Text != "<original_user_request>\ncount to 30\n</original_user_request>" {
		t.Errorf("first content %s", mustJSON(c[0]))
	}
	if c[len(c)-1].Parts[0].Text != loopCheckTask {
		t.Errorf("last content %s", mustJSON(c[len(c)-1]))
	}
	// Before turn 30, without the pending responses of call 29, the last
	// 20 contents run from the response of call 19 to call 29: the call
	// is dropped, its response not being among them, and so is the
	// response, its call not being among them.
	window := c[1 : len(c)-1]
	if len(window) != 18 || window[0].Parts[0].FunctionCall == nil || window[0].Parts[0].FunctionCall.ID != "c20" ||
		window[17].Parts[0].FunctionResponse == nil || window[17].Parts[0].FunctionResponse.ID != "c28" {
		t.Errorf("window of %d: %s … %s", len(window), mustJSON(window[0]), mustJSON(window[len(window)-1]))
	}
}

// TestLoopCheckContents: the trimming of the window, and the heading
// Gemini CLI puts first when the contents would start with a call.
func TestLoopCheckContents(t *testing.T) {
	callC := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{call("echo", nil)}}
	resp := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "echo"}}}}
	text := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "thinking aloud"}}}
	for _, tc := range []struct {
		name   string
		prompt string
		hist   []*genai.Content
		want   []string // first part of each content: text, call or response
	}{
		{name: "prompt first", prompt: "go", hist: []*genai.Content{resp, callC, resp, callC, resp}, want: []string{"<original_user_request>\ngo\n</original_user_request>", "call", "response", loopCheckTask}},
		{name: "heading without a prompt", hist: []*genai.Content{callC, resp, callC, resp}, want: []string{loopCheckRecentHeading, "call", "response", loopCheckTask}},
		{name: "text first needs no heading", hist: []*genai.Content{text, callC, resp}, want: []string{"thinking aloud", loopCheckTask}},
		{name: "trailing text kept", hist: []*genai.Content{callC, resp, text, resp}, want: []string{loopCheckRecentHeading, "call", "response", "thinking aloud", loopCheckTask}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Config{Model: &scripted{}, ModelName: "m", History: tc.hist})
			s.hist = tc.hist // as the turn has it, unjoined
			r := s.newRun(context.Background(), nil)
			s.loops.check.prompt = tc.prompt
			var got []string
			for _, c := range r.loopCheckContents() {
				p := c.Parts[0]
				switch {
				case p.FunctionCall != nil:
					got = append(got, "call")
				case p.FunctionResponse != nil:
					got = append(got, "response")
				default:
					got = append(got, p.Text)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("contents %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLoopCheckAfterResume: a prompt whose turn paused for a confirmation
// and was resumed keeps counting its turns, and the check still sends the
// prompt as the original request.
func TestLoopCheckAfterResume(t *testing.T) {
	m := &checked{turns: 31, verdicts: []checkAnswer{verdict(0.1, "")}}
	s := New(Config{
		Model: m, ModelName: "gemini-2.5-pro", SessionID: "s1",
		Tools:     tool.NewRegistry(echoTool{name: "echo", kind: tool.KindEdit}),
		Policy:    policy.New(policy.Options{Mode: policy.ModeDefault, Interactive: true}),
		LoopCheck: flashOnly,
	})
	evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("count to 30")))
	if err != nil || evs[len(evs)-1].Type != EventInputRequired {
		t.Fatalf("err %v, last event %s", err, evs[len(evs)-1].Type)
	}
	if err := s.Answer(s.Pending()[0].ID, tool.Decision{Outcome: tool.ProceedAlways}); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, s.Resume(context.Background())); err != nil {
		t.Fatal(err)
	}
	if got := m.checkTurns(); !slices.Equal(got, []int{30}) {
		t.Fatalf("checks before turns %v", got)
	}
	if first := m.checks[0].Contents[0].Parts[0].Text; first != "<original_user_request>\ncount to 30\n</original_user_request>" {
		t.Errorf("first content %q", first)
	}
}

// TestLoopCheckThresholdInclusive: a confidence of exactly 0.9 is a loop,
// for the first model (the double check is asked) and for the second
// (0.61's >= LLM_CONFIDENCE_THRESHOLD).
func TestLoopCheckThresholdInclusive(t *testing.T) {
	m := &checked{turns: 100, verdicts: []checkAnswer{verdict(0.9, ""), verdict(0.9, "at the line"), verdict(0.9, ""), verdict(0.9, "at the line")}}
	s := newCheckedSession(m, &LoopCheck{Model: "check-flash", DoubleCheckModel: "check-pro"}, nil)
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("count"))); !errors.Is(err, ErrLoopDetected) {
		t.Fatalf("err = %v, want the prompt stopped by two loops at 0.9", err)
	}
	if len(m.checks) != 4 {
		t.Errorf("%d checks, want flash and pro twice", len(m.checks))
	}
}
