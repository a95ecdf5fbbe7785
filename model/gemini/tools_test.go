package gemini

import (
	"context"
	"encoding/json"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
)

func TestToolsEncodedOnceAndExactly(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Text("a"), fakegemini.Text("b"), fakegemini.Text("c"))
	m, err := New(context.Background(), Config{APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	read := &genai.FunctionDeclaration{Name: "read_file", Description: "reads", ParametersJsonSchema: map[string]any{"type": "object"}}
	write := &genai.FunctionDeclaration{Name: "write_file", Description: "writes", ParametersJsonSchema: map[string]any{"type": "object", "required": []any{"file_path"}}}
	send := func(decls ...*genai.FunctionDeclaration) string {
		t.Helper()
		req := &model.Request{Model: "gemini-2.5-pro", Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)},
			Config: &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: decls}}}}
		for _, err := range m.GenerateContentStream(context.Background(), req) {
			if err != nil {
				t.Fatal(err)
			}
		}
		var body struct {
			Tools json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(srv.LastRequest().Body, &body); err != nil {
			t.Fatal(err)
		}
		return string(body.Tools)
	}
	want := func(decls ...*genai.FunctionDeclaration) string {
		b, _ := json.Marshal([]*genai.Tool{{FunctionDeclarations: decls}})
		return string(b)
	}
	if got := send(read); got != want(read) {
		t.Errorf("first call tools = %s, want %s", got, want(read))
	}
	if got := send(read); got != want(read) {
		t.Errorf("cached call tools = %s", got)
	}
	if got := send(read, write); got != want(read, write) {
		t.Errorf("changed declarations were not re-encoded: %s", got)
	}
	if d := srv.LastRequest().FunctionDeclarations(); len(d) != 2 || d[1].Name != "write_file" {
		t.Errorf("decoded declarations = %v", d)
	}
}
