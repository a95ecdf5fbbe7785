package outschema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const personSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string"},
    "age": {"type": "integer", "minimum": 0}
  },
  "required": ["name", "age"],
  "additionalProperties": false
}`

func TestValidate(t *testing.T) {
	o, err := Compile(personSchema)
	if err != nil {
		t.Fatal(err)
	}
	if o.Schema.(map[string]any)["type"] != "object" {
		t.Errorf("the wire schema is not the document: %v", o.Schema)
	}
	tests := []struct {
		answer, wantErr string
	}{
		{`{"name": "Ada", "age": 36}`, ""},
		{"\n  {\"name\": \"Ada\", \"age\": 36}\n", ""},
		{`{"name": "Ada"}`, "age"},
		{`{"name": "Ada", "age": -1}`, "minimum"},
		{`{"name": "Ada", "age": 3.5}`, "integer"},
		{`{"name": "Ada", "age": 1, "x": 1}`, "x"},
		{`Here it is: {"name": "Ada", "age": 36}`, "not JSON"},
		{`{"name": "Ada", "age": 36} {}`, "more than one JSON value"},
		{``, "empty"},
	}
	for _, tt := range tests {
		err := o.Validate(tt.answer)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("Validate(%q) = %v", tt.answer, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Validate(%q) = %v, want it to mention %q", tt.answer, err, tt.wantErr)
		}
	}
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"type": `), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ file, want string }{
		{bad, "--output-schema " + bad + ": not a JSON Schema object"},
		{filepath.Join(dir, "missing.json"), "missing.json"},
	}
	for _, tt := range tests {
		if _, err := Load(tt.file); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%s) = %v, want %q", tt.file, err, tt.want)
		}
	}
	if _, err := Compile(map[string]any{"type": 3}); err == nil {
		t.Error("a schema whose type is a number was accepted")
	}
}
