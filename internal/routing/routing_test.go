package routing

import (
	"context"
	"iter"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name        string
		customTools bool
		want        string
	}{
		{"auto", true, ProModel},
		{"pro", true, ProCustomToolsModel},
		{"pro", false, ProModel},
		{"flash", true, FlashModel},
		{"flash-lite", false, FlashLiteModel},
		{"gemini-2.5-pro", true, "gemini-2.5-pro"},
	}
	for _, tt := range tests {
		if got := Resolve(tt.name, tt.customTools); got != tt.want {
			t.Errorf("Resolve(%q, %v) = %q, want %q", tt.name, tt.customTools, got, tt.want)
		}
	}
}

func TestThreshold(t *testing.T) {
	seen := map[int]bool{}
	for _, id := range []string{"", "a", "b", "c", "d", "e", "f", "3572685a-1c75-4830-b811-e46de55ac910"} {
		th := Threshold(id)
		if th != 50 && th != 80 {
			t.Fatalf("Threshold(%q) = %d", id, th)
		}
		if Threshold(id) != th {
			t.Fatalf("Threshold(%q) is not stable", id)
		}
		seen[th] = true
	}
	if !seen[50] || !seen[80] {
		t.Errorf("both groups expected among the samples, got %v", seen)
	}
}

func textResp(s string) *genai.GenerateContentResponse {
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText(s, genai.RoleModel)}}}
}

func TestParseDecision(t *testing.T) {
	tests := []struct {
		text  string
		score int
		ok    bool
	}{
		{`{"complexity_reasoning":"x","complexity_score":42}`, 42, true},
		{"```json\n{\"complexity_reasoning\":\"x\",\"complexity_score\":100}\n```", 100, true},
		{`{"complexity_reasoning":"x","complexity_score":0}`, 0, false},
		{`{"complexity_reasoning":"x","complexity_score":101}`, 0, false},
		{`{"complexity_score":50}`, 0, false},
		{`not json`, 0, false},
		{``, 0, false},
	}
	for _, tt := range tests {
		d, err := ParseDecision(textResp(tt.text))
		if (err == nil) != tt.ok || d.Score != tt.score {
			t.Errorf("ParseDecision(%q) = %+v, %v", tt.text, d, err)
		}
	}
	if _, err := ParseDecision(nil); err == nil {
		t.Error("nil response accepted")
	}
}

func FuzzParseDecision(f *testing.F) {
	f.Add(`{"complexity_reasoning":"x","complexity_score":42}`)
	f.Add("```json\n{}\n```")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDecision(textResp(s))
		if err == nil && (d.Score < 1 || d.Score > 100) {
			t.Errorf("score %d accepted", d.Score)
		}
	})
}

// scripted answers unary calls with resp and records the models asked.
type scripted struct {
	resp   *genai.GenerateContentResponse
	models []string
}

func (s *scripted) GenerateContent(_ context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	s.models = append(s.models, req.Model)
	return s.resp, nil
}

func (s *scripted) GenerateContentStream(_ context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	s.models = append(s.models, req.Model)
	return func(func(*genai.GenerateContentResponse, error) bool) {}
}

func (s *scripted) CountTokens(_ context.Context, req *model.Request) (int32, error) {
	s.models = append(s.models, req.Model)
	return 0, nil
}

func TestRouterStickyPerPrompt(t *testing.T) {
	cls := &scripted{resp: textResp(`{"complexity_reasoning":"easy","complexity_score":1}`)}
	main := &scripted{}
	r := New(main, cls, true)
	var notices []model.Notice
	req := func(prompt string) *model.Request {
		return &model.Request{Model: Auto, PromptID: prompt, SessionID: "s", Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)},
			Observe: func(n model.Notice) { notices = append(notices, n) }}
	}
	ctx := context.Background()
	for range r.GenerateContentStream(ctx, req("p1")) {
	}
	for range r.GenerateContentStream(ctx, req("p1")) {
	}
	r.GenerateContent(ctx, req("p1"))
	for range r.GenerateContentStream(ctx, req("p2")) {
	}
	// Back to the first prompt (a subagent's turn ended): still routed.
	for range r.GenerateContentStream(ctx, req("p1")) {
	}
	if len(cls.models) != 2 {
		t.Errorf("classifier asked %d times, want once per prompt", len(cls.models))
	}
	want := []string{FlashModel, FlashModel, FlashModel, FlashModel, FlashModel}
	for i, m := range main.models {
		if m != want[i] {
			t.Errorf("call %d went to %s, want %s", i, m, want[i])
		}
	}
	// Per prompt: the classifier's call, then the decision.
	if len(notices) != 4 || notices[0].Role != RouterRole || notices[0].Kind != model.NoticeUtility ||
		notices[1].Kind != model.NoticeRouted || notices[1].Model != FlashModel || notices[1].Source != "agent-router/Classifier" || notices[1].Reasoning != "easy" ||
		notices[3].Kind != model.NoticeRouted {
		t.Errorf("notices = %+v", notices)
	}
	// Non-alias models pass through untouched.
	r.GenerateContent(ctx, &model.Request{Model: "gemini-2.5-pro"})
	if got := main.models[len(main.models)-1]; got != "gemini-2.5-pro" {
		t.Errorf("passthrough went to %s", got)
	}
}

// chunks streams two chunks, the first naming no model, the second its
// own version.
type chunks struct{ scripted }

func (c *chunks) GenerateContentStream(_ context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	c.models = append(c.models, req.Model)
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		if yield(textResp("a"), nil) {
			last := textResp("b")
			last.ModelVersion = "gemini-2.5-flash-002"
			yield(last, nil)
		}
	}
}

// TestRoutedResponsesNameTheirModel: a response to an alias that names no
// model names the one it was routed to; one that names its version keeps
// it; a request for a concrete model is passed through untouched.
func TestRoutedResponsesNameTheirModel(t *testing.T) {
	for _, tt := range []struct {
		model string
		want  []string
	}{
		{"flash", []string{FlashModel, "gemini-2.5-flash-002"}},
		{"gemini-2.5-pro", []string{"", "gemini-2.5-flash-002"}},
	} {
		r := New(&chunks{}, nil, false)
		var got []string
		for resp, err := range r.GenerateContentStream(context.Background(), &model.Request{Model: tt.model}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, resp.ModelVersion)
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%s: versions %q, want %q", tt.model, got, tt.want)
		}
	}
}

// TestRoutedNotice: each decision is reported with the rule that made it,
// as Gemini CLI's model_routing event names it; an answer the router
// cannot read falls to the default (pro) and says why.
func TestRoutedNotice(t *testing.T) {
	for _, tt := range []struct {
		name, answer, model, source, reasoning string
		failed                                 bool
	}{
		{"hard", `{"complexity_reasoning":"big refactor","complexity_score":90}`, ProModel, "agent-router/Classifier", "big refactor", false},
		{"easy", `{"complexity_reasoning":"typo","complexity_score":3}`, FlashModel, "agent-router/Classifier", "typo", false},
		{"unreadable", `not json`, ProModel, "agent-router/default", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := New(&scripted{}, &scripted{resp: textResp(tt.answer)}, false)
			var got []model.Notice
			req := &model.Request{Model: Auto, PromptID: "p", SessionID: "s", Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)},
				Observe: func(n model.Notice) {
					if n.Kind == model.NoticeRouted {
						got = append(got, n)
					}
				}}
			for range r.GenerateContentStream(context.Background(), req) {
			}
			if len(got) != 1 || got[0].Model != tt.model || got[0].Source != tt.source || got[0].Reasoning != tt.reasoning || (got[0].Err != nil) != tt.failed {
				t.Errorf("routed notices = %+v", got)
			}
		})
	}
}
