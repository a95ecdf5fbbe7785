package fake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/model/gemini"
	"google.golang.org/genai"
)

func req(text string) *model.Request {
	return &model.Request{Model: "gemini-2.5-pro", Contents: []*genai.Content{genai.NewContentFromText(text, genai.RoleUser)}}
}

func drain(m model.Model, r *model.Request) ([]*genai.GenerateContentResponse, error) {
	var out []*genai.GenerateContentResponse
	for c, err := range m.GenerateContentStream(context.Background(), r) {
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

func TestLoadGolden(t *testing.T) {
	entries, err := fake.Load("testdata/example.responses")
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, e := range entries {
		methods = append(methods, e.Method)
	}
	want := "generateContent,countTokens,generateContentStream,generateContentStream"
	if got := strings.Join(methods, ","); got != want {
		t.Errorf("methods = %s, want %s (embedContent dropped)", got, want)
	}
	if entries[2].Line != 3 || entries[3].Line != 5 {
		t.Errorf("lines = %d, %d", entries[2].Line, entries[3].Line)
	}
	call := entries[2].Stream[2].Candidates[0].Content.Parts[0]
	if call.FunctionCall == nil || call.FunctionCall.Name != "list_directory" || string(call.ThoughtSignature) != "castor-fake-signature" {
		t.Errorf("call part = %+v", call)
	}
}

func TestStrictReplay(t *testing.T) {
	m, err := fake.Open("testdata/example.responses", true)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	resp, err := m.GenerateContent(ctx, req("route"))
	if err != nil || !strings.Contains(resp.Candidates[0].Content.Parts[0].Text, "model_choice") {
		t.Fatalf("GenerateContent = %v, %v", resp, err)
	}
	if n, err := m.CountTokens(ctx, req("count")); err != nil || n != 1207 {
		t.Fatalf("CountTokens = %d, %v", n, err)
	}
	// The next entry is a stream; a unary call is out of order.
	_, err = m.GenerateContent(ctx, req("wrong"))
	if want := "Unexpected response type, next response was for generateContentStream but expected generateContent"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	chunks, err := drain(m, req("last"))
	if err != nil || len(chunks) != 2 {
		t.Fatalf("stream = %d chunks, %v", len(chunks), err)
	}
	_, err = drain(m, req("one too many"))
	if err == nil || !strings.HasPrefix(err.Error(), "No more mock responses for generateContentStream, got request:\n{") {
		t.Fatalf("err = %v", err)
	}
	var sent struct {
		Model    string           `json:"model"`
		Contents []*genai.Content `json:"contents"`
	}
	if jerr := json.Unmarshal([]byte(strings.SplitN(err.Error(), "\n", 2)[1]), &sent); jerr != nil {
		t.Fatalf("request JSON: %v", jerr)
	}
	if sent.Model != "gemini-2.5-pro" || sent.Contents[0].Parts[0].Text != "one too many" {
		t.Errorf("request = %+v", sent)
	}
	if m.Remaining() != 0 {
		t.Errorf("Remaining = %d", m.Remaining())
	}
}

func TestNonStrictReplay(t *testing.T) {
	m, err := fake.Open("testdata/example.responses", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Out of file order: streams first, then the count, then the unary call.
	first, err := drain(m, req("a"))
	if err != nil || len(first) != 3 {
		t.Fatalf("first stream: %d chunks, %v", len(first), err)
	}
	second, err := drain(m, req("b"))
	if err != nil || len(second) != 2 {
		t.Fatalf("second stream: %d chunks, %v", len(second), err)
	}
	if n, err := m.CountTokens(ctx, req("c")); err != nil || n != 1207 {
		t.Fatalf("CountTokens = %d, %v", n, err)
	}
	if _, err := m.GenerateContent(ctx, req("d")); err != nil {
		t.Fatal(err)
	}
	_, err = m.CountTokens(ctx, req("e"))
	if err == nil || !strings.HasPrefix(err.Error(), "No more mock responses for countTokens, got request:\n") {
		t.Errorf("err = %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"not json", "{\"method\":\"countTokens\",\"response\":{\"totalTokens\":1}}\n\nnot json\n", "x.responses:3: malformed"},
		{"unknown method", `{"method":"generateImages","response":{}}`, `x.responses:1: unknown method "generateImages"`},
		{"missing method", `{"response":{}}`, `x.responses:1: malformed responses line: missing "method"`},
		{"missing response", `{"method":"generateContent"}`, `x.responses:1: malformed responses line: generateContent entry has no "response"`},
		{"stream not array", `{"method":"generateContentStream","response":{"candidates":[]}}`, "x.responses:1: bad generateContentStream response"},
		{"null chunk", `{"method":"generateContentStream","response":[null]}`, "x.responses:1: bad generateContentStream response: chunk 0 is null"},
		{"bad count", `{"method":"countTokens","response":{"totalTokens":"many"}}`, "x.responses:1: bad countTokens response"},
		{"trailing garbage", `{"method":"countTokens","response":{"totalTokens":1}} x`, "x.responses:1: malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fake.Parse(strings.NewReader(tt.in), "x.responses")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	golden, err := os.ReadFile("testdata/example.responses")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden)
	for _, l := range bytes.Split(golden, []byte("\n")) {
		f.Add(l)
	}
	f.Add([]byte(`{"method":"generateContentStream","response":[]}`))
	f.Add([]byte(`{"method":"countTokens","response":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := fake.Parse(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		for _, e := range entries {
			switch e.Method {
			case fake.MethodGenerateContent:
				if e.Response == nil {
					t.Fatalf("generateContent entry without response: %q", data)
				}
			case fake.MethodGenerateContentStream:
				for _, c := range e.Stream {
					if c == nil {
						t.Fatalf("nil chunk from %q", data)
					}
				}
			case fake.MethodCountTokens:
			default:
				t.Fatalf("unexpected method %q", e.Method)
			}
		}
		// Whatever parsed must replay without panicking.
		m := fake.New(entries, false)
		for range entries {
			_, _ = drain(m, req("x"))
			_, _ = m.GenerateContent(context.Background(), req("x"))
			_, _ = m.CountTokens(context.Background(), req("x"))
		}
	})
}

func TestRecorderRoundTrip(t *testing.T) {
	sig := []byte("sig-bytes")
	srv := fakegemini.Start(t,
		fakegemini.Thought("thinking").Then(fakegemini.Call("read_file", map[string]any{"path": "a.go"}).Signed(sig)),
		fakegemini.Text("short answer"),
		fakegemini.Tokens(99),
		fakegemini.Text("a", "b", "c"),
	)
	real, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rec.responses")
	rec, err := fake.Record(real, path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	streamed, err := drain(rec, req("1"))
	if err != nil {
		t.Fatal(err)
	}
	unary, err := rec.GenerateContent(ctx, req("2"))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := rec.CountTokens(ctx, req("3")); err != nil || n != 99 {
		t.Fatalf("CountTokens = %d, %v", n, err)
	}
	// A consumer that stops early gets what it saw recorded.
	for _, err := range rec.GenerateContentStream(ctx, req("4")) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("recorded %d lines:\n%s", len(lines), raw)
	}
	for _, l := range lines {
		var obj struct {
			Method   string          `json:"method"`
			Response json.RawMessage `json:"response"`
		}
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if strings.Contains(l, "responseId") || strings.Contains(l, "sdkHttpResponse") {
			t.Errorf("recorded more than candidates/usage/modelVersion: %s", l)
		}
	}

	replay, err := fake.Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(replay, req("1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(streamed) {
		t.Fatalf("replayed %d chunks, recorded %d", len(got), len(streamed))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i].Candidates, streamed[i].Candidates) || !reflect.DeepEqual(got[i].UsageMetadata, streamed[i].UsageMetadata) || got[i].ModelVersion != streamed[i].ModelVersion {
			t.Errorf("chunk %d differs:\n got %+v\nwant %+v", i, got[i], streamed[i])
		}
	}
	if p := got[1].Candidates[0].Content.Parts[0]; string(p.ThoughtSignature) != string(sig) {
		t.Errorf("signature = %q", p.ThoughtSignature)
	}
	u, err := replay.GenerateContent(ctx, req("2"))
	if err != nil || !reflect.DeepEqual(u.Candidates, unary.Candidates) {
		t.Errorf("unary replay = %+v, %v", u, err)
	}
	if n, err := replay.CountTokens(ctx, req("3")); err != nil || n != 99 {
		t.Errorf("CountTokens replay = %d, %v", n, err)
	}
	partial, err := drain(replay, req("4"))
	if err != nil || len(partial) != 1 {
		t.Errorf("partial replay = %d chunks, %v", len(partial), err)
	}

	// The same file also drives the fake server.
	replies, err := fakegemini.LoadScript(path)
	if err != nil || len(replies) != 4 {
		t.Fatalf("LoadScript = %d, %v", len(replies), err)
	}
}

// failingModel fails every call, to check errors are not recorded.
type failingModel struct{}

var errBoom = errors.New("boom")

func (failingModel) GenerateContent(context.Context, *model.Request) (*genai.GenerateContentResponse, error) {
	return nil, errBoom
}

func (failingModel) GenerateContentStream(context.Context, *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) { yield(nil, errBoom) }
}

func (failingModel) CountTokens(context.Context, *model.Request) (int32, error) { return 0, errBoom }

func TestRecorderSkipsFailures(t *testing.T) {
	var buf bytes.Buffer
	rec := fake.NewRecorder(failingModel{}, &buf)
	if _, err := rec.GenerateContent(context.Background(), req("x")); !errors.Is(err, errBoom) {
		t.Errorf("err = %v", err)
	}
	if _, err := drain(rec, req("x")); !errors.Is(err, errBoom) {
		t.Errorf("err = %v", err)
	}
	if buf.Len() != 0 {
		t.Errorf("recorded failures: %s", buf.String())
	}
}
