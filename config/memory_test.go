package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// memoryTree is a home directory with a repository inside.
var memoryTree = map[string]string{
	"home/.gemini/GEMINI.md":                     "Global rules.\n",
	"home/GEMINI.md":                             "Above the repository: never loaded.\n",
	"home/repo/.git/HEAD":                        "ref: refs/heads/main\n",
	"home/repo/.gitignore":                       "ignored/\n",
	"home/repo/GEMINI.md":                        "# Repo\n@./docs/style.md\nInline `@./docs/style.md` and\n```\n@./docs/style.md\n```\nmail me@example.com\n@../outside.md\n@./missing.md\n",
	"home/repo/docs/style.md":                    "Use tabs.\n@./cycle-a.md",
	"home/repo/docs/cycle-a.md":                  "A imports B: @./cycle-b.md",
	"home/repo/docs/cycle-b.md":                  "B imports A: @./cycle-a.md",
	"home/outside.md":                            "outside the repository",
	"home/repo/pkg/GEMINI.md":                    "  Package notes.  \n",
	"home/repo/pkg/AGENTS.md":                    "Agents file.",
	"home/repo/pkg/sub/GEMINI.md":                "Sub notes.",
	"home/repo/pkg/sub/deeper/GEMINI.md":         "Deeper notes.",
	"home/repo/pkg/empty/GEMINI.md":              " \n\t\n",
	"home/repo/pkg/node_modules/x/GEMINI.md":     "from a dependency",
	"home/repo/pkg/ignored/GEMINI.md":            "ignored by .gitignore",
	"home/repo/pkg/dir-named-like-it/GEMINI.md/": "",
	"home/repo/other/":                           "",
}

func memoryFixture(t *testing.T) (root string) {
	t.Helper()
	root = realTempDir(t)
	writeTree(t, root, memoryTree)
	// The same file under a second name must be loaded once.
	if err := os.Symlink("../pkg/GEMINI.md", filepath.Join(root, "home/repo/other/GEMINI.md")); err != nil {
		t.Skip(err)
	}
	return root
}

// describe renders a Memory for golden comparison.
func describe(m *Memory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "=== global\n%s\n=== extension\n%s\n=== project\n%s\n=== files (%d)\n", m.Global, m.Extension, m.Project, m.Count())
	for _, f := range m.Files() {
		fmt.Fprintf(&b, "%s %s\n", f.Scope, f.Path)
	}
	b.WriteString("=== warnings\n")
	for _, w := range m.Warnings {
		b.WriteString(w + "\n")
	}
	return b.String()
}

func TestLoadMemoryGolden(t *testing.T) {
	tests := []struct {
		golden string
		opts   func(root string) MemoryOptions
	}{
		{
			golden: "memory/trusted.golden",
			opts: func(root string) MemoryOptions {
				repo := filepath.Join(root, "home", "repo")
				return MemoryOptions{
					Workspace: []string{filepath.Join(repo, "pkg"), filepath.Join(repo, "other")},
					Home:      filepath.Join(root, "home"),
					Filter:    NewFileFilter(repo, tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true}),
					Trusted:   true,
				}
			},
		},
		{
			golden: "memory/two-names-no-scan.golden",
			opts: func(root string) MemoryOptions {
				return MemoryOptions{
					Workspace: []string{filepath.Join(root, "home", "repo", "pkg")},
					Home:      filepath.Join(root, "home"),
					FileNames: []string{"AGENTS.md", " GEMINI.md ", "AGENTS.md"},
					Trusted:   true,
					MaxDirs:   -1,
				}
			},
		},
		{
			golden: "memory/untrusted.golden",
			opts: func(root string) MemoryOptions {
				return MemoryOptions{
					Workspace:      []string{filepath.Join(root, "home", "repo", "pkg")},
					Home:           filepath.Join(root, "home"),
					ExtensionFiles: []string{filepath.Join(root, "home", "outside.md")},
				}
			},
		},
		{
			golden: "memory/flat.golden",
			opts: func(root string) MemoryOptions {
				return MemoryOptions{
					Workspace:    []string{filepath.Join(root, "home", "repo")},
					Home:         filepath.Join(root, "home"),
					Trusted:      true,
					MaxDirs:      -1,
					ImportFormat: "flat",
				}
			},
		},
		{
			golden: "memory/no-markers.golden",
			opts: func(root string) MemoryOptions {
				return MemoryOptions{
					Workspace:       []string{filepath.Join(root, "home", "repo", "pkg", "sub")},
					Home:            filepath.Join(root, "home"),
					Trusted:         true,
					MaxDirs:         1,
					BoundaryMarkers: []string{},
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			root := memoryFixture(t)
			m, err := LoadMemory(tt.opts(root))
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.golden, describe(m), root)
		})
	}
}

func TestMemoryForPath(t *testing.T) {
	root := memoryFixture(t)
	repo := filepath.Join(root, "home", "repo")
	m, err := LoadMemory(MemoryOptions{
		Workspace: []string{filepath.Join(repo, "pkg")},
		Home:      filepath.Join(root, "home"),
		Trusted:   true,
		MaxDirs:   -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	before := m.Count()
	got, warnings := m.ForPath(filepath.Join(repo, "pkg", "sub", "deeper", "code.go"))
	if len(warnings) != 0 {
		t.Errorf("warnings: %q", warnings)
	}
	want := "--- Context from: " + filepath.ToSlash(filepath.Join(repo, "pkg/sub/GEMINI.md")) + " ---\nSub notes.\n--- End of Context from: " + filepath.ToSlash(filepath.Join(repo, "pkg/sub/GEMINI.md")) + " ---\n\n" +
		"--- Context from: " + filepath.ToSlash(filepath.Join(repo, "pkg/sub/deeper/GEMINI.md")) + " ---\nDeeper notes.\n--- End of Context from: " + filepath.ToSlash(filepath.Join(repo, "pkg/sub/deeper/GEMINI.md")) + " ---"
	if got != want {
		t.Errorf("ForPath =\n%s\nwant\n%s", got, want)
	}
	if m.Count() != before+2 {
		t.Errorf("Count = %d, want %d", m.Count(), before+2)
	}
	// Already loaded: nothing new.
	if again, _ := m.ForPath(filepath.Join(repo, "pkg", "sub", "x.go")); again != "" {
		t.Errorf("second ForPath = %q", again)
	}
	// Outside the workspace: nothing.
	if out, _ := m.ForPath(filepath.Join(root, "home", "outside.md")); out != "" {
		t.Errorf("outside ForPath = %q", out)
	}
}

func TestLoadMemoryBadOptions(t *testing.T) {
	if _, err := LoadMemory(MemoryOptions{Home: t.TempDir(), ImportFormat: "yaml"}); err == nil {
		t.Error("unknown import format accepted")
	}
}

func TestLoadMemoryUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	root := realTempDir(t)
	writeTree(t, root, map[string]string{"ws/GEMINI.md": "x", "home/": ""})
	p := filepath.Join(root, "ws", "GEMINI.md")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	m, err := LoadMemory(MemoryOptions{Workspace: []string{filepath.Join(root, "ws")}, Home: filepath.Join(root, "home"), Trusted: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.Count() != 0 || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], p) {
		t.Errorf("count %d warnings %q", m.Count(), m.Warnings)
	}
}

func TestFindCodeRegions(t *testing.T) {
	tests := []struct {
		in   string
		want [][2]int
	}{
		{"no code", nil},
		{"a `b` c", [][2]int{{2, 5}}},
		{"```\nx\n```", [][2]int{{0, 9}}},
		{"``a`", [][2]int{{0, 2}}},            // shorter opening run when the long one never closes
		{"`a`` b`", [][2]int{{0, 3}, {3, 7}}}, // leftmost, lazy
		{"unclosed ` here", nil},
		{"``x``y`", [][2]int{{0, 5}}},
	}
	for _, tt := range tests {
		got := findCodeRegions(tt.in)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("findCodeRegions(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestFindImports(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"@a.md", []string{"a.md"}},
		{"see @./x.md and @/abs/y.md\n@z", []string{"./x.md", "/abs/y.md", "z"}},
		{"mail me@example.com", nil},
		{"@1digit @_under @@double", nil},
		{"tab\t@t.md\r\n@u.md", []string{"t.md", "u.md"}},
		{"@", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, imp := range findImports(tt.in) {
			got = append(got, imp.path)
			if tt.in[imp.start] != '@' || tt.in[imp.start+1:imp.end] != imp.path {
				t.Errorf("%q: bad span %+v", tt.in, imp)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("findImports(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestImportDepthLimit(t *testing.T) {
	root := realTempDir(t)
	files := map[string]string{".git/": ""}
	for i := 0; i < 8; i++ {
		files[fmt.Sprintf("f%d.md", i)] = fmt.Sprintf("level %d @./f%d.md", i, i+1)
	}
	writeTree(t, root, files)
	im := &importer{markers: []string{".git"}}
	got := im.expand("@./f0.md", root, "tree")
	if !strings.Contains(got, "level 4 @./f5.md") || strings.Contains(got, "level 5") {
		t.Errorf("depth limit not applied at 5:\n%s", got)
	}
}

func TestLoadMemoryStopsAtHome(t *testing.T) {
	root := realTempDir(t)
	writeTree(t, root, map[string]string{
		".git/HEAD":         "",
		"GEMINI.md":         "above home",
		"home/GEMINI.md":    "home",
		"home/ws/GEMINI.md": "workspace",
	})
	m, err := LoadMemory(MemoryOptions{
		Workspace: []string{filepath.Join(root, "home", "ws")},
		Home:      filepath.Join(root, "home"),
		Trusted:   true,
		MaxDirs:   -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	// The repository above home is not the workspace's project root, so
	// the walk stays in the workspace directory.
	if got := m.Paths(); len(got) != 1 || got[0] != filepath.Join(root, "home", "ws", "GEMINI.md") {
		t.Errorf("Paths = %q", got)
	}
}
