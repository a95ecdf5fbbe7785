package fakegemini_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
	"google.golang.org/genai"
)

func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var generateBody = map[string]any{
	"contents":          []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "hello"}}}},
	"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "be brief"}}},
	"generationConfig":  map[string]any{"temperature": 0.5},
}

func TestSSEFraming(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("a", "b"))
	resp := post(t, srv.URL+"/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", generateBody)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	body := readAll(t, resp.Body)
	frames := strings.Split(strings.TrimSuffix(body, "\r\n\r\n"), "\r\n\r\n")
	if len(frames) != 2 || !strings.HasSuffix(body, "\r\n\r\n") {
		t.Fatalf("body = %q", body)
	}
	for i, f := range frames {
		data, ok := strings.CutPrefix(f, "data: ")
		if !ok {
			t.Fatalf("frame %d = %q", i, f)
		}
		var c genai.GenerateContentResponse
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatal(err)
		}
		if c.ModelVersion != "gemini-fake" || c.ResponseID != "fake-response-1" {
			t.Errorf("frame %d modelVersion %q responseId %q", i, c.ModelVersion, c.ResponseID)
		}
		if last := i == len(frames)-1; last != (c.Candidates[0].FinishReason == genai.FinishReasonStop) || last != (c.UsageMetadata != nil) {
			t.Errorf("frame %d finish %q usage %v", i, c.Candidates[0].FinishReason, c.UsageMetadata)
		}
	}
	req := srv.LastRequest()
	if req.Model != "gemini-2.5-pro" || req.RPC != fakegemini.RPCStreamGenerateContent || req.CodeAssist {
		t.Errorf("request = %+v", req)
	}
	if req.LastContent().Parts[0].Text != "hello" || req.SystemInstruction.Parts[0].Text != "be brief" || *req.GenerationConfig.Temperature != 0.5 {
		t.Errorf("decoded = %+v", req)
	}
}

func TestCodeAssist(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("x", "y"), fakegemini.Text("unary"))
	envelope := map[string]any{
		"model":          "gemini-2.5-flash",
		"project":        "proj-1",
		"user_prompt_id": "prompt-7",
		"request": map[string]any{
			"contents":   generateBody["contents"],
			"session_id": "sess-3",
		},
	}
	resp := post(t, srv.URL+"/v1internal:streamGenerateContent?alt=sse", envelope)
	sc := bufio.NewScanner(resp.Body)
	var frames []map[string]json.RawMessage
	for sc.Scan() {
		if data, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "data: "); ok {
			var f map[string]json.RawMessage
			if err := json.Unmarshal([]byte(data), &f); err != nil {
				t.Fatal(err)
			}
			frames = append(frames, f)
		}
	}
	if len(frames) != 2 {
		t.Fatalf("frames = %d", len(frames))
	}
	for _, f := range frames {
		var inner genai.GenerateContentResponse
		if err := json.Unmarshal(f["response"], &inner); err != nil {
			t.Fatal(err)
		}
		if string(f["traceId"]) != `"fake-response-1"` || inner.ResponseID != "" || len(inner.Candidates) != 1 {
			t.Errorf("frame = %s", f)
		}
	}
	req := srv.LastRequest()
	if !req.CodeAssist || req.Model != "gemini-2.5-flash" || req.Project != "proj-1" || req.UserPromptID != "prompt-7" || req.SessionID != "sess-3" || len(req.Contents) != 1 {
		t.Errorf("request = %+v", req)
	}

	resp = post(t, srv.URL+"/v1internal:generateContent", envelope)
	var unary struct {
		Response genai.GenerateContentResponse `json:"response"`
		TraceID  string                        `json:"traceId"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&unary); err != nil {
		t.Fatal(err)
	}
	if unary.TraceID == "" || unary.Response.Candidates[0].Content.Parts[0].Text != "unary" {
		t.Errorf("unary = %+v", unary)
	}

	resp = post(t, srv.URL+"/v1internal:countTokens", map[string]any{"request": map[string]any{"model": "models/gemini-2.5-flash", "contents": generateBody["contents"]}})
	if got := readAll(t, resp.Body); !strings.Contains(got, `"totalTokens":`) {
		t.Errorf("countTokens = %s", got)
	}
	if m := srv.LastRequest().Model; m != "gemini-2.5-flash" {
		t.Errorf("countTokens model = %q", m)
	}
}

func TestCodeAssistSetupReplies(t *testing.T) {
	srv := fakegemini.Start(t,
		fakegemini.JSON(map[string]any{"currentTier": map[string]any{"id": "standard-tier"}}).For(fakegemini.RPCLoadCodeAssist),
		fakegemini.JSON(`{"name":"operations/op1","done":false}`).For(fakegemini.RPCOnboardUser),
		fakegemini.Error(403, "no access").For(fakegemini.RPCOnboardUser),
	)
	tests := []struct {
		name       string
		method     string
		path       string
		wantStatus int
		want       string
	}{
		{"scripted load", http.MethodPost, "/v1internal:loadCodeAssist", 200, `"standard-tier"`},
		{"default load", http.MethodPost, "/v1internal:loadCodeAssist", 200, `"free-tier"`},
		{"scripted onboard", http.MethodPost, "/v1internal:onboardUser", 200, `"done":false`},
		{"scripted fault", http.MethodPost, "/v1internal:onboardUser", 403, `"PERMISSION_DENIED"`},
		{"default onboard", http.MethodPost, "/v1internal:onboardUser", 200, `"done":true`},
		{"operation", http.MethodGet, "/v1internal/operations/op1", 200, `"name":"operations/op1"`},
		{"other method", http.MethodPost, "/v1internal:retrieveUserQuota", 200, `{}`},
		{"unknown path", http.MethodGet, "/nowhere", 404, `"NOT_FOUND"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body := readAll(t, resp.Body)
			if resp.StatusCode != tt.wantStatus || !strings.Contains(body, tt.want) {
				t.Errorf("got %d %s, want %d containing %s", resp.StatusCode, body, tt.wantStatus, tt.want)
			}
		})
	}
}

func TestFaults(t *testing.T) {
	srv := fakegemini.Start(t,
		fakegemini.Error(429, "slow down").WithRetryAfter("3").WithDetails(fakegemini.RetryInfo(2*time.Second)),
		fakegemini.Text("a", "b", "c").CutAfter(1),
	)
	resp := post(t, srv.URL+"/v1beta/models/m:generateContent", generateBody)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("status %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	var env struct {
		Error struct {
			Code    int              `json:"code"`
			Message string           `json:"message"`
			Status  string           `json:"status"`
			Details []map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	if env.Error.Code != 429 || env.Error.Status != "RESOURCE_EXHAUSTED" || env.Error.Message != "slow down" || env.Error.Details[0]["retryDelay"] != "2s" {
		t.Errorf("envelope = %+v", env)
	}

	resp = post(t, srv.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", generateBody)
	body, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read error = %v, want unexpected EOF", err)
	}
	if n := strings.Count(string(body), "data: "); n != 1 {
		t.Errorf("got %d frames before the cut: %q", n, body)
	}
}

func TestMatching(t *testing.T) {
	tests := []struct {
		name     string
		strict   bool
		script   []fakegemini.Reply
		calls    []string
		wantCode []int
	}{
		{
			name:     "lenient cross-kind",
			script:   []fakegemini.Reply{fakegemini.Text("s").For(fakegemini.RPCStreamGenerateContent)},
			calls:    []string{"generateContent"},
			wantCode: []int{200},
		},
		{
			name:     "lenient prefers exact kind",
			script:   []fakegemini.Reply{fakegemini.Error(500, "x").For(fakegemini.RPCGenerateContent), fakegemini.Text("s").For(fakegemini.RPCStreamGenerateContent)},
			calls:    []string{"streamGenerateContent?alt=sse", "generateContent"},
			wantCode: []int{200, 500},
		},
		{
			name:     "strict mismatch",
			strict:   true,
			script:   []fakegemini.Reply{fakegemini.Text("s").For(fakegemini.RPCStreamGenerateContent)},
			calls:    []string{"generateContent", "streamGenerateContent?alt=sse"},
			wantCode: []int{400, 200},
		},
		{
			name:     "exhausted",
			script:   nil,
			calls:    []string{"generateContent"},
			wantCode: []int{400},
		},
		{
			name:     "countTokens never consumes generate replies",
			script:   []fakegemini.Reply{fakegemini.Text("s")},
			calls:    []string{"countTokens", "generateContent"},
			wantCode: []int{200, 200},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, tt.script...)
			srv.SetStrict(tt.strict)
			for i, c := range tt.calls {
				resp := post(t, srv.URL+"/v1beta/models/m:"+c, generateBody)
				if resp.StatusCode != tt.wantCode[i] {
					t.Errorf("call %d (%s) = %d %s, want %d", i, c, resp.StatusCode, readAll(t, resp.Body), tt.wantCode[i])
				}
			}
		})
	}
}

func TestHangReleasedByClose(t *testing.T) {
	srv := fakegemini.New()
	if err := srv.Listen(""); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(fakegemini.Hang(), fakegemini.Text("a", "b").Slow(time.Hour))
	errs := make(chan error, 2)
	for _, rpc := range []string{"generateContent", "streamGenerateContent?alt=sse"} {
		go func() {
			resp, err := http.Post(srv.URL+"/v1beta/models/m:"+rpc, "application/json", strings.NewReader("{}"))
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			errs <- err
		}()
	}
	// Close must not wait an hour; whatever the clients see is fine.
	for len(srv.Requests()) < 2 {
		time.Sleep(time.Millisecond)
	}
	srv.Close()
	<-errs
	<-errs
}

func TestHangReleasedByClient(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Hang())
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1beta/models/m:generateContent", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestListenLoopbackOnly(t *testing.T) {
	srv := fakegemini.New()
	defer srv.Close()
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:80"} {
		if err := srv.Listen(addr); err == nil {
			t.Errorf("Listen(%q) succeeded", addr)
		}
	}
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Listen("127.0.0.1:0"); err == nil {
		t.Error("second Listen succeeded")
	}
}

func TestReplyBuilders(t *testing.T) {
	r := fakegemini.Thought("hmm").Then(fakegemini.Text("a")).Then(fakegemini.Call("f", nil).Signed([]byte("s")))
	srv := fakegemini.Start(t, r, r.NoFinish(), r.Finish(genai.FinishReasonMaxTokens))
	for i, want := range []genai.FinishReason{genai.FinishReasonStop, "", genai.FinishReasonMaxTokens} {
		resp := post(t, srv.URL+"/v1beta/models/m:generateContent", generateBody)
		var c genai.GenerateContentResponse
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
			t.Fatal(err)
		}
		parts := c.Candidates[0].Content.Parts
		if len(parts) != 3 || !parts[0].Thought || parts[1].Text != "a" || parts[2].FunctionCall.Name != "f" || string(parts[2].ThoughtSignature) != "s" {
			t.Errorf("reply %d parts = %+v", i, parts)
		}
		if got := c.Candidates[0].FinishReason; got != want {
			t.Errorf("reply %d finish = %q, want %q", i, got, want)
		}
		if u := c.UsageMetadata; u == nil || u.ThoughtsTokenCount == 0 || u.CandidatesTokenCount == 0 {
			t.Errorf("reply %d usage = %+v", i, u)
		}
	}
}

func TestParseScript(t *testing.T) {
	script := `{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"text":"from script"}]},"finishReason":"STOP"}]}]}
{"method":"countTokens","response":{"totalTokens":5}}
`
	replies, err := fakegemini.ParseScript(strings.NewReader(script), "s.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	srv := fakegemini.Start(t, replies...)
	srv.SetStrict(true)
	resp := post(t, srv.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", generateBody)
	if got := readAll(t, resp.Body); !strings.Contains(got, "from script") {
		t.Errorf("stream = %s", got)
	}
	resp = post(t, srv.URL+"/v1beta/models/m:countTokens", generateBody)
	if got := readAll(t, resp.Body); !strings.Contains(got, `"totalTokens":5`) {
		t.Errorf("countTokens = %s", got)
	}
	if _, err := fakegemini.ParseScript(strings.NewReader("{oops"), "s.jsonl"); err == nil || !strings.HasPrefix(err.Error(), "s.jsonl:1:") {
		t.Errorf("err = %v", err)
	}
}

// SetKeep bounds the requests kept: a long benchmark session's, each
// holding the whole history, once filled the machine's memory.
func TestSetKeep(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("1"), fakegemini.Text("2"), fakegemini.Text("3"))
	srv.SetKeep(2)
	for range 3 {
		readAll(t, post(t, srv.URL+"/v1beta/models/gemini-2.5-pro:generateContent", generateBody).Body)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests kept, want 2", n)
	}
}

// TestLoopCheckReplies: a loop check takes only a reply marked for its
// method; otherwise it is answered "no loop" and the main loop's
// unmarked replies stay queued.
func TestLoopCheckReplies(t *testing.T) {
	check := map[string]any{
		"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "stuck?"}}}},
		"generationConfig": map[string]any{"responseMimeType": "application/json",
			"responseJsonSchema": map[string]any{"type": "object", "properties": map[string]any{"unproductive_state_confidence": map[string]any{"type": "number"}}}},
	}
	srv := fakegemini.Start(t, fakegemini.Text("main turn"), fakegemini.Text(`{"unproductive_state_confidence":0.95}`).For(fakegemini.RPCGenerateContent))
	for _, want := range []string{"0.95", "fakegemini: no loop check scripted"} {
		if got := readAll(t, post(t, srv.URL+"/v1beta/models/m:generateContent", check).Body); !strings.Contains(got, want) {
			t.Errorf("loop check answered %s, want %s", got, want)
		}
	}
	if got := readAll(t, post(t, srv.URL+"/v1beta/models/m:generateContent", generateBody).Body); !strings.Contains(got, "main turn") {
		t.Errorf("the main turn got %s", got)
	}
	if n := len(srv.Requests()); n != 3 || !srv.Requests()[0].IsLoopCheck() || srv.Requests()[2].IsLoopCheck() {
		t.Errorf("%d requests recorded, want 3: two loop checks, then a turn", n)
	}
}
