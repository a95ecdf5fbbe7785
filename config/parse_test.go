package config

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseJSONC(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		want      any
		line, col int // expected error position; 0 means no error
	}{
		{"plain", `{"a": 1}`, map[string]any{"a": 1.0}, 0, 0},
		{"comments", "// c\n{/* b */\"a\": [1, 2,], // t\n}", map[string]any{"a": []any{1.0, 2.0}}, 0, 0},
		{"bom", "\xef\xbb\xbf{}", map[string]any{}, 0, 0},
		{"duplicate keys keep the last", `{"a": 1, "a": 2}`, map[string]any{"a": 2.0}, 0, 0},
		{"missing comma", "{\n \"a\": 1\n \"b\": 2}", nil, 3, 2},
		{"unterminated", `{"a": `, nil, 1, 7},
		{"bad literal", `{"a": tru}`, nil, 1, 7},
		{"empty", ``, nil, 1, 1},
		{"huge number", `{"a": 1e999}`, nil, 1, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseJSONC([]byte(tt.in))
			if tt.line == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("got %#v, want %#v", got, tt.want)
				}
				return
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want *FileError", err)
			}
			if fe.Line != tt.line || fe.Column != tt.col {
				t.Errorf("position = %d:%d, want %d:%d (%v)", fe.Line, fe.Column, tt.line, tt.col, err)
			}
		})
	}
}

func TestMigrateV1(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]any
	}{
		{
			name: "v2 file untouched",
			in:   `{"model": {"name": "m"}, "mcpServers": {}}`,
			want: map[string]any{"model": map[string]any{"name": "m"}, "mcpServers": map[string]any{}},
		},
		{
			name: "flat keys nest, unknown keys carry over",
			in:   `{"model": "m", "sandbox": "docker", "somethingNew": 1}`,
			want: map[string]any{
				"model":        map[string]any{"name": "m"},
				"tools":        map[string]any{"sandbox": "docker"},
				"somethingNew": 1.0,
			},
		},
		{
			name: "flat and nested halves merge",
			in:   `{"excludeTools": ["a"], "tools": {"exclude": ["b"], "core": ["c"]}}`,
			want: map[string]any{"tools": map[string]any{"exclude": []any{"a", "b"}, "core": []any{"c"}}},
		},
		{
			name: "chat compression object becomes a number",
			in:   `{"chatCompression": {"contextPercentageThreshold": 0.6}}`,
			want: map[string]any{"model": map[string]any{"compressionThreshold": 0.6}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseSettings([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// FuzzParseSettings checks that no input makes the settings parser panic
// and that whatever it accepts is an object that survives merging and
// expansion.
func FuzzParseSettings(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"model": "m", "coreTools": ["a"], "tools": {"core": ["b"]}}`,
		"// c\n{\"a\": [1, 2,], /* x */ \"b\": {\"c\": \"$X ${Y:-z}\"},}",
		`{"general": {"disableAutoUpdate": true}, "tools": {"approvalMode": "yolo"}, "experimental": {"plan": 1}}`,
		`{"chatCompression": {"contextPercentageThreshold": "x"}, "mcpServers": {"a": null}}`,
		`{"ui": {"accessibility": {"disableLoadingPhrases": true}}}`,
		`[1]`, `"s"`, `{"a":`, "\xef\xbb\xbf{}", `{"a": 1e999}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := parseSettings(data)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FileError", err)
			}
			return
		}
		if obj == nil {
			t.Fatal("nil object without error")
		}
		expanded := expandTree(obj, EnvMap(map[string]string{"X": "x"})).(map[string]any)
		merged := mergeLayers(expanded, expanded)
		s := &Settings{merged: merged}
		s.fillTyped()
		_ = s.Raw()
	})
}
