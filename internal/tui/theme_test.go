package tui

import "testing"

func TestFindPalette(t *testing.T) {
	custom, bad := customPalettes(map[string]any{
		"Mine":   map[string]any{"name": "My Theme", "AccentBlue": "#123456", "Background": "#ffffff"},
		"Nested": map[string]any{"text": map[string]any{"accent": "#abcdef"}},
		"Broken": "red",
	})
	if len(bad) != 1 {
		t.Errorf("problems %v, want one for Broken", bad)
	}
	tests := []struct {
		name     string
		found    bool
		want     string // the palette's name
		blue     string
		wantDark bool
	}{
		{"Dracula", true, "Dracula", "#8be9fd", true},
		{"github light", true, "GitHub Light", "#445588", false},
		{"My Theme", true, "My Theme", "#123456", false},
		{"Nested", true, "Nested", "#abcdef", true},
		{"Monokai", false, "", "", false},
	}
	for _, tt := range tests {
		p, ok := findPalette(tt.name, custom)
		if ok != tt.found || p.name != tt.want || p.blue != tt.blue || (ok && p.dark != tt.wantDark) {
			t.Errorf("%s: %+v %v", tt.name, p, ok)
		}
	}
}

func TestSetThemeByName(t *testing.T) {
	m, _ := newTestModel(t)
	if !m.setTheme("Solarized Light") || m.theme.name != "Solarized Light" || m.theme.dark {
		t.Fatalf("theme %+v", m.theme.name)
	}
	if m.setTheme("nope") {
		t.Error("an unknown theme was accepted")
	}
	if !m.setTheme("NoColor") || !m.theme.plain {
		t.Error("NoColor is not plain")
	}
}
