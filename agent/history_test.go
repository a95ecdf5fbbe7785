package agent

import (
	"testing"

	"google.golang.org/genai"
)

// TestCurateModelContent: what of a streamed model turn is kept in
// history.
func TestCurateModelContent(t *testing.T) {
	call := func(name string, sig string) *genai.Part {
		p := genai.NewPartFromFunctionCall(name, nil)
		if sig != "" {
			p.ThoughtSignature = []byte(sig)
		}
		return p
	}
	thought := func(text, sig string) *genai.Part {
		return &genai.Part{Text: text, Thought: true, ThoughtSignature: []byte(sig)}
	}
	blob := &genai.Part{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{1}}}
	file := &genai.Part{FileData: &genai.FileData{FileURI: "gs://b/f", MIMEType: "text/plain"}}
	code := &genai.Part{ExecutableCode: &genai.ExecutableCode{Code: "print(1)", Language: genai.LanguagePython}}
	result := &genai.Part{CodeExecutionResult: &genai.CodeExecutionResult{Outcome: genai.OutcomeOK, Output: "1"}}
	tests := []struct {
		name  string
		parts []*genai.Part
		want  []*genai.Part // nil: no content at all
	}{
		{"nothing", nil, nil},
		{"only thoughts and empty text", []*genai.Part{thought("hm", "s"), {Text: ""}, nil}, nil},
		{"texts merge", []*genai.Part{{Text: "a"}, {Text: "b"}, {Text: "c"}}, []*genai.Part{{Text: "abc"}}},
		{"a text with a signature starts a part", []*genai.Part{{Text: "a"}, {Text: "b", ThoughtSignature: []byte("s")}},
			[]*genai.Part{{Text: "a"}, {Text: "b", ThoughtSignature: []byte("s")}}},
		{"no merging into a call", []*genai.Part{call("f", "x"), {Text: "b"}}, []*genai.Part{call("f", "x"), {Text: "b"}}},
		{"a thought's signature moves to the next call", []*genai.Part{thought("t", "sig"), {Text: "a"}, call("f", ""), call("g", "")},
			[]*genai.Part{{Text: "a"}, call("f", "sig"), call("g", "")}},
		{"a call's own signature wins", []*genai.Part{thought("t", "sig"), call("f", "own")}, []*genai.Part{call("f", "own")}},
		{"a thought without a signature carries nothing", []*genai.Part{thought("t", ""), call("f", "")}, []*genai.Part{call("f", "")}},
		{"inline data", []*genai.Part{blob}, []*genai.Part{blob}},
		{"file data", []*genai.Part{file}, []*genai.Part{file}},
		{"executable code", []*genai.Part{code}, []*genai.Part{code}},
		{"code execution result", []*genai.Part{result}, []*genai.Part{result}},
		{"text around data", []*genai.Part{{Text: "a"}, blob, {Text: "b"}}, []*genai.Part{{Text: "a"}, blob, {Text: "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := curateModelContent(tt.parts)
			if tt.want == nil {
				if got != nil {
					t.Fatalf("got %s, want nil", mustJSON(got))
				}
				return
			}
			want := &genai.Content{Role: genai.RoleModel, Parts: tt.want}
			if got == nil || mustJSON(got) != mustJSON(want) {
				t.Errorf("got  %s\nwant %s", mustJSON(got), mustJSON(want))
			}
		})
	}
}

// TestEnsureThoughtSignature: Gemini 3 models and Gemini CLI's aliases for
// them get a signature on a turn's first call when it has none.
func TestEnsureThoughtSignature(t *testing.T) {
	synthetic := string(syntheticThoughtSignature)
	tests := []struct {
		model string
		sigs  []string // of the turn's two calls
		want  []string
	}{
		{"gemini-3-pro-preview", []string{"", ""}, []string{synthetic, ""}},
		{"auto", []string{"", ""}, []string{synthetic, ""}},
		{"pro", []string{"", ""}, []string{synthetic, ""}},
		{"flash", []string{"", ""}, []string{synthetic, ""}},
		{"flash-lite", []string{"", ""}, []string{synthetic, ""}},
		{"gemini-3-flash", []string{"own", ""}, []string{"own", ""}},
		{"gemini-2.5-pro", []string{"", ""}, []string{"", ""}},
		{"auto-gemini-2.5", []string{"", ""}, []string{"", ""}},
		{"", []string{"", ""}, []string{"", ""}},
	}
	for _, tt := range tests {
		c := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "x"}}}
		for i, s := range tt.sigs {
			p := genai.NewPartFromFunctionCall(string(rune('f'+i)), nil)
			if s != "" {
				p.ThoughtSignature = []byte(s)
			}
			c.Parts = append(c.Parts, p)
		}
		ensureThoughtSignature(tt.model, c)
		if c.Parts[0].ThoughtSignature != nil {
			t.Errorf("%s: text part signed", tt.model)
		}
		for i, want := range tt.want {
			if got := string(c.Parts[1+i].ThoughtSignature); got != want {
				t.Errorf("%s: call %d signature %q, want %q", tt.model, i, got, want)
			}
		}
	}
	ensureThoughtSignature("gemini-3-pro", nil) // no content: nothing to do
}
