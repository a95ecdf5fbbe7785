package tool

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWorkspaceAddedThroughSymlink: a workspace directory given by a link
// contains what lies under the link and under the directory it points to,
// and nothing beside either.
func TestWorkspaceAddedThroughSymlink(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	w := NewWorkspace(link)
	tests := []struct {
		path string
		want bool
	}{
		{link, true},
		{filepath.Join(link, "sub", "a.txt"), true},
		{real, true},
		{filepath.Join(real, "sub", "a.txt"), true},
		{filepath.Join(real, "new.txt"), true},
		{filepath.Join(root, "other", "a.txt"), false},
		{root, false},
	}
	for _, tt := range tests {
		if got := w.Contains(tt.path); got != tt.want {
			t.Errorf("Contains(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
	if got := w.Dirs(); len(got) != 1 || got[0] != link {
		t.Errorf("Dirs = %v, want the link as given", got)
	}
}
