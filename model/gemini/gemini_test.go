package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/gemini"
	"google.golang.org/genai"
)

func newModel(t *testing.T, srv *fakegemini.Server, mut ...func(*gemini.Config)) *gemini.Model {
	t.Helper()
	cfg := gemini.Config{APIKey: "test-key", BaseURL: srv.URL, Version: "1.2.3"}
	for _, f := range mut {
		f(&cfg)
	}
	m, err := gemini.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func collect(t *testing.T, seq func(func(*genai.GenerateContentResponse, error) bool)) ([]*genai.GenerateContentResponse, error) {
	t.Helper()
	var out []*genai.GenerateContentResponse
	for c, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

func text(chunks []*genai.GenerateContentResponse) string {
	var b strings.Builder
	for _, c := range chunks {
		for _, cand := range c.Candidates {
			if cand.Content == nil {
				continue
			}
			for _, p := range cand.Content.Parts {
				if !p.Thought {
					b.WriteString(p.Text)
				}
			}
		}
	}
	return b.String()
}

func userText(s string) []*genai.Content {
	return []*genai.Content{genai.NewContentFromText(s, genai.RoleUser)}
}

func TestStreamText(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("Hel", "lo ", "world"))
	m := newModel(t, srv)
	chunks, err := collect(t, m.GenerateContentStream(context.Background(), &model.Request{
		Model:    "gemini-2.5-pro",
		Contents: userText("hi"),
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got := text(chunks); got != "Hello world" {
		t.Errorf("text = %q", got)
	}
	if len(chunks) != 3 {
		t.Fatalf("got %d chunks, want 3", len(chunks))
	}
	last := chunks[len(chunks)-1]
	if last.Candidates[0].FinishReason != genai.FinishReasonStop {
		t.Errorf("finish = %q", last.Candidates[0].FinishReason)
	}
	if last.UsageMetadata == nil || last.UsageMetadata.TotalTokenCount == 0 || last.UsageMetadata.PromptTokenCount == 0 {
		t.Errorf("usage = %+v", last.UsageMetadata)
	}
	if last.ModelVersion != fakegemini.DefaultModelVersion || last.ResponseID == "" {
		t.Errorf("modelVersion %q responseId %q", last.ModelVersion, last.ResponseID)
	}
	req := srv.LastRequest()
	if req.RPC != fakegemini.RPCStreamGenerateContent || req.Model != "gemini-2.5-pro" || req.Query.Get("alt") != "sse" {
		t.Errorf("request %s %s model %q query %v", req.HTTPMethod, req.Path, req.Model, req.Query)
	}
	if got := req.Header.Get("X-Goog-Api-Key"); got != "test-key" {
		t.Errorf("api key header = %q", got)
	}
}

func TestHeaders(t *testing.T) {
	tests := []struct {
		name       string
		mut        func(*gemini.Config)
		wantAuth   string
		wantAPIKey string
		wantCustom string
	}{
		{name: "api key", wantAPIKey: "test-key"},
		{
			name:     "bearer",
			mut:      func(c *gemini.Config) { c.BearerAuth = true },
			wantAuth: "Bearer test-key",
		},
		{
			name: "custom headers",
			mut: func(c *gemini.Config) {
				c.Headers = gemini.ParseCustomHeaders("X-Team: castor, User-Agent: spoof")
			},
			wantAPIKey: "test-key",
			wantCustom: "castor",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, fakegemini.Text("ok"))
			var muts []func(*gemini.Config)
			if tt.mut != nil {
				muts = append(muts, tt.mut)
			}
			m := newModel(t, srv, muts...)
			if _, err := m.GenerateContent(context.Background(), &model.Request{Model: "gemini-3-pro-preview", Contents: userText("x")}); err != nil {
				t.Fatal(err)
			}
			h := srv.LastRequest().Header
			wantUA := "Castor/1.2.3/gemini-3-pro-preview (" + runtime.GOOS + "; " + runtime.GOARCH + ")"
			if got := h.Values("User-Agent"); len(got) != 1 || got[0] != wantUA {
				t.Errorf("User-Agent = %q, want %q", got, wantUA)
			}
			if got := h.Get("Authorization"); got != tt.wantAuth {
				t.Errorf("Authorization = %q, want %q", got, tt.wantAuth)
			}
			if got := h.Get("X-Goog-Api-Key"); got != tt.wantAPIKey {
				t.Errorf("x-goog-api-key = %q, want %q", got, tt.wantAPIKey)
			}
			if got := h.Get("X-Team"); got != tt.wantCustom {
				t.Errorf("X-Team = %q, want %q", got, tt.wantCustom)
			}
		})
	}
}

func TestRequestBody(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("ok"))
	m := newModel(t, srv)
	schema := map[string]any{
		"type":       "object",
		"properties": map[string]any{"absolute_path": map[string]any{"type": "string"}},
		"required":   []any{"absolute_path"},
	}
	cfg := gemini.DefaultGenerationConfig("gemini-2.5-pro")
	cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: "You are Castor."}}}
	cfg.Tools = []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name: "read_file", Description: "Reads a file", ParametersJsonSchema: schema,
	}}}}
	req := &model.Request{Model: "gemini-2.5-pro", Contents: userText("read it"), Config: cfg}
	if _, err := collect(t, m.GenerateContentStream(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	if cfg.SystemInstruction.Role != "" {
		t.Errorf("caller's config was modified: role %q", cfg.SystemInstruction.Role)
	}
	got := srv.LastRequest()
	if got.DecodeErr != nil {
		t.Fatal(got.DecodeErr)
	}
	if got.SystemInstruction == nil || len(got.SystemInstruction.Parts) != 1 || got.SystemInstruction.Parts[0].Text != "You are Castor." {
		t.Errorf("systemInstruction = %+v", got.SystemInstruction)
	}
	decls := got.FunctionDeclarations()
	if len(decls) != 1 || decls[0].Name != "read_file" {
		t.Fatalf("declarations = %+v", decls)
	}
	var raw map[string]any
	if err := json.Unmarshal(got.Body, &raw); err != nil {
		t.Fatal(err)
	}
	fd := raw["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)[0].(map[string]any)
	if _, ok := fd["parametersJsonSchema"]; !ok {
		t.Errorf("function declaration lacks parametersJsonSchema: %v", fd)
	}
	if _, ok := fd["parameters"]; ok {
		t.Errorf("function declaration has OpenAPI parameters: %v", fd)
	}
	gc := got.GenerationConfig
	if gc == nil || gc.Temperature == nil || *gc.Temperature != 1 || gc.TopK == nil || *gc.TopK != 64 ||
		gc.ThinkingConfig == nil || !gc.ThinkingConfig.IncludeThoughts || gc.ThinkingConfig.ThinkingBudget == nil || *gc.ThinkingConfig.ThinkingBudget != 8192 {
		t.Errorf("generationConfig = %+v", gc)
	}
	if strings.Contains(string(got.Body), "ontinuation") {
		t.Errorf("body mentions continuation: %s", got.Body)
	}
}

func TestFunctionCallThoughtSignatureRoundTrip(t *testing.T) {
	sig := []byte("\x01opaque-signature\xff")
	srv := fakegemini.Start(t,
		fakegemini.Thought("I should list files.").Then(fakegemini.Call("list_directory", map[string]any{"path": "."}).Signed(sig)),
		fakegemini.Text("done"),
	)
	m := newModel(t, srv)
	ctx := context.Background()
	history := userText("list files")
	chunks, err := collect(t, m.GenerateContentStream(ctx, &model.Request{Model: "gemini-3-pro-preview", Contents: history}))
	if err != nil {
		t.Fatal(err)
	}
	var modelParts []*genai.Part
	for _, c := range chunks {
		modelParts = append(modelParts, c.Candidates[0].Content.Parts...)
	}
	if len(modelParts) != 2 || !modelParts[0].Thought || modelParts[1].FunctionCall == nil {
		t.Fatalf("parts = %+v", modelParts)
	}
	call := modelParts[1]
	if call.FunctionCall.Name != "list_directory" || call.FunctionCall.Args["path"] != "." {
		t.Errorf("call = %+v", call.FunctionCall)
	}
	if string(call.ThoughtSignature) != string(sig) {
		t.Fatalf("signature = %q", call.ThoughtSignature)
	}
	history = append(history,
		&genai.Content{Role: genai.RoleModel, Parts: modelParts},
		&genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{genai.NewPartFromFunctionResponse("list_directory", map[string]any{"output": "a.txt"})}},
	)
	if _, err := collect(t, m.GenerateContentStream(ctx, &model.Request{Model: "gemini-3-pro-preview", Contents: history})); err != nil {
		t.Fatal(err)
	}
	sent := srv.LastRequest().Contents
	if len(sent) != 3 {
		t.Fatalf("sent %d contents", len(sent))
	}
	var echoed []byte
	for _, p := range sent[1].Parts {
		if p.FunctionCall != nil {
			echoed = p.ThoughtSignature
		}
	}
	if string(echoed) != string(sig) {
		t.Errorf("signature sent back = %q, want %q", echoed, sig)
	}
	if fr := sent[2].Parts[0].FunctionResponse; fr == nil || fr.Name != "list_directory" {
		t.Errorf("function response = %+v", sent[2].Parts[0])
	}
}

func TestUnaryAndCountTokens(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("a", "b"), fakegemini.Tokens(42))
	m := newModel(t, srv)
	ctx := context.Background()
	resp, err := m.GenerateContent(ctx, &model.Request{Model: "gemini-2.5-flash", Contents: userText("x")})
	if err != nil {
		t.Fatal(err)
	}
	if got := text([]*genai.GenerateContentResponse{resp}); got != "ab" {
		t.Errorf("text = %q", got)
	}
	n, err := m.CountTokens(ctx, &model.Request{Model: "gemini-2.5-flash", Contents: userText("x")})
	if err != nil || n != 42 {
		t.Errorf("CountTokens = %d, %v", n, err)
	}
	// Unscripted countTokens calls are estimated rather than failing.
	n, err = m.CountTokens(ctx, &model.Request{Model: "gemini-2.5-flash", Contents: userText(strings.Repeat("x", 400))})
	if err != nil || n < 100 {
		t.Errorf("estimated CountTokens = %d, %v", n, err)
	}
}

func TestStreamEndings(t *testing.T) {
	tests := []struct {
		name       string
		reply      fakegemini.Reply
		wantChunks int
		wantCut    bool
		wantAPI    int
	}{
		{name: "complete", reply: fakegemini.Text("a", "b"), wantChunks: 2},
		{name: "no finish reason", reply: fakegemini.Text("a", "b").NoFinish(), wantChunks: 2, wantCut: true},
		{name: "connection dropped", reply: fakegemini.Text("a", "b", "c").CutAfter(2), wantChunks: 2, wantCut: true},
		{name: "empty stream", reply: fakegemini.Chunks(), wantCut: true},
		{name: "http error", reply: fakegemini.Error(503, "overloaded"), wantAPI: 503},
		{name: "safety finish", reply: fakegemini.Text("a").Finish(genai.FinishReasonSafety), wantChunks: 1},
		{name: "error frame mid-stream", reply: fakegemini.Text("a", "b").FailAfter(1, fakegemini.Error(500, "internal")), wantChunks: 1, wantAPI: 500},
		{name: "error frame first", reply: fakegemini.Text("a").FailAfter(0, fakegemini.Error(429, "quota")), wantAPI: 429},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, tt.reply)
			m := newModel(t, srv)
			chunks, err := collect(t, m.GenerateContentStream(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: userText("x")}))
			if len(chunks) != tt.wantChunks {
				t.Errorf("got %d chunks, want %d", len(chunks), tt.wantChunks)
			}
			if got := errors.Is(err, model.ErrStreamCut); got != tt.wantCut {
				t.Errorf("ErrStreamCut = %v (err %v), want %v", got, err, tt.wantCut)
			}
			var ae *model.APIError
			if tt.wantAPI != 0 {
				if !errors.As(err, &ae) || ae.StatusCode != tt.wantAPI {
					t.Errorf("err = %v, want APIError %d", err, tt.wantAPI)
				}
			}
			if !tt.wantCut && tt.wantAPI == 0 && err != nil {
				t.Errorf("unexpected error %v", err)
			}
		})
	}
}

func TestAPIErrorMapping(t *testing.T) {
	httpDate := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	tests := []struct {
		name       string
		reply      fakegemini.Reply
		wantCode   int
		wantStatus string
		wantMin    time.Duration
		wantMax    time.Duration
		exhausted  bool
	}{
		{
			name:       "retry-after seconds",
			reply:      fakegemini.Error(429, "slow down").WithRetryAfter("7"),
			wantCode:   429,
			wantStatus: "RESOURCE_EXHAUSTED",
			wantMin:    7 * time.Second, wantMax: 7 * time.Second,
		},
		{
			name:       "retry-after date",
			reply:      fakegemini.Error(503, "down").WithRetryAfter(httpDate),
			wantCode:   503,
			wantStatus: "UNAVAILABLE",
			wantMin:    50 * time.Minute, wantMax: 61 * time.Minute,
		},
		{
			name:       "retry info detail",
			reply:      fakegemini.Error(429, "quota").WithDetails(fakegemini.RetryInfo(12500 * time.Millisecond)),
			wantCode:   429,
			wantStatus: "RESOURCE_EXHAUSTED",
			wantMin:    12500 * time.Millisecond, wantMax: 12500 * time.Millisecond,
		},
		{
			name:       "daily quota",
			reply:      fakegemini.Error(429, "quota").WithDetails(fakegemini.QuotaFailure("GenerateRequestsPerDayPerProjectPerModel")),
			wantCode:   429,
			wantStatus: "RESOURCE_EXHAUSTED",
			exhausted:  true,
		},
		{
			name:       "bad request",
			reply:      fakegemini.Error(400, "bad"),
			wantCode:   400,
			wantStatus: "INVALID_ARGUMENT",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, tt.reply)
			m := newModel(t, srv)
			_, err := m.GenerateContent(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: userText("x")})
			var ae *model.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %T %v, want *model.APIError", err, err)
			}
			if ae.StatusCode != tt.wantCode || ae.Status != tt.wantStatus {
				t.Errorf("got %d %q, want %d %q", ae.StatusCode, ae.Status, tt.wantCode, tt.wantStatus)
			}
			if ae.RetryAfter < tt.wantMin || ae.RetryAfter > tt.wantMax {
				t.Errorf("RetryAfter = %v, want in [%v, %v]", ae.RetryAfter, tt.wantMin, tt.wantMax)
			}
			if ae.QuotaExhausted() != tt.exhausted {
				t.Errorf("QuotaExhausted = %v", ae.QuotaExhausted())
			}
		})
	}
}

func TestCancelHangingStream(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Hang())
	m := newModel(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	seq := m.GenerateContentStream(ctx, &model.Request{Model: "gemini-2.5-pro", Contents: userText("x")})
	done := make(chan error, 1)
	go func() {
		_, err := collect(t, seq)
		done <- err
	}()
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if errors.Is(err, model.ErrStreamCut) {
		t.Errorf("cancellation reported as a cut stream: %v", err)
	}
}

func TestVertexExpress(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("ok"))
	m := newModel(t, srv, func(c *gemini.Config) { c.Vertex = true })
	if _, err := m.GenerateContent(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: userText("x")}); err != nil {
		t.Fatal(err)
	}
	req := srv.LastRequest()
	if req.Model != "gemini-2.5-pro" || !strings.Contains(req.Path, "publishers/google/models/gemini-2.5-pro:generateContent") {
		t.Errorf("path = %s", req.Path)
	}
}
