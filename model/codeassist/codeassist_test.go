package codeassist_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/codeassist"
	"github.com/castor-dev/castor/model/gemini"
)

func newModel(t *testing.T, srv *fakegemini.Server, mut ...func(*codeassist.Config)) *codeassist.Model {
	t.Helper()
	cfg := codeassist.Config{Endpoint: srv.URL, Version: "1.2.3", Project: "proj-1"}
	for _, f := range mut {
		f(&cfg)
	}
	m, err := codeassist.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func collect(seq func(func(*genai.GenerateContentResponse, error) bool)) ([]*genai.GenerateContentResponse, error) {
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
				b.WriteString(p.Text)
			}
		}
	}
	return b.String()
}

func request(modelID string) *model.Request {
	return &model.Request{
		Model:     modelID,
		Contents:  []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)},
		Config:    &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText("be brief", ""), Temperature: genai.Ptr[float32](1)},
		PromptID:  "prompt-7",
		SessionID: "sess-3",
	}
}

func TestStream(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("Hel", "lo ", "world"))
	m := newModel(t, srv, func(c *codeassist.Config) {
		c.Headers = gemini.ParseCustomHeaders("X-Team: castor")
	})
	chunks, err := collect(m.GenerateContentStream(context.Background(), request("gemini-2.5-pro")))
	if err != nil {
		t.Fatal(err)
	}
	if got := text(chunks); got != "Hello world" || len(chunks) != 3 {
		t.Errorf("text %q in %d chunks", got, len(chunks))
	}
	last := chunks[len(chunks)-1]
	if last.ResponseID != "fake-response-1" || last.ModelVersion != fakegemini.DefaultModelVersion || last.UsageMetadata == nil {
		t.Errorf("last chunk %+v", last)
	}
	req := srv.LastRequest()
	if !req.CodeAssist || req.RPC != fakegemini.RPCStreamGenerateContent || req.Path != "/v1internal:streamGenerateContent" || req.Query.Get("alt") != "sse" {
		t.Errorf("request %s %s?%s", req.HTTPMethod, req.Path, req.Query.Encode())
	}
	if req.Model != "gemini-2.5-pro" || req.Project != "proj-1" || req.UserPromptID != "prompt-7" || req.SessionID != "sess-3" {
		t.Errorf("envelope model %q project %q prompt %q session %q", req.Model, req.Project, req.UserPromptID, req.SessionID)
	}
	if si := req.SystemInstruction; si == nil || si.Role != genai.RoleUser || si.Parts[0].Text != "be brief" {
		t.Errorf("system instruction %+v", si)
	}
	if gc := req.GenerationConfig; gc == nil || gc.Temperature == nil || *gc.Temperature != 1 {
		t.Errorf("generation config %+v", gc)
	}
	for k, want := range map[string]string{
		"Content-Type": "application/json",
		"User-Agent":   "Castor/1.2.3/gemini-2.5-pro (" + runtime.GOOS + "; " + runtime.GOARCH + ")",
		"X-Team":       "castor",
	} {
		if got := req.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

// The request envelope is pinned by a golden file: the fields Gemini CLI
// sends, named as it names them.
func TestRequestEnvelopeGolden(t *testing.T) {
	req := &model.Request{
		Model: "gemini-2.5-pro",
		Contents: []*genai.Content{
			genai.NewContentFromText("list the files", genai.RoleUser),
			{Role: genai.RoleModel, Parts: []*genai.Part{
				{Text: "planning", Thought: true},
				{FunctionCall: &genai.FunctionCall{ID: "fc1", Name: "list_directory", Args: map[string]any{"path": "/w"}}, ThoughtSignature: []byte("sig")},
			}},
			{Role: genai.RoleUser, Parts: []*genai.Part{
				{FunctionResponse: &genai.FunctionResponse{ID: "fc1", Name: "list_directory", Response: map[string]any{"output": "a.go"}}},
			}},
		},
		Config: &genai.GenerateContentConfig{
			SystemInstruction: genai.NewContentFromText("You are Castor.", ""),
			Temperature:       genai.Ptr[float32](1),
			TopP:              genai.Ptr[float32](0.95),
			TopK:              genai.Ptr[float32](64),
			ThinkingConfig:    &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: genai.Ptr[int32](8192)},
			Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
				Name:                 "list_directory",
				Description:          "Lists a directory.",
				ParametersJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}},
			}}}},
			ToolConfig:         &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto}},
			Labels:             map[string]string{"team": "castor"},
			ResponseModalities: []string{"TEXT"},
		},
		PromptID:  "8c2f1d4e########1",
		SessionID: "0b9e6b0c-5b7e-4a55-9d35-2f0f3c0e9a11",
	}
	got, err := json.MarshalIndent(codeassist.ToGenerateContentRequest(req, "cloudaicompanion-123"), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "generate_request.golden.json", got)

	count, err := json.MarshalIndent(codeassist.ToCountTokensRequest(req), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "count_tokens_request.golden.json", count)
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, name, append(got, '\n'))
}

func TestUnaryAndCountTokens(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("un", "ary"), fakegemini.Tokens(42))
	m := newModel(t, srv)
	resp, err := m.GenerateContent(context.Background(), request("gemini-2.5-flash"))
	if err != nil {
		t.Fatal(err)
	}
	if got := text([]*genai.GenerateContentResponse{resp}); got != "unary" || resp.ResponseID == "" {
		t.Errorf("text %q id %q", got, resp.ResponseID)
	}
	if req := srv.LastRequest(); req.Path != "/v1internal:generateContent" || req.Project != "proj-1" {
		t.Errorf("request %s project %q", req.Path, req.Project)
	}
	n, err := m.CountTokens(context.Background(), request("gemini-2.5-flash"))
	if err != nil || n != 42 {
		t.Fatalf("count = %d, %v", n, err)
	}
	req := srv.LastRequest()
	var body map[string]map[string]any
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if req.Path != "/v1internal:countTokens" || body["request"]["model"] != "models/gemini-2.5-flash" || len(body) != 1 {
		t.Errorf("countTokens %s %s", req.Path, req.Body)
	}
}

func TestModelMapping(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"gemini-3.5-flash", "gemini-3-flash"},
		{"models/gemini-3.5-flash", "models/gemini-3-flash"},
		{"gemini-2.5-pro", "gemini-2.5-pro"},
		{"", ""},
	} {
		if got := codeassist.MapModel(codeassist.DefaultModelMappings(), tt.in); got != tt.want {
			t.Errorf("MapModel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	srv := fakegemini.Start(t, fakegemini.Text("x"), fakegemini.Tokens(1))
	m := newModel(t, srv)
	if _, err := collect(m.GenerateContentStream(context.Background(), request("gemini-3.5-flash"))); err != nil {
		t.Fatal(err)
	}
	if got := srv.LastRequest().Model; got != "gemini-3-flash" {
		t.Errorf("sent model %q", got)
	}
	if _, err := m.CountTokens(context.Background(), request("gemini-3.5-flash")); err != nil {
		t.Fatal(err)
	}
	if got := srv.LastRequest().Model; got != "gemini-3-flash" {
		t.Errorf("countTokens model %q", got)
	}
	none := newModel(t, srv, func(c *codeassist.Config) { c.ModelMappings = map[string]string{} })
	srv.Enqueue(fakegemini.Text("x"))
	if _, err := collect(none.GenerateContentStream(context.Background(), request("gemini-3.5-flash"))); err != nil {
		t.Fatal(err)
	}
	if got := srv.LastRequest().Model; got != "gemini-3.5-flash" {
		t.Errorf("unmapped model %q", got)
	}
}

func TestStreamEndings(t *testing.T) {
	tests := []struct {
		name       string
		reply      fakegemini.Reply
		wantChunks int
		wantText   string
		check      func(error) bool
		wantErr    string
	}{
		{name: "complete", reply: fakegemini.Text("a", "b"), wantChunks: 2, wantText: "ab"},
		{name: "no finish reason", reply: fakegemini.Text("a", "b").NoFinish(), wantChunks: 2, check: isCut, wantErr: "no finish reason after 2 chunks"},
		{name: "empty stream", reply: fakegemini.Chunks(), check: isCut, wantErr: "the model sent no response"},
		{name: "cut after a chunk", reply: fakegemini.Text("a", "b", "c").CutAfter(1), wantChunks: 1, check: isCut, wantErr: "after 1 chunks"},
		{name: "cut before any chunk", reply: fakegemini.Text("a").CutAfter(0), check: isCut},
		{name: "error event", reply: fakegemini.Text("a", "b").FailAfter(1, fakegemini.Error(500, "backend died")), wantChunks: 1, check: isAPIError(500), wantErr: "backend died"},
		{
			name:       "non-data line",
			reply:      raw("data: " + chunkJSON("a", "") + "\n\nevent: ping\n\ndata: " + chunkJSON("b", "STOP") + "\n\n"),
			wantChunks: 1, check: isMalformed, wantErr: `line 3 is not a data line: "event: ping"`,
		},
		{
			name:  "comment line",
			reply: raw(": keep-alive\n\n"),
			check: isMalformed, wantErr: "line 1 is not a data line",
		},
		{
			name:       "event cut without blank line",
			reply:      raw("data: " + chunkJSON("a", "") + "\n\ndata: " + chunkJSON("b", "STOP") + "\n"),
			wantChunks: 1, check: isCut, wantErr: "stream ended inside an event",
		},
		{
			name:  "invalid JSON",
			reply: raw("data: {not json}\n\n"),
			check: isMalformed, wantErr: "event is not JSON",
		},
		{
			name:       "multi-line data and CRLF",
			reply:      raw("data: {\"response\":\r\ndata: " + strings.TrimPrefix(chunkJSON("joined", "STOP"), `{"response":`) + "\r\n\r\n\r\n"),
			wantChunks: 1, wantText: "joined",
		},
		{
			name:       "blocked prompt ends the turn",
			reply:      raw(`data: {"response":{"promptFeedback":{"blockReason":"SAFETY"}},"traceId":"t"}` + "\n\n"),
			wantChunks: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, tt.reply)
			m := newModel(t, srv)
			chunks, err := collect(m.GenerateContentStream(context.Background(), request("gemini-2.5-pro")))
			if len(chunks) != tt.wantChunks {
				t.Errorf("%d chunks, want %d", len(chunks), tt.wantChunks)
			}
			if tt.wantText != "" && text(chunks) != tt.wantText {
				t.Errorf("text %q", text(chunks))
			}
			if tt.check == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !tt.check(err) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// raw is a stream body sent as is, to test the decoder on framing the
// fake would never produce.
func raw(body string) fakegemini.Reply {
	return fakegemini.JSON(body).For(fakegemini.RPCStreamGenerateContent)
}

func chunkJSON(text, finish string) string {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}}
	if finish != "" {
		cand["finishReason"] = finish
	}
	b, _ := json.Marshal(map[string]any{"response": map[string]any{"candidates": []any{cand}}, "traceId": "trace-1"})
	return string(b)
}

func isCut(err error) bool { return errors.Is(err, model.ErrStreamCut) && model.IsRetryable(err) }

func isMalformed(err error) bool {
	return errors.Is(err, codeassist.ErrMalformedStream) && !model.IsRetryable(err)
}

func isAPIError(code int) func(error) bool {
	return func(err error) bool {
		var ae *model.APIError
		return errors.As(err, &ae) && ae.StatusCode == code
	}
}

func TestAPIErrors(t *testing.T) {
	tests := []struct {
		name      string
		reply     fakegemini.Reply
		wantCode  int
		wantAuth  bool
		wantRetry bool
		wantAfter time.Duration
	}{
		{name: "quota", reply: fakegemini.Error(429, "slow down").WithRetryAfter("7"), wantCode: 429, wantRetry: true, wantAfter: 7 * time.Second},
		{name: "server", reply: fakegemini.Error(503, "overloaded"), wantCode: 503, wantRetry: true},
		{name: "bad request", reply: fakegemini.Error(400, "no"), wantCode: 400},
		{name: "unauthenticated", reply: fakegemini.Error(401, "Request had invalid authentication credentials."), wantCode: 401, wantAuth: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, stream := range []bool{false, true} {
				srv := fakegemini.Start(t, tt.reply)
				m := newModel(t, srv)
				var err error
				if stream {
					_, err = collect(m.GenerateContentStream(context.Background(), request("gemini-2.5-pro")))
				} else {
					_, err = m.GenerateContent(context.Background(), request("gemini-2.5-pro"))
				}
				var ae *model.APIError
				var auth *model.AuthError
				if !errors.As(err, &ae) || ae.StatusCode != tt.wantCode || errors.As(err, &auth) != tt.wantAuth || model.IsRetryable(err) != tt.wantRetry || ae.RetryAfter != tt.wantAfter {
					t.Fatalf("stream=%v: err = %#v", stream, err)
				}
				if tt.wantAuth && !strings.Contains(err.Error(), "castor auth login") {
					t.Errorf("auth error %q", err)
				}
			}
		})
	}
}

// The transport leaves retries and fallback to model.WithRetry, exactly as
// on the API-key path.
func TestRetryAndFallback(t *testing.T) {
	noSleep := func(context.Context, time.Duration) error { return nil }
	t.Run("retry", func(t *testing.T) {
		srv := fakegemini.Start(t, fakegemini.Error(503, "overloaded"), fakegemini.Text("ok"))
		m := model.WithRetry(newModel(t, srv), model.RetryOptions{Sleep: noSleep})
		chunks, err := collect(m.GenerateContentStream(context.Background(), request("gemini-2.5-pro")))
		if err != nil || text(chunks) != "ok" || len(srv.Requests()) != 2 {
			t.Fatalf("%q %v after %d requests", text(chunks), err, len(srv.Requests()))
		}
	})
	t.Run("fallback", func(t *testing.T) {
		srv := fakegemini.Start(t,
			fakegemini.Error(429, "quota").WithDetails(fakegemini.QuotaFailure("GenerateRequestsPerDayPerProjectPerModel")),
			fakegemini.Text("from flash"),
		)
		m := model.WithRetry(newModel(t, srv), model.RetryOptions{Sleep: noSleep, Fallback: model.DefaultFallback})
		chunks, err := collect(m.GenerateContentStream(context.Background(), request("gemini-2.5-pro")))
		if err != nil || text(chunks) != "from flash" {
			t.Fatalf("%q %v", text(chunks), err)
		}
		if got := srv.LastRequest().Model; got != "gemini-2.5-flash" {
			t.Errorf("fell back to %q", got)
		}
	})
	t.Run("auth errors are final", func(t *testing.T) {
		srv := fakegemini.Start(t, fakegemini.Error(401, "bad token"), fakegemini.Text("never"))
		m := model.WithRetry(newModel(t, srv), model.RetryOptions{Sleep: noSleep})
		_, err := m.GenerateContent(context.Background(), request("gemini-2.5-pro"))
		var auth *model.AuthError
		if !errors.As(err, &auth) || len(srv.Requests()) != 1 {
			t.Fatalf("err %v after %d requests", err, len(srv.Requests()))
		}
	})
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{
		"CODE_ASSIST_ENDPOINT":      " http://127.0.0.1:1/proxy/ ",
		"CODE_ASSIST_API_VERSION":   "v1internal",
		"GEMINI_CLI_CUSTOM_HEADERS": "X-A: 1",
	}
	cfg := codeassist.ConfigFromEnv(func(k string) string { return env[k] })
	if cfg.Endpoint != "http://127.0.0.1:1/proxy/" || cfg.APIVersion != "v1internal" || cfg.Headers.Get("X-A") != "1" {
		t.Errorf("cfg = %+v", cfg)
	}
	for _, bad := range []string{"cloudcode-pa.googleapis.com", "ftp://x", "http://"} {
		if _, err := codeassist.New(codeassist.Config{Endpoint: bad}); err == nil || !strings.Contains(err.Error(), "CODE_ASSIST_ENDPOINT") {
			t.Errorf("endpoint %q: %v", bad, err)
		}
	}
}

// CODE_ASSIST_ENDPOINT may carry a path (a proxy); the method URL is
// <endpoint>/<version>:<method>.
func TestEndpointWithPath(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("x"))
	m := newModel(t, srv, func(c *codeassist.Config) { c.Endpoint = srv.URL + "/proxy/" })
	if _, err := m.GenerateContent(context.Background(), request("gemini-2.5-pro")); err != nil {
		t.Fatal(err)
	}
	if got := srv.LastRequest().Path; got != "/proxy/v1internal:generateContent" {
		t.Errorf("path %q", got)
	}
}

func TestCancelHangingStream(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Hang())
	m := newModel(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := collect(m.GenerateContentStream(ctx, request("gemini-2.5-pro")))
		errc <- err
	}()
	for len(srv.Requests()) == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestUnaryBodyProblems(t *testing.T) {
	tests := []struct {
		name      string
		reply     fakegemini.Reply
		wantErr   string
		wantRetry bool
	}{
		{name: "cut body", reply: fakegemini.Text("a long answer").CutAfter(1), wantErr: "reading answer", wantRetry: true},
		{name: "not JSON", reply: fakegemini.JSON("<html>proxy error</html>").For(fakegemini.RPCGenerateContent), wantErr: "decoding answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, tt.reply)
			_, err := newModel(t, srv).GenerateContent(context.Background(), request("gemini-2.5-pro"))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || model.IsRetryable(err) != tt.wantRetry {
				t.Fatalf("err = %v (retryable %v)", err, model.IsRetryable(err))
			}
		})
	}
}

// A request that meets a connection closed under it is sent again at
// once, on a new connection, as the Gemini API client's are.
func TestRequestResentOnClosedConnection(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("one"), fakegemini.Text("two"))
	gw := srv.DroppingGateway(t, 2)
	m := newModel(t, srv, func(c *codeassist.Config) { c.Endpoint = gw.URL })
	for _, want := range []string{"one", "two"} {
		chunks, err := collect(m.GenerateContentStream(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}}))
		if err != nil {
			t.Fatalf("call for %q: %v", want, err)
		}
		if got := text(chunks); got != want {
			t.Errorf("text = %q, want %q", got, want)
		}
	}
	if n, c := gw.Requests.Load(), gw.Conns.Load(); n != 3 || c != 2 {
		t.Errorf("the gateway saw %d requests on %d connections, want 3 on 2", n, c)
	}
	if h := srv.LastRequest().Header; len(h.Values("Idempotency-Key")) > 0 {
		t.Errorf("Idempotency-Key sent: %q", h.Values("Idempotency-Key"))
	}
}
