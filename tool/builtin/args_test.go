package builtin

import (
	"testing"
)

func TestRenameArgs(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]any
		want map[string]any
	}{
		{"renamed", map[string]any{"dir_path": "x"}, map[string]any{"dir_path": "x", "path": "x"}},
		{"declared wins", map[string]any{"dir_path": "x", "path": "y"}, map[string]any{"dir_path": "x", "path": "y"}},
		{"absent", map[string]any{"other": 1}, map[string]any{"other": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(tt.in)
			got := renameArgs(tt.in, map[string]string{"dir_path": "path"})
			if len(tt.in) != before {
				t.Error("renameArgs modified its input")
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
}
