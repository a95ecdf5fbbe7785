package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/fakeopenai"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/openai"
)

func client(t *testing.T, srv *fakeopenai.Server) *openai.Client {
	t.Helper()
	c, err := openai.New(openai.Config{Provider: "local", BaseURL: srv.URL + "/v1/", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func request(tools ...*genai.FunctionDeclaration) *model.Request {
	return &model.Request{Model: "local/m", Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)},
		Config: &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText("be brief", genai.RoleUser),
			Tools: []*genai.Tool{{FunctionDeclarations: tools}}}}
}

// TestStream: reasoning and text come as they stream; parallel calls,
// assembled from fragments, come with the finish and the usage.
func TestStream(t *testing.T) {
	srv := fakeopenai.Start(t,
		fakeopenai.Thought("hmm", "hello"),
		fakeopenai.Calls(fakeopenai.Call{Name: "a", Args: map[string]any{"x": "1"}}, fakeopenai.Call{Name: "b", Args: map[string]any{"y": 2.0}}))
	c := client(t, srv)
	resp, err := c.GenerateContent(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	parts := resp.Candidates[0].Content.Parts
	if len(parts) != 2 || !parts[0].Thought || parts[0].Text != "hmm" || parts[1].Text != "hello" || resp.Candidates[0].FinishReason != genai.FinishReasonStop {
		t.Errorf("parts = %+v", parts)
	}
	if u := resp.UsageMetadata; u == nil || u.PromptTokenCount == 0 || u.TotalTokenCount != u.PromptTokenCount+u.CandidatesTokenCount {
		t.Errorf("usage = %+v", u)
	}
	resp, err = c.GenerateContent(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	parts = resp.Candidates[0].Content.Parts
	if len(parts) != 2 || parts[0].FunctionCall.Name != "a" || parts[0].FunctionCall.Args["x"] != "1" || parts[1].FunctionCall.Args["y"] != 2.0 || parts[1].FunctionCall.ID == "" {
		t.Errorf("calls = %+v %+v", parts[0].FunctionCall, parts[1].FunctionCall)
	}
	if got := srv.Requests()[0]; got.Chat.Model != "m" || got.Header.Get("Authorization") != "Bearer k" || got.Chat.Messages[0].Role != "system" {
		t.Errorf("request: model %q, auth %q, first %+v", got.Chat.Model, got.Header.Get("Authorization"), got.Chat.Messages[0])
	}
}

// TestSchemas: Gemini's upper-case schema types become JSON Schema's, a
// nullable type a type list, and a function without parameters an
// empty object.
func TestSchemas(t *testing.T) {
	srv := fakeopenai.Start(t, fakeopenai.Text("ok"))
	yes := true
	fd := &genai.FunctionDeclaration{Name: "f", Parameters: &genai.Schema{Type: genai.TypeObject, Required: []string{"p"},
		Properties: map[string]*genai.Schema{"p": {Type: genai.TypeArray, Items: &genai.Schema{Type: genai.TypeString, Enum: []string{"a"}}},
			"n": {Type: genai.TypeInteger, Nullable: &yes}}}}
	raw := &genai.FunctionDeclaration{Name: "g", ParametersJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}}
	if _, err := client(t, srv).GenerateContent(context.Background(), request(fd, raw, &genai.FunctionDeclaration{Name: "h"})); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Tools []struct {
			Function struct{ Parameters json.RawMessage }
		}
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"properties":{"n":{"type":["integer","null"]},"p":{"items":{"enum":["a"],"type":"string"},"type":"array"}},"required":["p"],"type":"object"}`,
		`{"properties":{"q":{"type":"string"}},"type":"object"}`,
		`{"properties":{},"type":"object"}`,
	}
	for i, w := range want {
		if got := string(body.Tools[i].Function.Parameters); got != w {
			t.Errorf("tool %d parameters = %s\nwant %s", i, got, w)
		}
	}
}

// TestErrors: an error envelope becomes an APIError the retrier knows,
// 401 an AuthError.
func TestErrors(t *testing.T) {
	srv := fakeopenai.Start(t, fakeopenai.Error(429, "slow down"), fakeopenai.Error(401, "bad key"))
	c := client(t, srv)
	_, err := c.GenerateContent(context.Background(), request())
	var ae *model.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 429 || ae.Message != "slow down" || !ae.Retryable() {
		t.Errorf("err = %v", err)
	}
	_, err = c.GenerateContent(context.Background(), request())
	var auth *model.AuthError
	if !errors.As(err, &auth) || !strings.Contains(err.Error(), "bad key") {
		t.Errorf("err = %v", err)
	}
}
