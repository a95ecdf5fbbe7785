package builtin

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/textutil"
	"github.com/castor-dev/castor/tool"
)

// fsGlob returns a glob tool whose clock is fixed at now.
func fsGlob(env *Env, now time.Time) tool.Tool {
	return &globTool{env: env, now: func() time.Time { return now }}
}

func TestGlob(t *testing.T) {
	env, ws := fsTestEnv(t)
	now := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	files := map[string]time.Time{
		"README.md":                now.Add(-48 * time.Hour),
		"docs/b.md":                now.Add(-72 * time.Hour),
		"docs/A.MD":                now.Add(-96 * time.Hour),
		"docs/new.md":              now.Add(-1 * time.Hour),
		"docs/newer.md":            now.Add(-10 * time.Minute),
		"src/main.go":              now.Add(-100 * time.Hour),
		"src/util/u.go":            now.Add(-100 * time.Hour),
		".github/ci.md":            now.Add(-100 * time.Hour),
		"node_modules/pkg/x.md":    now.Add(-1 * time.Minute),
		".git/HEAD.md":             now.Add(-1 * time.Minute),
		"dist/out.md":              now.Add(-100 * time.Hour),
		"app[1].md":                now.Add(-100 * time.Hour),
		"deep/a/b/c/d/e/f/deep.md": now.Add(-100 * time.Hour),
	}
	for rel, mt := range files {
		p := fsWrite(t, ws, rel, "x")
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	fsWithFilter(env, "dist")

	tests := []struct {
		name    string
		args    map[string]any
		golden  string
		want    string
		display string
	}{
		{name: "recursive markdown", args: map[string]any{"pattern": "**/*.md"}, golden: "glob/recursive.golden", display: "Found 8 matching file(s)"},
		{name: "case sensitive", args: map[string]any{"pattern": "docs/*.md", "case_sensitive": true}, golden: "glob/case_sensitive.golden", display: "Found 3 matching file(s)"},
		{name: "case insensitive by default", args: map[string]any{"pattern": "DOCS/*.md"}, golden: "glob/case_insensitive.golden", display: "Found 4 matching file(s)"},
		{name: "within a path", args: map[string]any{"pattern": "*.go", "path": "src"}, want: "Found 1 file(s) matching \"*.go\" within <WS>/src, sorted by modification time (newest first):\n<WS>/src/main.go", display: "Found 1 matching file(s)"},
		{name: "dir_path spelling", args: map[string]any{"pattern": "**/*.go", "dir_path": "src"}, want: "Found 2 file(s) matching \"**/*.go\" within <WS>/src, sorted by modification time (newest first):\n<WS>/src/main.go\n<WS>/src/util/u.go", display: "Found 2 matching file(s)"},
		{name: "literal name with metacharacters", args: map[string]any{"pattern": "app[1].md"}, want: "Found 1 file(s) matching \"app[1].md\" within <WS>, sorted by modification time (newest first):\n<WS>/app[1].md", display: "Found 1 matching file(s)"},
		{name: "no match", args: map[string]any{"pattern": "**/*.nothing"}, want: "No files found matching pattern \"**/*.nothing\" within <WS>", display: "No files found"},
		{name: "only ignored matches", args: map[string]any{"pattern": "dist/*.md"}, want: "No files found matching pattern \"dist/*.md\" within <WS> (1 files were ignored)", display: "No files found"},
		{name: "ignore switched off", args: map[string]any{"pattern": "dist/*", "respect_git_ignore": false}, want: "", display: "Found 1 matching file(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := *env
			if tt.name == "ignore switched off" {
				env.Filter = func(o tool.FilterOptions) tool.FileFilter {
					if o.RespectGitIgnore {
						return fsFilter{"dist": true, "out.md": true}
					}
					return nil
				}
			}
			c, err := fsPrepare(fsGlob(&env, now), "", tt.args)
			if err != nil {
				t.Fatal(err.Message)
			}
			r := c.Execute(t.Context(), nil)
			if r.Error != nil {
				t.Fatal(r.Error.Message)
			}
			got := strings.ReplaceAll(r.LLMText, ws, "<WS>")
			switch {
			case tt.golden != "":
				fsGolden(t, tt.golden, got)
			case tt.want != "" && got != tt.want:
				t.Errorf("llmContent\n%s\nwant\n%s", got, tt.want)
			}
			if r.Display != tt.display {
				t.Errorf("display %q, want %q", r.Display, tt.display)
			}
		})
	}
}

func TestGlobWorkspaces(t *testing.T) {
	a, b := fsTempDir(t), fsTempDir(t)
	fsWrite(t, a, "x.txt", "x")
	fsWrite(t, b, "y.txt", "y")
	env := &Env{Workspace: tool.NewWorkspace(a, b)}
	old := time.Now().Add(-100 * time.Hour)
	for _, p := range []string{filepath.Join(a, "x.txt"), filepath.Join(b, "y.txt")} {
		os.Chtimes(p, old, old)
	}
	r := fsRun(t, NewGlob(env), map[string]any{"pattern": "*.txt"})
	want := "Found 2 file(s) matching \"*.txt\" across 2 workspace directories, sorted by modification time (newest first):\n"
	if !strings.HasPrefix(r.LLMText, want) || !strings.Contains(r.LLMText, filepath.Join(b, "y.txt")) {
		t.Errorf("llmContent\n%s", r.LLMText)
	}
	r = fsRun(t, NewGlob(env), map[string]any{"pattern": "*.none"})
	if r.LLMText != `No files found matching pattern "*.none" within 2 workspace directories` {
		t.Errorf("llmContent %q", r.LLMText)
	}
}

func TestGlobErrors(t *testing.T) {
	env, ws := fsTestEnv(t)
	fsWrite(t, ws, "f.txt", "x")
	tests := []struct {
		name string
		args map[string]any
		typ  tool.ErrorType
		msg  string
	}{
		{"empty pattern", map[string]any{"pattern": " "}, tool.ErrInvalidParams, "The 'pattern' parameter cannot be empty."},
		{"missing path", map[string]any{"pattern": "*", "path": "nope"}, tool.ErrInvalidParams, "Search path does not exist " + filepath.Join(ws, "nope")},
		{"file path", map[string]any{"pattern": "*", "path": "f.txt"}, tool.ErrInvalidParams, "Search path is not a directory: " + filepath.Join(ws, "f.txt")},
		{"bad pattern", map[string]any{"pattern": "[a-"}, tool.ErrInvalidParams, "Invalid glob pattern: [a-"},
		{"outside", map[string]any{"pattern": "*", "path": "/etc"}, tool.ErrPathNotInWorkspace,
			`Path not in workspace: Attempted path "/etc" resolves outside the allowed workspace directories: ` + ws + " or the project temp directory: " + env.TempDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fsPrepare(NewGlob(env), "", tt.args)
			if err == nil || err.Type != tt.typ || err.Message != tt.msg {
				t.Errorf("got %+v\nwant %s %q", err, tt.typ, tt.msg)
			}
		})
	}
}

func TestSortGlobMatches(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := []globMatch{
		{"/w/b.txt", now.Add(-48 * time.Hour)},
		{"/w/recent-old.txt", now.Add(-2 * time.Hour)},
		{"/w/A.txt", now.Add(-50 * time.Hour)},
		{"/w/recent-new.txt", now.Add(-1 * time.Minute)},
		{"/w/c.txt", now.Add(-49 * time.Hour)},
	}
	sortGlobMatches(ms, now)
	var got []string
	for _, m := range ms {
		got = append(got, filepath.Base(m.path))
	}
	want := "recent-new.txt recent-old.txt A.txt b.txt c.txt"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

// TestSortGlobMatchesOrder checks the keyed sort (which skips the prefix
// all paths share) against a plain sort by the collation.
func TestSortGlobMatchesOrder(t *testing.T) {
	old := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := [][]string{
		{"/w/b.go", "/w/a.go", "/w/A.go", "/w/a/b.go", "/w/a-b.go", "/w/a_b.go"},
		{"/w/é/x", "/w/e/x", "/w/f", "/w/É"},
		{"/w/x", "/w/x/y", "/w/x.go"},
		{"/only/one"},
		{"/w/ab", "/w/a"},
		{"/w/zebra", "/w/Ärger", "/w/apple"},
		{"/w/e\u0301x/a", "/w/ex/a", "/w/éx/b"},
	}
	for _, paths := range tests {
		ms := make([]globMatch, len(paths))
		for i, p := range paths {
			ms[i] = globMatch{path: p, mtime: old}
		}
		sortGlobMatches(ms, old.Add(365*24*time.Hour))
		want := append([]string(nil), paths...)
		sort.Slice(want, func(i, j int) bool { return textutil.NewCollator().Compare(want[i], want[j]) < 0 })
		for i := range ms {
			if ms[i].path != want[i] {
				t.Errorf("sorted %v, want %v", ms, want)
				break
			}
		}
	}
}
