package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInterruptedUpdateRecovered: what an update killed between its
// renames leaves (here by an earlier Castor build, whose only whole copy
// was the one moved aside) is repaired by the next start: the extension is
// listed and runs, with one line on stderr saying so, and the working
// folders are gone.
func TestInterruptedUpdateRecovered(t *testing.T) {
	tests := []struct {
		name    string
		leave   func(installed string)
		version string
		says    string
	}{
		{"only the moved-aside copy", func(d string) {
			os.Rename(d, d+".castor-old")
			os.MkdirAll(d+".castor-update", 0o755) // half copied
		}, "1.0.0", "rolled it back"},
		{"whole new copy not yet in place", func(d string) {
			os.Rename(d, d+".castor-old")
			os.MkdirAll(d+".castor-new", 0o755)
			writeFiles(t, d+".castor-new", map[string]string{"gemini-extension.json": `{"name": "my-ext", "version": "2.0.0"}`})
		}, "2.0.0", "finished it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			src := filepath.Join(filepath.Dir(e.ws), "src", "my-ext")
			writeFiles(t, src, map[string]string{"gemini-extension.json": `{"name": "my-ext", "version": "1.0.0"}`})
			if r := e.run("extensions", "install", src, "--consent"); r.code != 0 {
				t.Fatalf("install: %s", r.stderr)
			}
			root := filepath.Join(e.home, ".gemini", "extensions")
			tt.leave(filepath.Join(root, "my-ext"))
			r := e.run("extensions", "list")
			if r.code != 0 || !strings.Contains(r.stdout, "my-ext ("+tt.version+")") {
				t.Fatalf("list after the crash: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
			}
			if n := strings.Count(r.stderr, "an update was interrupted"); n != 1 || !strings.Contains(r.stderr, tt.says) {
				t.Errorf("stderr %q: want one line saying %q", r.stderr, tt.says)
			}
			entries, _ := os.ReadDir(root)
			for _, d := range entries {
				if strings.Contains(d.Name(), ".castor-") && d.IsDir() {
					t.Errorf("left behind: %s", d.Name())
				}
			}
			if r := e.run("extensions", "list"); strings.Contains(r.stderr, "interrupted") {
				t.Errorf("second start repeats the repair: %s", r.stderr)
			}
		})
	}
}
