package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/internal/atpath"
)

// fakeClipboard holds an image or text.
type fakeClipboard struct {
	img []byte
	txt string
}

func (fakeClipboard) name() string { return "fake" }
func (f fakeClipboard) image(context.Context) ([]byte, string, error) {
	if f.img == nil {
		return nil, "", nil
	}
	return f.img, "image/png", nil
}
func (f fakeClipboard) text(context.Context) (string, error) { return f.txt, nil }

// Ctrl+V puts a clipboard image in the input as an @path to its copy in
// the project's temporary directory, and clipboard text as text.
func TestCtrlVPastesClipboard(t *testing.T) {
	tests := []struct {
		name string
		clip fakeClipboard
		want string // in the input; "@" for the saved image's path
	}{
		{"image", fakeClipboard{img: []byte("\x89PNG fake")}, "@"},
		{"text", fakeClipboard{txt: "from the clipboard"}, "look:from the clipboard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTestModel(t)
			a := withSession(t, m)
			a.TempDir = t.TempDir()
			m.clip = tt.clip
			m.update(tea.PasteMsg{Content: "look:"})
			cmd := m.update(tea.KeyPressMsg{Code: 'v', Mod: tea.ModCtrl})
			if cmd == nil {
				t.Fatal("Ctrl+V read nothing")
			}
			m.update(cmd())
			got := m.input.Value()
			if tt.want != "@" {
				if got != tt.want {
					t.Errorf("input %q, want %q", got, tt.want)
				}
				return
			}
			parts := atpath.Parse(got)
			var path string
			for _, p := range parts {
				if p.IsRef() {
					path = p.Path
				}
			}
			if !strings.HasPrefix(got, "look: @") || filepath.Dir(path) != filepath.Join(a.TempDir, "images") {
				t.Fatalf("input %q: the reference %q is not in %s", got, path, a.TempDir)
			}
			if data, err := os.ReadFile(path); err != nil || string(data) != string(tt.clip.img) {
				t.Errorf("saved %q, %v", data, err)
			}
		})
	}
}

// A pasted path to an existing file is a dropped file; anything else is
// text.
func TestDroppedPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "my shot (1).png")
	os.WriteFile(file, []byte("x"), 0o600)
	tests := []struct{ paste, want string }{
		{file, file},
		{escapeRef(file), file},
		{"'" + file + "'", file},
		{"file://" + filepath.ToSlash(file), file},
		{"  " + escapeRef(file) + "\n", file},
		{dir, ""},
		{filepath.Join(dir, "missing.png"), ""},
		{"my shot (1).png", ""},
		{file + "\n" + file, ""},
		{"plain words", ""},
	}
	for _, tt := range tests {
		if got := droppedPath(tt.paste); got != tt.want {
			t.Errorf("droppedPath(%q) = %q, want %q", tt.paste, got, tt.want)
		}
	}
	// What insertRef writes is read back whole by the @ parser.
	parts := atpath.Parse("see @" + escapeRef(file) + " now")
	if len(parts) < 2 || parts[1].Path != file {
		t.Errorf("the reference parses as %+v", parts)
	}
}
