package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
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
		genai.NewContentFromText("hello <b>&</b> \u2028 \x00 \"quoted\" "+contentsMark, genai.RoleUser),
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
	if bytes.Contains(rec.bodies[0], contentsToken) {
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
	if _, err := spliceContents(r, []byte(`[]`)); err != errNoContentsMark {
		t.Errorf("error %v, want errNoContentsMark", err)
	}
}
