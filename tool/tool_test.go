package tool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"
)

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestFunctionResponseParts(t *testing.T) {
	img := &genai.Part{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{1, 2}}}
	tests := []struct {
		name string
		res  *Result
		want string
	}{
		{"string", Text("hello"), `[{"functionResponse":{"id":"c1","name":"t","response":{"output":"hello"}}}]`},
		{"error", Fail(ErrFileNotFound, "File not found: /x"), `[{"functionResponse":{"id":"c1","name":"t","response":{"error":"File not found: /x"}}}]`},
		{"part list", &Result{LLMParts: []*genai.Part{{Text: "a"}, img}},
			`[{"functionResponse":{"id":"c1","name":"t","response":{"output":"Tool execution succeeded."}}},{"text":"a"},{"inlineData":{"data":"AQI=","mimeType":"image/png"}}]`},
		{"single inline part", &Result{LLMPart: img},
			`[{"functionResponse":{"id":"c1","name":"t","response":{"output":"Binary content of type image/png was processed."}}},{"inlineData":{"data":"AQI=","mimeType":"image/png"}}]`},
		{"single functionResponse is re-keyed", &Result{LLMPart: &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: "other", Name: "x", Response: map[string]any{"output": "inner"}}}},
			`[{"functionResponse":{"id":"c1","name":"t","response":{"output":"inner"}}}]`},
		{"single text part", &Result{LLMPart: &genai.Part{Text: "just text"}}, `[{"functionResponse":{"id":"c1","name":"t","response":{"output":"just text"}}}]`},
		{"nil result", nil, `[{"functionResponse":{"id":"c1","name":"t","response":{"output":""}}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := js(FunctionResponseParts("c1", "t", tt.res)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

type fakeTool struct {
	name    string
	aliases []string
}

func (f fakeTool) Name() string        { return f.name }
func (f fakeTool) DisplayName() string { return f.name }
func (f fakeTool) Description() string { return "" }
func (f fakeTool) Kind() Kind          { return KindRead }
func (f fakeTool) Schema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"p": map[string]any{"type": "string"}}, "required": []any{"p"}}
}
func (f fakeTool) Build(args map[string]any) (Call, error) {
	return nil, Errorf(ErrInvalidParams, "bad p")
}
func (f fakeTool) Aliases() []string { return f.aliases }

func TestRegistry(t *testing.T) {
	r := NewRegistry(fakeTool{name: "read_file"}, fakeTool{name: "grep_search", aliases: []string{"search_file_content"}}, fakeTool{name: "glob"})
	if _, ok := r.Get("search_file_content"); !ok {
		t.Error("alias not resolved")
	}
	_, _, err := r.Prepare("red_file", nil, nil)
	if err == nil || err.Type != ErrToolNotRegistered || err.Message != `Tool "red_file" not found. Did you mean one of: "read_file", "grep_search", "glob"?` {
		t.Errorf("not found = %+v", err)
	}
	_, _, err = r.Prepare("glob", map[string]any{}, nil)
	if err == nil || err.Message != "params must have required property 'p'" {
		t.Errorf("invalid = %+v", err)
	}
	_, _, err = r.Prepare("glob", map[string]any{"p": "x"}, nil)
	if err == nil || err.Message != "bad p" {
		t.Errorf("build error = %+v", err)
	}
	r.Unregister("glob")
	if _, ok := r.Get("glob"); ok || len(r.Names()) != 2 {
		t.Errorf("unregister: %v", r.Names())
	}
}

func TestWorkspaceContains(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	outside := filepath.Join(root, "outside")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	os.MkdirAll(outside, 0o755)
	os.Symlink(outside, filepath.Join(ws, "link"))
	w := NewWorkspace(ws)
	tests := []struct {
		path string
		want bool
	}{
		{ws, true},
		{filepath.Join(ws, "sub", "new.txt"), true},
		{filepath.Join(ws, "..", "outside", "x"), false},
		{filepath.Join(outside, "x"), false},
		{filepath.Join(ws, "link", "x"), false},
		{ws + "-sibling", false},
	}
	for _, tt := range tests {
		if got := w.Contains(filepath.Clean(tt.path)); got != tt.want {
			t.Errorf("Contains(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
	if got := w.Resolve("sub/a.txt"); got != filepath.Join(ws, "sub", "a.txt") {
		t.Errorf("Resolve = %s", got)
	}
}

func TestNewFileDiff(t *testing.T) {
	orig := "a\nb\nc\n"
	d := NewFileDiff("/w/f.txt", &orig, "a\nB\nc\nd\n", "a\nB\nc\nd\ne\n")
	if d.FileName != "f.txt" || d.DiffStat.ModelAddedLines != 2 || d.DiffStat.ModelRemovedLines != 1 || d.DiffStat.UserAddedLines != 1 {
		t.Errorf("diff = %+v stat %+v", d, d.DiffStat)
	}
	if !strings.Contains(d.FileDiff, "+e") || !strings.Contains(d.FileDiff, "f.txt\tProposed") {
		t.Errorf("unified diff:\n%s", d.FileDiff)
	}
}

// TestCountDiffLines: lines added and removed, and their characters
// without the diff's +/- marks or line ends.
func TestCountDiffLines(t *testing.T) {
	tests := []struct {
		old, new                                 string
		added, removed, addedChars, removedChars int
	}{
		{"", "", 0, 0, 0, 0},
		{"a\n", "a\n", 0, 0, 0, 0},
		{"", "abc\nde\n", 2, 0, 5, 0},
		{"abc\nde\n", "", 0, 2, 0, 5},
		{"keep\nold line\n", "keep\nnew\n", 1, 1, 3, 8},
		{"x\n", "x\n\n", 1, 0, 0, 0},
	}
	for _, tt := range tests {
		a, r, ac, rc := CountDiffLines(tt.old, tt.new)
		if a != tt.added || r != tt.removed || ac != tt.addedChars || rc != tt.removedChars {
			t.Errorf("CountDiffLines(%q, %q) = %d, %d, %d, %d; want %d, %d, %d, %d",
				tt.old, tt.new, a, r, ac, rc, tt.added, tt.removed, tt.addedChars, tt.removedChars)
		}
	}
}

// TestResponseText: what displays and records show of a result.
func TestResponseText(t *testing.T) {
	img := &genai.Part{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{1}}}
	file := &genai.Part{FileData: &genai.FileData{MIMEType: "application/pdf", FileURI: "gs://b/f.pdf"}}
	tests := []struct {
		name string
		res  *Result
		want string
	}{
		{"error", Fail(ErrFileNotFound, "File not found: /x"), "File not found: /x"},
		{"text", Text("hello"), "hello"},
		{"text part", &Result{LLMPart: &genai.Part{Text: "t"}}, "t"},
		{"inline data", &Result{LLMPart: img}, "[image/png data]"},
		{"file data", &Result{LLMPart: file}, "[application/pdf file gs://b/f.pdf]"},
		{"empty part", &Result{LLMPart: &genai.Part{}}, ""},
		{"parts, one a line", &Result{LLMParts: []*genai.Part{{Text: "a"}, img, file}}, "a\n[image/png data]\n[application/pdf file gs://b/f.pdf]"},
	}
	for _, tt := range tests {
		if got := tt.res.ResponseText(); got != tt.want {
			t.Errorf("%s: ResponseText = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestRecordCheckpoint: a checkpoint's name reaches the recorder of the
// call's context; an empty name, or a context without one, records nothing.
func TestRecordCheckpoint(t *testing.T) {
	var got []string
	ctx := WithCheckpointRecorder(context.Background(), func(name string) { got = append(got, name) })
	RecordCheckpoint(ctx, "cp-1")
	RecordCheckpoint(ctx, "")
	RecordCheckpoint(context.Background(), "lost")
	if strings.Join(got, ",") != "cp-1" {
		t.Errorf("recorded %q, want [cp-1]", got)
	}
}

// TestNotFound: the three names closest to the one called, nearest first
// (ties in the candidates' order); no suggestion when there is none.
func TestNotFound(t *testing.T) {
	tests := []struct {
		name       string
		candidates []string
		want       string
	}{
		{"read_fil", nil, `Tool "read_fil" not found.`},
		{"read_fil", []string{}, `Tool "read_fil" not found.`},
		{"read_fil", []string{"glob"}, `Tool "read_fil" not found. Did you mean one of: "glob"?`},
		{"read_fil", []string{"write_file", "glob", "read_file", "read_many_files"},
			`Tool "read_fil" not found. Did you mean one of: "read_file", "write_file", "read_many_files"?`},
	}
	for _, tt := range tests {
		err := NotFound(tt.name, tt.candidates)
		if err.Type != ErrToolNotRegistered || err.Message != tt.want {
			t.Errorf("NotFound(%q, %q) = %s %q, want %q", tt.name, tt.candidates, err.Type, err.Message, tt.want)
		}
	}
}
