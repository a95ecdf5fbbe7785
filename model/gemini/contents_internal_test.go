package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// bodyRecorder keeps the body of every request and answers with one
// streamed text chunk.
type bodyRecorder struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (b *bodyRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	b.mu.Lock()
	b.bodies = append(b.bodies, body)
	b.mu.Unlock()
	const answer = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}]}\r\n\r\n"
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(answer)), Request: r}, nil
}

func (b *bodyRecorder) last(t *testing.T) any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var v any
	if err := json.Unmarshal(b.bodies[len(b.bodies)-1], &v); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, b.bodies[len(b.bodies)-1])
	}
	return v
}

// TestContentsEncoding: the body a call sends with its contents encoded
// by Castor and spliced in is, as JSON, the body genai writes when it
// converts them itself, for every kind of part.
func TestContentsEncoding(t *testing.T) {
	rec := &bodyRecorder{}
	m, err := New(context.Background(), Config{APIKey: "k", BaseURL: "http://127.0.0.1:1", HTTPClient: &http.Client{Transport: rec}})
	if err != nil {
		t.Fatal(err)
	}
	sig := []byte{0, 1, 2, 250, 251}
	contents := []*genai.Content{
		genai.NewContentFromText("hello <b>&</b> \u2028 \x00 \"quoted\" "+contentsMark.Get(), genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "thinking", Thought: true, ThoughtSignature: sig},
			{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "read_file", Args: map[string]any{"file_path": "/a.go", "n": 3, "nested": map[string]any{"x": []any{1.5, true, nil}}}}, ThoughtSignature: sig},
		}},
		{Role: genai.RoleUser, Parts: []*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{ID: "c1", Name: "read_file", Response: map[string]any{"output": "package a\n"}}},
			{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte("\x89PNG\r\n")}},
			{FileData: &genai.FileData{MIMEType: "application/pdf", FileURI: "gs://b/f.pdf"}},
			{InlineData: &genai.Blob{MIMEType: "video/mp4", Data: []byte("v")}, VideoMetadata: &genai.VideoMetadata{StartOffset: 1500 * time.Millisecond, EndOffset: 3 * time.Second, FPS: genai.Ptr(2.0)}},
			{ExecutableCode: &genai.ExecutableCode{Code: "print(1)", Language: genai.LanguagePython}},
			{CodeExecutionResult: &genai.CodeExecutionResult{Outcome: genai.OutcomeOK, Output: "1\n"}},
		}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: ""}, {Text: "done"}}},
	}
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText("be brief", ""),
		Temperature:       genai.Ptr[float32](0.5),
		Tools:             []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "read_file", Description: "reads"}}}},
	}
	for _, err := range m.GenerateContentStream(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: contents, Config: cfg}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	spliced := rec.last(t)
	if bytes.Contains(rec.bodies[0], contentsToken.Get()) {
		t.Fatal("the placeholder was sent")
	}
	// genai's own encoding of the same call.
	for _, err := range m.client.Models.GenerateContentStream(context.Background(), "gemini-2.5-pro", contents, m.prepareConfig(cfg)) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if d := cmp.Diff(rec.last(t), spliced); d != "" {
		t.Errorf("body (-genai +spliced):\n%s", d)
	}
}

// TestContentsLeftToGenai: contents genai refuses for the Gemini API
// (a Vertex-only field) are left to genai, whose error the call returns,
// and nothing is sent.
func TestContentsLeftToGenai(t *testing.T) {
	rec := &bodyRecorder{}
	m, err := New(context.Background(), Config{APIKey: "k", BaseURL: "http://127.0.0.1:1", HTTPClient: &http.Client{Transport: rec}})
	if err != nil {
		t.Fatal(err)
	}
	contents := []*genai.Content{{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "f", WillContinue: genai.Ptr(true)}}}}}
	var got error
	for _, err := range m.GenerateContentStream(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: contents}) {
		if err != nil {
			got = err
		}
	}
	if got == nil || !strings.Contains(got.Error(), "willContinue") {
		t.Errorf("error %v, want genai's about willContinue", got)
	}
	if len(rec.bodies) != 0 {
		t.Errorf("%d requests sent", len(rec.bodies))
	}
}

// TestSpliceWithoutMark: a body that lost the placeholder is never sent.
func TestSpliceWithoutMark(t *testing.T) {
	r, _ := http.NewRequest("POST", "http://x", strings.NewReader(`{"contents":[]}`))
	if _, err := spliceContents(r, &encodedContents{cs: []*genai.Content{{}}, n: 4}); err != errNoContentsMark {
		t.Errorf("error %v, want errNoContentsMark", err)
	}
}

// TestContentsBodyBytes: the body read from the contents piece by piece
// is, byte for byte, the body with json.Marshal's encoding of the whole
// array in the placeholder's place; Content-Length says its length, and
// GetBody (a resend) gives the same bytes again.
func TestContentsBodyBytes(t *testing.T) {
	one := []*genai.Content{genai.NewContentFromText("a <b> & \u2028", genai.RoleUser)}
	many := []*genai.Content{
		genai.NewContentFromText("hello", genai.RoleUser),
		genai.NewContentFromFunctionCall("read_file", map[string]any{"file_path": "/a.go", "z": 1, "a": []any{true, nil}}, genai.RoleModel),
		genai.NewContentFromFunctionResponse("read_file", map[string]any{"output": strings.Repeat("x\n", 5000)}, genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "t", Thought: true, ThoughtSignature: []byte{0, 255}}, {Text: ""}}},
	}
	for name, cs := range map[string][]*genai.Content{"one": one, "many": many} {
		t.Run(name, func(t *testing.T) {
			head, tail := `{"model":"m","contents":`, `,"generationConfig":{}}`
			r, err := http.NewRequest("POST", "http://x", strings.NewReader(head+string(contentsToken.Get())+tail))
			if err != nil {
				t.Fatal(err)
			}
			enc, ok := encodeContents(cs)
			if !ok {
				t.Fatal("contents left to genai")
			}
			if r, err = spliceContents(r, enc); err != nil {
				t.Fatal(err)
			}
			whole, err := json.Marshal(cs)
			if err != nil {
				t.Fatal(err)
			}
			want := head + string(whole) + tail
			got, _ := io.ReadAll(r.Body)
			if string(got) != want {
				t.Errorf("body:\n%s\nwant:\n%s", got, want)
			}
			if r.ContentLength != int64(len(want)) {
				t.Errorf("Content-Length %d, want %d", r.ContentLength, len(want))
			}
			again, err := r.GetBody()
			if err != nil {
				t.Fatal(err)
			}
			// Read in small pieces, as a connection's buffer may.
			var b bytes.Buffer
			if _, err := io.CopyBuffer(&b, struct{ io.Reader }{again}, make([]byte, 7)); err != nil {
				t.Fatal(err)
			}
			if b.String() != want {
				t.Errorf("GetBody's body differs:\n%s", b.String())
			}
		})
	}
}

// TestContentsBodyMemory: a call's request does not hold its contents'
// encoding: at 500 contents it allocates a small part of the body's
// size (holding the encoding cost about four bodies a call, the in-turn
// memory peak of a long session).
func TestContentsBodyMemory(t *testing.T) {
	cs := make([]*genai.Content, 0, 500)
	for i := range 500 {
		cs = append(cs, genai.NewContentFromText(strings.Repeat("some words of an answer ", 40)+strconv.Itoa(i), genai.RoleModel))
	}
	rec := &bodyLength{}
	m, err := New(context.Background(), Config{APIKey: "k", BaseURL: "http://127.0.0.1:1", HTTPClient: &http.Client{Transport: rec}})
	if err != nil {
		t.Fatal(err)
	}
	call := func() {
		for _, err := range m.GenerateContentStream(context.Background(), &model.Request{Model: "gemini-2.5-pro", Contents: cs}) {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	call() // warm pools and caches
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	call()
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	if rec.n < 400_000 {
		t.Fatalf("body of %d bytes, want a history of about 480 KB", rec.n)
	}
	limit := uint64(rec.n) / 4
	if raceDetector {
		// Pooled buffers are dropped at random: about 1.8 bodies were
		// seen, against 6.3 when the whole history was encoded.
		limit = 4 * uint64(rec.n)
	}
	if allocated > limit {
		t.Errorf("a call allocated %d bytes for a body of %d", allocated, rec.n)
	}
}

// bodyLength reads each request's body into nothing, keeping its length.
type bodyLength struct{ n int64 }

func (b *bodyLength) RoundTrip(r *http.Request) (*http.Response, error) {
	b.n, _ = io.Copy(io.Discard, r.Body)
	r.Body.Close()
	const answer = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}]}\r\n\r\n"
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(answer)), Request: r}, nil
}

// TestWithoutPackedSignatures: another provider's packed signatures are
// dropped (a function call's replaced by the placeholder), Gemini's kept,
// and the caller's contents left as they were.
func TestWithoutPackedSignatures(t *testing.T) {
	packed := []byte(model.PackedSignaturePrefix + "anthropic.thinking:[]")
	call := &genai.Part{FunctionCall: &genai.FunctionCall{Name: "read_file"}, ThoughtSignature: packed}
	text := &genai.Part{Text: "hi", ThoughtSignature: packed}
	own := &genai.Part{Text: "gemini's", ThoughtSignature: []byte("opaque")}
	in := []*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "q"}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{text, call}},
		{Role: genai.RoleModel, Parts: []*genai.Part{own}},
	}
	out := withoutPackedSignatures(in)
	if got := out[1].Parts; got[0].ThoughtSignature != nil || string(got[1].ThoughtSignature) != "skip_thought_signature_validator" {
		t.Errorf("signatures sent: %q, %q", got[0].ThoughtSignature, got[1].ThoughtSignature)
	}
	if out[0] != in[0] || out[2] != in[2] || string(out[2].Parts[0].ThoughtSignature) != "opaque" {
		t.Errorf("contents without packed signatures were copied or changed")
	}
	if string(text.ThoughtSignature) != string(packed) || string(call.ThoughtSignature) != string(packed) || in[1].Parts[0] != text {
		t.Errorf("the caller's contents changed")
	}
	if clean := in[:1]; &withoutPackedSignatures(clean)[0] != &clean[0] {
		t.Errorf("contents with nothing to drop were copied")
	}
}
