package config

import "testing"

func TestFileOf(t *testing.T) {
	s := &Settings{Files: []LayerFile{
		{Path: "user.json", Exists: true, Raw: map[string]any{"mcpServers": map[string]any{"a": 1, "b": 2}}},
		{Path: "skipped.json", Exists: true, Skipped: "untrusted", Raw: map[string]any{"mcpServers": map[string]any{"c": 3}}},
		{Path: "project.json", Exists: true, Raw: map[string]any{"mcpServers": map[string]any{"b": 4}, "model": "flash"}},
		{Path: "missing.json"},
	}}
	tests := []struct {
		path []string
		want string
	}{
		{[]string{"mcpServers", "a"}, "user.json"},
		{[]string{"mcpServers", "b"}, "project.json"},
		{[]string{"mcpServers", "c"}, ""},
		{[]string{"mcpServers"}, "project.json"},
		{[]string{"model", "name"}, ""},
		{[]string{"nothing"}, ""},
	}
	for _, tt := range tests {
		if got := s.FileOf(tt.path...); got != tt.want {
			t.Errorf("FileOf(%v) = %q, want %q", tt.path, got, tt.want)
		}
	}
	if got := (*Settings)(nil).FileOf("x"); got != "" {
		t.Errorf("nil settings: %q", got)
	}
}

// TestTypeWarningNamesFile: a setting of the wrong type is reported with
// the file that sets it.
func TestTypeWarningNamesFile(t *testing.T) {
	s := &Settings{Files: []LayerFile{{Path: "/p/settings.json", Exists: true, Raw: map[string]any{"model": map[string]any{"maxSessionTurns": "ten"}}}}}
	if got := s.whereIs("model.maxSessionTurns"); got != "/p/settings.json" {
		t.Errorf("whereIs = %q", got)
	}
	if got := s.whereIs("model.name"); got != "settings" {
		t.Errorf("whereIs unset = %q", got)
	}
}
