package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/fakeanthropic"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/anthropic"
)

func client(t *testing.T, srv *fakeanthropic.Server, models map[string]anthropic.ModelConfig) *anthropic.Client {
	t.Helper()
	c, err := anthropic.New(anthropic.Config{Provider: "anth", BaseURL: srv.URL + "/v1/", APIKey: "k", Models: models,
		Headers: map[string]string{"anthropic-beta": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func request(contents []*genai.Content, tools ...*genai.FunctionDeclaration) *model.Request {
	if contents == nil {
		contents = []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}
	}
	return &model.Request{Model: "anth/claude-sonnet-4-5", Contents: contents,
		Config: &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText("be brief", genai.RoleUser),
			Temperature: genai.Ptr[float32](1), TopP: genai.Ptr[float32](0.95), TopK: genai.Ptr[float32](64),
			Tools: []*genai.Tool{{FunctionDeclarations: tools}}}}
}

var readDecl = &genai.FunctionDeclaration{Name: "read_file", Parameters: &genai.Schema{Type: genai.TypeObject,
	Properties: map[string]*genai.Schema{"file_path": {Type: genai.TypeString}}, Required: []string{"file_path"}}}

// TestStream: thinking and text come as they stream, parallel calls once
// whole, the finish with the usage; the request says what the API needs.
func TestStream(t *testing.T) {
	srv := fakeanthropic.Start(t,
		fakeanthropic.Text("hello there").Thinking("let me think"),
		fakeanthropic.Calls(fakeanthropic.Call{Name: "read_file", Args: map[string]any{"file_path": "a"}},
			fakeanthropic.Call{Name: "read_file", Args: map[string]any{"file_path": "b"}}))
	c := client(t, srv, nil)
	resp, err := c.GenerateContent(context.Background(), request(nil, readDecl))
	if err != nil {
		t.Fatal(err)
	}
	parts := resp.Candidates[0].Content.Parts
	if len(parts) != 4 || !parts[0].Thought || parts[0].Text+parts[1].Text != "let me think" || parts[2].Text+parts[3].Text != "hello there" ||
		resp.Candidates[0].FinishReason != genai.FinishReasonStop {
		t.Fatalf("parts = %+v", parts)
	}
	if len(parts[2].ThoughtSignature) == 0 || len(parts[3].ThoughtSignature) != 0 {
		t.Errorf("the thinking travels on the first text part only: %q %q", parts[2].ThoughtSignature, parts[3].ThoughtSignature)
	}
	u := srv.Requests()[0].Usage
	if got := resp.UsageMetadata; got == nil || got.PromptTokenCount != u.InputTokens+u.CacheCreationInputTokens+u.CacheReadInputTokens ||
		got.CachedContentTokenCount != u.CacheReadInputTokens || got.CandidatesTokenCount+got.ThoughtsTokenCount != u.OutputTokens || got.ThoughtsTokenCount == 0 {
		t.Errorf("usage = %+v, server said %+v", got, u)
	}
	if resp.ModelVersion != "anth/claude-sonnet-4-5" {
		t.Errorf("model version %q, want the name asked for", resp.ModelVersion)
	}
	resp, err = c.GenerateContent(context.Background(), request(nil, readDecl))
	if err != nil {
		t.Fatal(err)
	}
	parts = resp.Candidates[0].Content.Parts
	if len(parts) != 2 || parts[0].FunctionCall.Args["file_path"] != "a" || parts[1].FunctionCall.Args["file_path"] != "b" || parts[1].FunctionCall.ID == "" {
		t.Errorf("calls = %+v", parts)
	}
	rq := srv.Requests()[0]
	m := rq.Message
	if m.Model != "claude-sonnet-4-5" || rq.Header.Get("x-api-key") != "k" || rq.Header.Get("anthropic-version") != "2023-06-01" || rq.Header.Get("anthropic-beta") != "x" {
		t.Errorf("request: model %q, headers %v", m.Model, rq.Header)
	}
	if m.MaxTokens != 32000 || m.Temperature != nil || m.Thinking != nil || m.System[0].Text != "be brief" || m.System[0].CacheControl == nil ||
		m.Messages[0].Content[0].CacheControl == nil || !strings.Contains(string(rq.Body), `"input_schema":{"properties":{"file_path":{"type":"string"}},"required":["file_path"],"type":"object"}`) {
		t.Errorf("body %s", rq.Body)
	}
	if strings.Contains(string(rq.Body), "top_p") || strings.Contains(string(rq.Body), "top_k") {
		t.Errorf("top_p or top_k sent: %s", rq.Body)
	}
}

// history is the engine's history after resp: thought parts dropped, the
// rest kept with their signatures, each call answered.
func history(resp *genai.GenerateContentResponse, prompt string) []*genai.Content {
	var kept, answers []*genai.Part
	for _, p := range resp.Candidates[0].Content.Parts {
		if p.Thought {
			continue
		}
		kept = append(kept, p)
		if fc := p.FunctionCall; fc != nil {
			answers = append(answers, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: fc.ID, Name: fc.Name, Response: map[string]any{"output": "text of " + fc.Args["file_path"].(string)}}})
		}
	}
	return []*genai.Content{genai.NewContentFromText(prompt, genai.RoleUser), {Role: genai.RoleModel, Parts: kept}, {Role: genai.RoleUser, Parts: answers}}
}

// TestThinkingRoundTrip: with thinking on, the thinking and redacted
// blocks before parallel calls go back unchanged, first in the assistant
// turn, with the results after; the fake refuses a changed signature.
func TestThinkingRoundTrip(t *testing.T) {
	srv := fakeanthropic.Start(t,
		fakeanthropic.Calls(fakeanthropic.Call{Name: "read_file", Args: map[string]any{"file_path": "a"}},
			fakeanthropic.Call{Name: "read_file", Args: map[string]any{"file_path": "b"}}).Thinking("I should read both. ünïcode").Redacted(),
		fakeanthropic.Text("done"))
	c := client(t, srv, map[string]anthropic.ModelConfig{"claude-sonnet-4-5": {ThinkingBudget: 2048}})
	resp, err := c.GenerateContent(context.Background(), request(nil, readDecl))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GenerateContent(context.Background(), request(history(resp, "hi"), readDecl)); err != nil {
		t.Fatalf("second call: %v", err)
	}
	m := srv.Requests()[1].Message
	if m.Thinking == nil || m.Thinking.Type != "enabled" || m.Thinking.BudgetTokens != 2048 || m.Temperature != nil {
		t.Errorf("thinking %+v, temperature %v", m.Thinking, m.Temperature)
	}
	var types []string
	for _, b := range m.Messages[1].Content {
		types = append(types, b.Type)
	}
	if got := strings.Join(types, ","); got != "redacted_thinking,thinking,tool_use,tool_use" {
		t.Errorf("assistant turn %s", got)
	}
	if r := m.Messages[2].Content; len(r) != 2 || r[0].Type != "tool_result" || len(r[0].Content) != 1 || r[0].Content[0].Text != "text of a" || r[0].ToolUseID != m.Messages[1].Content[2].ID {
		t.Errorf("results %+v", r)
	}

	// A signature changed on the way is refused, as the API would.
	h := history(resp, "hi")
	for _, p := range h[1].Parts {
		if len(p.ThoughtSignature) > 0 {
			p.ThoughtSignature = []byte(strings.Replace(string(p.ThoughtSignature), "both", "all", 1))
		}
	}
	srv.Enqueue(fakeanthropic.Text("x"))
	_, err = c.GenerateContent(context.Background(), request(h, readDecl))
	var ae *model.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 400 || !strings.Contains(ae.Message, "Invalid `signature`") {
		t.Errorf("changed thinking: err %v", err)
	}
}

// TestThinkingSettings: a budget is clamped to the API's bounds, -1 is
// adaptive, and a tool loop begun without thinking goes on without it.
func TestThinkingSettings(t *testing.T) {
	tests := []struct {
		name     string
		mc       anthropic.ModelConfig
		loop     bool
		want     string
		wantMaxT int32
	}{
		{"small budget raised", anthropic.ModelConfig{ThinkingBudget: 10}, false, `{"type":"enabled","budget_tokens":1024}`, 32000},
		{"budget under max_tokens", anthropic.ModelConfig{ThinkingBudget: 9000, MaxTokens: 4096}, false, `{"type":"enabled","budget_tokens":4095}`, 4096},
		{"adaptive", anthropic.ModelConfig{ThinkingBudget: -1}, false, `{"type":"adaptive"}`, 32000},
		{"off", anthropic.ModelConfig{}, false, `null`, 32000},
		{"loop without thinking", anthropic.ModelConfig{ThinkingBudget: 2048}, true, `null`, 32000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeanthropic.Start(t, fakeanthropic.Text("ok"))
			var contents []*genai.Content
			if tt.loop {
				contents = []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser),
					{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "read_file", Args: map[string]any{"file_path": "a"}}}}},
					{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "c1", Name: "read_file", Response: map[string]any{"error": "no such file"}}}}}}
			}
			c := client(t, srv, map[string]anthropic.ModelConfig{"claude-sonnet-4-5": tt.mc})
			if _, err := c.GenerateContent(context.Background(), request(contents, readDecl)); err != nil {
				t.Fatal(err)
			}
			m := srv.Requests()[0].Message
			got, _ := json.Marshal(m.Thinking)
			if string(got) != tt.want || m.MaxTokens != tt.wantMaxT {
				t.Errorf("thinking %s max_tokens %d, want %s %d", got, m.MaxTokens, tt.want, tt.wantMaxT)
			}
			if tt.loop && !m.Messages[2].Content[0].IsError {
				t.Errorf("an error result is not marked is_error: %+v", m.Messages[2].Content[0])
			}
		})
	}
}

// TestSchemas: Gemini schemas become JSON Schema; a top-level anyOf (as
// MCP servers send) is merged into one object; a function without
// parameters gets an empty object; a name the API's pattern refuses is
// changed on the wire and its call comes back under the real name.
func TestSchemas(t *testing.T) {
	srv := fakeanthropic.Start(t, fakeanthropic.Calls(fakeanthropic.Call{Name: "mcp_srv_do_it", Args: map[string]any{}}))
	raw := &genai.FunctionDeclaration{Name: "g", ParametersJsonSchema: map[string]any{"anyOf": []any{
		map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []any{"a"}},
		map[string]any{"type": "object", "properties": map[string]any{"b": map[string]any{"type": "number"}}}}}}
	resp, err := client(t, srv, nil).GenerateContent(context.Background(), request(nil, readDecl, raw, &genai.FunctionDeclaration{Name: "mcp_srv.do:it"}))
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Tools []json.RawMessage }
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"name":"read_file","input_schema":{"properties":{"file_path":{"type":"string"}},"required":["file_path"],"type":"object"}}`,
		`{"name":"g","input_schema":{"properties":{"a":{"type":"string"},"b":{"type":"number"}},"type":"object"}}`,
		`{"name":"mcp_srv_do_it","input_schema":{"properties":{},"type":"object"}}`,
	}
	for i, w := range want {
		if got := string(body.Tools[i]); got != w {
			t.Errorf("tool %d = %s\nwant %s", i, got, w)
		}
	}
	if fc := resp.Candidates[0].Content.Parts[0].FunctionCall; fc.Name != "mcp_srv.do:it" {
		t.Errorf("call named %q", fc.Name)
	}
}

// TestErrors: errors become the retrier's: 429 with its retry-after, 529
// overloaded (also as a stream event) retryable and worded, 401 an
// AuthError.
func TestErrors(t *testing.T) {
	srv := fakeanthropic.Start(t,
		fakeanthropic.Error(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit").RetryAfter("7"),
		fakeanthropic.Error(529, "overloaded_error", "Overloaded"),
		fakeanthropic.ErrorEvent("overloaded_error", "Overloaded"),
		fakeanthropic.Error(401, "authentication_error", "invalid x-api-key"))
	c := client(t, srv, nil)
	_, err := c.GenerateContent(context.Background(), request(nil))
	var ae *model.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 429 || ae.RetryAfter != 7*time.Second || !ae.Retryable() || !strings.Contains(err.Error(), "rate limit was reached") {
		t.Errorf("429: %v", err)
	}
	for _, what := range []string{"529", "error event"} {
		_, err = c.GenerateContent(context.Background(), request(nil))
		if !errors.As(err, &ae) || ae.StatusCode != 529 || ae.Status != "overloaded_error" || !ae.Retryable() || !strings.Contains(err.Error(), "overloaded, try again later") {
			t.Errorf("%s: %v", what, err)
		}
	}
	_, err = c.GenerateContent(context.Background(), request(nil))
	var auth *model.AuthError
	if !errors.As(err, &auth) || !strings.Contains(err.Error(), "invalid x-api-key") {
		t.Errorf("401: %v", err)
	}
}

// TestStopReasons: max_tokens and refusal are told apart from a normal end.
func TestStopReasons(t *testing.T) {
	srv := fakeanthropic.Start(t, fakeanthropic.Text("cut").Stop("max_tokens"), fakeanthropic.Text("no").Stop("refusal"), fakeanthropic.Text("ok").Stop("stop_sequence"))
	c := client(t, srv, nil)
	for _, want := range []genai.FinishReason{genai.FinishReasonMaxTokens, genai.FinishReasonSafety, genai.FinishReasonStop} {
		resp, err := c.GenerateContent(context.Background(), request(nil))
		if err != nil || resp.Candidates[0].FinishReason != want {
			t.Errorf("finish %v (%v), want %v", resp.Candidates[0].FinishReason, err, want)
		}
	}
}

// TestMedia: an image of the prompt is an image block; an image a tool
// returned goes inside its tool_result; a PDF is a document.
func TestMedia(t *testing.T) {
	srv := fakeanthropic.Start(t, fakeanthropic.Text("a cat"))
	png := &genai.Part{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}
	pdf := &genai.Part{InlineData: &genai.Blob{MIMEType: "application/pdf", Data: []byte("%PDF")}}
	contents := []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "what is this"}, png, pdf}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "read_file", Args: map[string]any{"file_path": "cat.png"}}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "c1", Name: "read_file", Response: map[string]any{"output": "Binary content of type image/png was processed."}}}, png}}}
	if _, err := client(t, srv, nil).GenerateContent(context.Background(), request(contents, readDecl)); err != nil {
		t.Fatal(err)
	}
	var body struct{ Messages []json.RawMessage }
	_ = json.Unmarshal(srv.Requests()[0].Body, &body)
	want := []string{
		`{"role":"user","content":[{"type":"text","text":"what is this"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERg=="}}]}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"read_file","input":{"file_path":"cat.png"}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"Binary content of type image/png was processed."},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}}],"cache_control":{"type":"ephemeral"}}]}`,
	}
	for i, w := range want {
		if got := string(body.Messages[i]); got != w {
			t.Errorf("message %d = %s\nwant %s", i, got, w)
		}
	}
}

// TestWithoutTools: a service refusing tools gets the call again without
// them, the model told it has none; later calls do not ask again.
func TestWithoutTools(t *testing.T) {
	srv := fakeanthropic.Start(t, fakeanthropic.Text("I can only talk."), fakeanthropic.Text("still"))
	srv.RejectTools()
	c := client(t, srv, nil)
	for range 2 {
		if _, err := c.GenerateContent(context.Background(), request(nil, readDecl)); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || len(reqs[0].Message.Tools) == 0 || len(reqs[1].Message.Tools) != 0 || !strings.Contains(reqs[1].Message.System[0].Text, "cannot call tools") {
		t.Errorf("%d requests; want one refused, then two without tools", len(reqs))
	}
}

// TestListModels: the API's models are listed for castor models; a
// refused key is an AuthError.
func TestListModels(t *testing.T) {
	srv := fakeanthropic.Start(t)
	srv.ServeModels("claude-sonnet-4-5", "claude-haiku-4-5")
	ids, err := client(t, srv, nil).ListModels(context.Background())
	if err != nil || strings.Join(ids, ",") != "claude-sonnet-4-5,claude-haiku-4-5" {
		t.Errorf("models %v (%v)", ids, err)
	}
	c, _ := anthropic.New(anthropic.Config{BaseURL: srv.URL})
	_, err = c.ListModels(context.Background())
	var auth *model.AuthError
	if !errors.As(err, &auth) || c.BaseURL() != srv.URL {
		t.Errorf("without a key: %v", err)
	}
}
