package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/tool"
)

const smartSource = "package p\n\nfunc f() int {\n\tif ready {\n\t\treturn 1\n\t}\n\treturn 0\n}\n"

func TestSmartEdit(t *testing.T) {
	noMatch := "Could not find an exact match for 'old_string' in 'p.go'. If previous edits modified the file or you are modifying lines outside your recent read window, please use ReadFile to inspect the target lines before retrying with an exact 'old_string'."
	fixJSON := func(search, repl string, noChange bool) string {
		if noChange {
			return `{"search":"","replace":"","explanation":"the value is already 2","noChangesRequired":true}`
		}
		return `{"search":` + auxJSONQuote(search) + `,"replace":` + auxJSONQuote(repl) + `,"explanation":"indentation differed","noChangesRequired":false}`
	}
	tests := []struct {
		name      string
		file      string // p.go content; "" uses smartSource
		fileName  string
		args      map[string]any
		model     *auxFakeModel
		want      string
		wantErr   tool.ErrorType
		wantFile  string
		wantCalls int
	}{
		{
			name:     "exact match",
			args:     map[string]any{"old_string": "return 1", "new_string": "return 2"},
			want:     "Successfully modified file: <ABS> (1 replacements).",
			wantFile: strings.Replace(smartSource, "return 1", "return 2", 1),
		},
		{
			name:     "flexible match re-indents",
			args:     map[string]any{"old_string": "if ready {\n    return 1\n}", "new_string": "if ready {\n    return 2\n}"},
			want:     "Successfully modified file: <ABS> (1 replacements).",
			wantFile: "package p\n\nfunc f() int {\n\tif ready {\n\t    return 2\n\t}\n\treturn 0\n}\n",
		},
		{
			name:    "no match and no model",
			args:    map[string]any{"old_string": "return 42", "new_string": "return 43"},
			want:    noMatch,
			wantErr: tool.ErrEditNoOccurrenceFound,
		},
		{
			name:      "model corrects the search",
			args:      map[string]any{"old_string": "retrun 1", "new_string": "return 2"},
			model:     auxAnswer(fixJSON("\t\treturn 1", "\t\treturn 2", false), nil),
			want:      "Successfully modified file: <ABS> (1 replacements).",
			wantFile:  strings.Replace(smartSource, "return 1", "return 2", 1),
			wantCalls: 1,
		},
		{
			name:      "model answer in a json fence",
			args:      map[string]any{"old_string": "retrun 1", "new_string": "return 2"},
			model:     auxAnswer("```json\n"+fixJSON("return 1", "return 2", false)+"\n```", nil),
			want:      "Successfully modified file: <ABS> (1 replacements).",
			wantFile:  strings.Replace(smartSource, "return 1", "return 2", 1),
			wantCalls: 1,
		},
		{
			name:      "model says nothing to do",
			args:      map[string]any{"old_string": "return 7", "new_string": "return 2"},
			model:     auxAnswer(fixJSON("", "", true), nil),
			want:      "A secondary check by an LLM determined that no changes were necessary to fulfill the instruction. Explanation: the value is already 2. Original error with the parameters given: " + noMatch,
			wantErr:   tool.ErrEditNoChangeLLMJudgement,
			wantCalls: 1,
		},
		{
			name:      "correction that still does not match",
			args:      map[string]any{"old_string": "return 7", "new_string": "return 2"},
			model:     auxAnswer(fixJSON("return 8", "return 2", false), nil),
			want:      noMatch,
			wantErr:   tool.ErrEditNoOccurrenceFound,
			wantCalls: 1,
		},
		{
			name:      "unusable model answer",
			args:      map[string]any{"old_string": "return 7", "new_string": "return 2"},
			model:     auxAnswer("I cannot help with that.", nil),
			want:      noMatch,
			wantErr:   tool.ErrEditNoOccurrenceFound,
			wantCalls: 1,
		},
		{
			name:      "model error",
			args:      map[string]any{"old_string": "return 7", "new_string": "return 2"},
			model:     auxFailing(errors.New("503")),
			want:      noMatch,
			wantErr:   tool.ErrEditNoOccurrenceFound,
			wantCalls: 1,
		},
		{
			name:      "JSON files are not corrected",
			file:      `{"a": 1}`,
			fileName:  "p.json",
			args:      map[string]any{"old_string": `"a":1`, "new_string": `"a":2`},
			model:     auxAnswer(fixJSON(`"a": 1`, `"a": 2`, false), nil),
			want:      strings.Replace(noMatch, "p.go", "p.json", 1),
			wantErr:   tool.ErrEditNoOccurrenceFound,
			wantCalls: 0,
		},
		{
			name:    "several matches without expected_replacements",
			args:    map[string]any{"old_string": "return", "new_string": "yield"},
			want:    "Failed to edit, Expected 1 occurrence but found 2 for old_string in file: <PATH>",
			wantErr: tool.ErrEditExpectedOccurrenceMismatch,
		},
		{
			name:     "expected_replacements",
			args:     map[string]any{"old_string": "return", "new_string": "yield", "expected_replacements": 2},
			want:     "Successfully modified file: <ABS> (2 replacements).",
			wantFile: strings.ReplaceAll(smartSource, "return", "yield"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, dir := auxTestEnv(t)
			name := tc.fileName
			if name == "" {
				name = "p.go"
			}
			content := tc.file
			if content == "" {
				content = smartSource
			}
			p := fsWrite(t, dir, name, content)
			if tc.model != nil {
				env.Model = tc.model
			}
			args := map[string]any{"file_path": p, "instruction": "Make f return 2 when ready."}
			for k, v := range tc.args {
				args[k] = v
			}
			r := fsRun(t, NewSmartEdit(env), args)
			want := strings.NewReplacer("<ABS>", p, "<PATH>", p).Replace(tc.want)
			if tc.wantErr != "" {
				auxErrorIs(t, r, tc.wantErr, want)
			} else {
				if r.Error != nil {
					t.Fatalf("error %s %q", r.Error.Type, r.Error.Message)
				}
				if !strings.HasPrefix(r.LLMText, want+" Here is the updated code:\n") {
					t.Errorf("LLMText = %q, want prefix %q", r.LLMText, want)
				}
			}
			wantFile := tc.wantFile
			if wantFile == "" {
				wantFile = content
			}
			if got := fsRead(t, p); got != wantFile {
				t.Errorf("file = %q\nwant   %q", got, wantFile)
			}
			if tc.model != nil {
				if n := len(tc.model.requests()); n != tc.wantCalls {
					t.Errorf("%d model calls, want %d", n, tc.wantCalls)
				}
			}
		})
	}
}

func TestSmartEditCorrectionRequest(t *testing.T) {
	env, dir := auxTestEnv(t)
	p := fsWrite(t, dir, "p.go", smartSource)
	m := auxAnswer(`{"search":"\t\treturn 1","replace":"\t\treturn 2","explanation":"tabs"}`, nil)
	env.Model = m
	c, err := fsPrepare(NewSmartEdit(env), "", map[string]any{
		"file_path": p, "instruction": "Return 2 when ready.", "old_string": "  return 1;", "new_string": "  return 2;",
	})
	if err != nil {
		t.Fatal(err)
	}
	// Confirming and then executing asks the model once.
	d, _ := c.Confirmation(context.Background())
	if d == nil || d.NewContent != strings.Replace(smartSource, "return 1", "return 2", 1) {
		t.Fatalf("confirmation = %+v", d)
	}
	r := c.Execute(context.Background(), nil)
	if r.Error != nil {
		t.Fatalf("error %v", r.Error)
	}
	reqs := m.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	req := reqs[0]
	if req.Model != "test-model" {
		t.Errorf("model %q", req.Model)
	}
	cfg := req.Config
	if cfg.ResponseMIMEType != "application/json" || cfg.ResponseJsonSchema == nil || cfg.SystemInstruction == nil {
		t.Errorf("config = %+v", cfg)
	}
	text := auxRequestText(req)
	for _, want := range []string{"Return 2 when ready.", "  return 1;", "  return 2;", "Could not find an exact match for 'old_string' in 'p.go'", smartSource} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
}

func TestSmartEditNoModelCallWhenMatched(t *testing.T) {
	env, dir := auxTestEnv(t)
	p := fsWrite(t, dir, "p.go", smartSource)
	m := &auxFakeModel{respond: func(int, *model.Request) (*genai.GenerateContentResponse, error) {
		t.Error("model called for a matching edit")
		return nil, errors.New("unexpected")
	}}
	env.Model = m
	r := fsRun(t, NewSmartEdit(env), map[string]any{"file_path": p, "instruction": "i", "old_string": "return 0", "new_string": "return -1"})
	if r.Error != nil {
		t.Fatal(r.Error)
	}
}

func TestSmartEditDeclaration(t *testing.T) {
	tl := NewSmartEdit(nil)
	s := tl.Schema()
	req, _ := s["required"].([]any)
	if tl.Name() != "smart_edit" || len(req) != 4 || req[1] != "instruction" {
		t.Errorf("name %q required %v", tl.Name(), req)
	}
	if _, err := fsPrepare(tl, "", map[string]any{"file_path": "a", "old_string": "x", "new_string": "y"}); err == nil || err.Message != "params must have required property 'instruction'" {
		t.Errorf("missing instruction: %v", err)
	}
}

// auxJSONQuote quotes s as a JSON string.
func auxJSONQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
