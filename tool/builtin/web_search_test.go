package builtin

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/tool"
)

// Test helpers shared by the tests of replace, smart_edit, read_many_files,
// write_todos, save_memory, web_fetch and google_web_search. They carry an
// "aux" prefix so they cannot collide with other tests in the package.

// auxFakeModel is a model.Model whose answers come from respond; it
// records every request.
type auxFakeModel struct {
	mu      sync.Mutex
	reqs    []*model.Request
	respond func(n int, req *model.Request) (*genai.GenerateContentResponse, error)
}

func (m *auxFakeModel) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	n := len(m.reqs)
	m.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return m.respond(n, req)
}

func (m *auxFakeModel) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		yield(m.GenerateContent(ctx, req))
	}
}

func (m *auxFakeModel) CountTokens(context.Context, *model.Request) (int32, error) { return 0, nil }

// requests returns the recorded requests.
func (m *auxFakeModel) requests() []*model.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*model.Request(nil), m.reqs...)
}

// auxAnswer returns a model that always answers text with gm.
func auxAnswer(text string, gm *genai.GroundingMetadata) *auxFakeModel {
	return &auxFakeModel{respond: func(int, *model.Request) (*genai.GenerateContentResponse, error) {
		return auxResponse(text, gm), nil
	}}
}

// auxFailing returns a model that always fails with err.
func auxFailing(err error) *auxFakeModel {
	return &auxFakeModel{respond: func(int, *model.Request) (*genai.GenerateContentResponse, error) {
		return nil, err
	}}
}

// auxResponse builds a one-candidate response.
func auxResponse(text string, gm *genai.GroundingMetadata) *genai.GenerateContentResponse {
	c := &genai.Candidate{Content: &genai.Content{Role: "model"}, GroundingMetadata: gm}
	if text != "" {
		c.Content.Parts = []*genai.Part{{Text: text}}
	}
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{c}}
}

// auxRequestText is the text of a request's first content.
func auxRequestText(req *model.Request) string {
	var b strings.Builder
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// auxTestEnv returns an Env over a fresh workspace directory (symlinks
// resolved, so paths in messages are predictable).
func auxTestEnv(t *testing.T) (*Env, string) {
	t.Helper()
	dir := fsTempDir(t)
	return &Env{Workspace: tool.NewWorkspace(dir), ModelName: "test-model"}, dir
}

// auxErrorIs checks a failed result's type and message.
func auxErrorIs(t *testing.T, r *tool.Result, typ tool.ErrorType, msg string) {
	t.Helper()
	if r.Error == nil {
		t.Fatalf("no error; result %q", r.LLMText)
	}
	if r.Error.Type != typ || r.Error.Message != msg {
		t.Errorf("error = %s %q\nwant    %s %q", r.Error.Type, r.Error.Message, typ, msg)
	}
}

func TestWebSearch(t *testing.T) {
	gm := &genai.GroundingMetadata{
		GroundingChunks: []*genai.GroundingChunk{
			{Web: &genai.GroundingChunkWeb{Title: "Go", URI: "https://go.dev"}},
			{Web: &genai.GroundingChunkWeb{URI: "https://example.com"}},
			{},
		},
		GroundingSupports: []*genai.GroundingSupport{
			{Segment: &genai.Segment{EndIndex: 17}, GroundingChunkIndices: []int32{0}},
			{Segment: &genai.Segment{EndIndex: 29}, GroundingChunkIndices: []int32{0, 1}},
		},
	}
	tests := []struct {
		name    string
		model   *auxFakeModel
		want    string
		wantErr *tool.Error
	}{
		{
			name:  "grounded answer",
			model: auxAnswer("Go is a language. It is fast.", gm),
			want:  "Web search results for \"golang\":\n\nGo is a language.[1] It is fast.[1][2]\n\nSources:\n[1] Go (https://go.dev)\n[2] Untitled (https://example.com)\n[3] Untitled (No URI)",
		},
		{
			name:  "answer without grounding",
			model: auxAnswer("Just text.", nil),
			want:  "Web search results for \"golang\":\n\nJust text.",
		},
		{
			name:  "empty answer",
			model: auxAnswer("  ", gm),
			want:  `No search results or information found for query: "golang"`,
		},
		{
			name:    "model error",
			model:   auxFailing(errors.New("quota exhausted")),
			want:    `Error: Error during web search for query "golang": quota exhausted`,
			wantErr: &tool.Error{Type: tool.ErrWebSearchFailed, Message: `Error during web search for query "golang": quota exhausted`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _ := auxTestEnv(t)
			env.Model = tc.model
			r := fsRun(t, NewWebSearch(env), map[string]any{"query": "golang"})
			if r.LLMText != tc.want {
				t.Errorf("LLMText = %q\nwant      %q", r.LLMText, tc.want)
			}
			switch {
			case tc.wantErr == nil && r.Error != nil:
				t.Errorf("unexpected error %v", r.Error)
			case tc.wantErr != nil:
				auxErrorIs(t, r, tc.wantErr.Type, tc.wantErr.Message)
			}
			reqs := tc.model.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			req := reqs[0]
			if req.Model != "test-model" || auxRequestText(req) != "golang" {
				t.Errorf("request model %q text %q", req.Model, auxRequestText(req))
			}
			if len(req.Config.Tools) != 1 || req.Config.Tools[0].GoogleSearch == nil {
				t.Errorf("tools = %+v, want googleSearch", req.Config.Tools)
			}
		})
	}
}

func TestWebSearchValidationAndCancel(t *testing.T) {
	env, _ := auxTestEnv(t)
	env.Model = auxAnswer("x", nil)
	if _, err := fsPrepare(NewWebSearch(env), "", map[string]any{"query": "  "}); err == nil || err.Message != "The 'query' parameter cannot be empty." {
		t.Errorf("blank query: %v", err)
	}
	if _, err := fsPrepare(NewWebSearch(env), "", map[string]any{}); err == nil || err.Message != "params must have required property 'query'" {
		t.Errorf("missing query: %v", err)
	}
	c, _ := fsPrepare(NewWebSearch(env), "", map[string]any{"query": "q"})
	if got := c.Describe(); got != `Searching the web for: "q"` {
		t.Errorf("Describe = %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := c.Execute(ctx, nil)
	if r.Error != nil || r.LLMText != "Web search was cancelled." {
		t.Errorf("cancelled: %+v", r)
	}
	env.Model = nil
	r = fsRun(t, NewWebSearch(env), map[string]any{"query": "q"})
	if r.Error == nil || r.Error.Type != tool.ErrWebSearchFailed {
		t.Errorf("no model: %+v", r)
	}
}

func TestAuxInsertCitations(t *testing.T) {
	sup := func(end int32, idx ...int32) *genai.GroundingSupport {
		return &genai.GroundingSupport{Segment: &genai.Segment{EndIndex: end}, GroundingChunkIndices: idx}
	}
	tests := []struct {
		name     string
		text     string
		supports []*genai.GroundingSupport
		want     string
	}{
		{"none", "abc", nil, "abc"},
		{"end", "abc", []*genai.GroundingSupport{sup(3, 0)}, "abc[1]"},
		{"start and middle", "abcd", []*genai.GroundingSupport{sup(0, 1), sup(2, 2, 3)}, "[2]ab[3][4]cd"},
		{"same offset keeps Gemini CLI order", "ab", []*genai.GroundingSupport{sup(1, 0), sup(1, 1)}, "a[2][1]b"},
		{"beyond the end is clamped", "ab", []*genai.GroundingSupport{sup(10, 0)}, "ab[1]"},
		{"byte offsets in multibyte text", "héllo wörld", []*genai.GroundingSupport{sup(6, 0), sup(13, 1)}, "héllo[1] wörld[2]"},
		{"offset inside a character moves to its start", "é!", []*genai.GroundingSupport{sup(1, 0)}, "[1]é!"},
		{"support without segment ignored", "ab", []*genai.GroundingSupport{{GroundingChunkIndices: []int32{0}}}, "ab"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := auxInsertCitations(tc.text, tc.supports); got != tc.want {
				t.Errorf("got %q want %q", got, tc.want)
			}
		})
	}
}
