package discovered

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestParseDeclarations covers the shapes Gemini CLI accepts and what
// Castor says about the rest.
func TestParseDeclarations(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  []string
		notes []string
		err   string
	}{
		{name: "plain", in: `[{"name":"a"},{"name":"b","description":"B"}]`, want: []string{"a", "b"}},
		{name: "snake", in: `[{"function_declarations":[{"name":"a"}]}]`, want: []string{"a"}},
		{name: "camel", in: `[{"functionDeclarations":[{"name":"a"}]}]`, want: []string{"a"}},
		{name: "snake first", in: `[{"function_declarations":[{"name":"a"}],"functionDeclarations":[{"name":"b"}]}]`, want: []string{"a"}},
		{name: "camel when snake is no array", in: `[{"function_declarations":{},"functionDeclarations":[{"name":"b"}]}]`, want: []string{"b"}},
		{name: "list before name", in: `[{"name":"tool","function_declarations":[{"name":"a"}]}]`, want: []string{"a"}},
		{name: "name when list is no array", in: `[{"name":"a","function_declarations":3}]`, want: []string{"a"}},
		{name: "surrounding space", in: "\n  [ {\"name\": \"a\"} ]\n\n", want: []string{"a"}},
		{name: "nulls", in: `[{"name":"a","description":null,"parametersJsonSchema":null}]`, want: []string{"a"}},
		{name: "allowed characters", in: `[{"name":"a.b:c-d_9"}]`, want: []string{"a.b:c-d_9"}},
		{
			name:  "declared twice",
			in:    `[{"name":"a","description":"first"},{"function_declarations":[{"name":"a","description":"second"}]}]`,
			want:  []string{"a"},
			notes: []string{`tool "a" is declared again (item 2, function_declarations[0]): the later declaration is used`},
		},
		{
			name:  "openapi parameters",
			in:    `[{"name":"a","parameters":{"type":"OBJECT"}}]`,
			want:  []string{"a"},
			notes: []string{`tool "a" (item 1): its parameters are ignored: only parametersJsonSchema is read, so the tool takes no declared arguments`},
		},
		{
			name: "malformed",
			in: `[null, "a", {}, {"name": 3}, {"name": ""}, {"name": "a", "description": 3}, {"name": "a", "parametersJsonSchema": []},
				{"function_declarations": "x"}, {"functionDeclarations": [1, {"name": "ok"}]}, {"name": "` + strings.Repeat("x", 49) + `"}, {"name": "é"}]`,
			want: []string{"ok"},
			notes: []string{
				"item 1 skipped: it is not a JSON object",
				"item 2 skipped: it is not a JSON object",
				"item 3 skipped: it has no name",
				"item 4 skipped: its name is not a string",
				"item 5 skipped: it has no name",
				`tool "a" (item 6) skipped: its description is not a string`,
				`tool "a" (item 7) skipped: its parametersJsonSchema is not a JSON object`,
				"item 8 skipped: function_declarations is not an array",
				"item 9, functionDeclarations[0] skipped: it is not a JSON object",
				`tool "` + strings.Repeat("x", 49) + `" (item 10) skipped: its name is too long (discovered_tool_` + strings.Repeat("x", 49) + ` has 65 characters; the Gemini API allows 64)`,
				`tool "é" (item 11) skipped: its name may only hold letters, digits, '_', '.', ':' and '-'`,
			},
		},
		{name: "empty output", in: " \n", err: "printed nothing; want a JSON array of function declarations"},
		{name: "object", in: `{"name":"a"}`, err: "printed JSON object, not an array of function declarations"},
		{name: "null", in: `null`, err: "printed JSON null, not an array of function declarations"},
		{name: "text", in: `tools: a, b`, err: "printed invalid JSON: invalid character 'o' in literal true (expecting 'r')"},
		{name: "two values", in: `[] []`, err: "printed invalid JSON: invalid character '[' after top-level value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decls, notes, err := ParseDeclarations([]byte(tt.in))
			if got := errText(err); got != tt.err {
				t.Fatalf("error %q, want %q", got, tt.err)
			}
			var got []string
			for _, d := range decls {
				got = append(got, d.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("names %q, want %q", got, tt.want)
			}
			if !slices.Equal(notes, tt.notes) {
				t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(tt.notes, "\n"))
			}
		})
	}
}

// TestParseDeclarationsKeepsLast: of two declarations of a name, the
// second's description and schema are used, in the first's place.
func TestParseDeclarationsKeepsLast(t *testing.T) {
	decls, _, err := ParseDeclarations([]byte(`[{"name":"a","description":"first"},{"name":"b"},{"name":"a","description":"second","parametersJsonSchema":{"type":"object"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(decls) != 2 || decls[0].Name != "a" || decls[0].Description != "second" || decls[0].Schema["type"] != "object" || decls[1].Name != "b" {
		t.Errorf("got %+v", decls)
	}
}

// FuzzParseDeclarations: any output gives an error or usable
// declarations (unique names the API accepts, an object schema) from
// valid JSON, one-line messages, never a panic.
func FuzzParseDeclarations(f *testing.F) {
	for _, s := range []string{
		`[{"name":"a","description":"d","parametersJsonSchema":{"type":"object","properties":{"x":{"type":"string"}}}}]`,
		`[{"function_declarations":[{"name":"a"},{"name":"b"}]},{"functionDeclarations":[{"name":"c"}]}]`,
		`[{"name":"a"},{"name":"a"}]`,
		`[null,1,"x",{},{"name":3},{"name":"a b"},{"name":"a","parametersJsonSchema":[]}]`,
		`{"name":"a"}`,
		`[{"name":"a",`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		decls, notes, err := ParseDeclarations(in)
		if err != nil {
			if decls != nil || notes != nil {
				t.Fatalf("error %v with declarations %v and notes %q", err, decls, notes)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		if !json.Valid(in) {
			t.Fatalf("invalid JSON accepted: %q", in)
		}
		seen := map[string]bool{}
		for _, d := range decls {
			if d.Name == "" || nameProblem(d.Name) != "" || seen[d.Name] {
				t.Fatalf("bad or repeated name %q", d.Name)
			}
			seen[d.Name] = true
			if d.Schema == nil {
				t.Fatalf("%q has no schema", d.Name)
			}
		}
		for _, n := range notes {
			if strings.Contains(n, "\n") {
				t.Fatalf("note of more than one line: %q", n)
			}
		}
	})
}
