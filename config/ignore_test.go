package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// gitFixture is a repository whose expected verdicts were checked against
// `git check-ignore --no-index` (except .git, which git never reports).
var gitFixture = map[string]string{
	".git/info/exclude": "secret.txt\n",
	".gitignore": strings.Join([]string{
		"# comment", "*.log", "!important.log", "/build/", "node_modules", "docs/**/internal",
		"temp?", "*.[oa]", "a/**/c", `\#hash`, "trailing   ", "vendor/*", "!vendor/lib",
	}, "\n"),
	"src/.gitignore":   "gen/\r\n*.tmp\r\n/local.txt\r\n",
	"deep/.gitignore":  "dir\n",
	"build/keep/":      "",
	"node_modules/x/":  "",
	"docs/api/v1/":     "",
	"a/b/c/":           "",
	"src/gen/":         "",
	"deep/nested/dir/": "",
	"vendor/lib/":      "",
}

func TestFileFilterGitSemantics(t *testing.T) {
	root := realTempDir(t)
	writeTree(t, root, gitFixture)
	f := NewFileFilter(root, tool.FilterOptions{RespectGitIgnore: true})
	tests := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"app.log", false, true},
		{"important.log", false, false},
		{"logs/x.log", false, true},
		{"build", true, true},
		{"build/keep", true, true},
		{"build/keep/f.txt", false, true},
		{"src/build/x", false, false},
		{"node_modules", true, true},
		{"node_modules/x/y.js", false, true},
		{"x/node_modules", false, true},
		{"docs/api/internal", false, true},
		{"docs/internal", false, true},
		{"docs/api/v1/internal/a", false, true},
		{"temp1", false, true},
		{"temp12", false, false},
		{"main.o", false, true},
		{"lib.a", false, true},
		{"main.c", false, false},
		{"a/c", false, true},
		{"a/b/c", true, true},
		{"a/b/c/d.txt", false, true},
		{"src/gen", true, true},
		{"src/gen/x.go", false, true},
		{"gen", false, false},
		{"src/x.tmp", false, true},
		{"x.tmp", false, false},
		{"src/local.txt", false, true},
		{"local.txt", false, false},
		{"src/sub/local.txt", false, false},
		{"deep/dir", false, true},
		{"deep/nested/dir", true, true},
		{"deep/x/dir/f", false, true},
		{"#hash", false, true},
		{"trailing", false, true},
		{"secret.txt", false, true},
		{"src/secret.txt", false, true},
		{"vendor/x.go", false, true},
		{"vendor/lib", true, false},
		{"vendor/lib/a.go", false, false},
		{".git", true, true},
		{".git/config", false, true},
		{"src/main.go", false, false},
		// Like Gemini CLI's matcher, and unlike git on Linux, case is ignored.
		{"APP.LOG", false, true},
		{"Build", true, true},
	}
	for _, tt := range tests {
		abs := filepath.Join(root, filepath.FromSlash(tt.path))
		if got := f.Ignored(abs, tt.isDir); got != tt.want {
			t.Errorf("Ignored(%s, dir=%v) = %v, want %v", tt.path, tt.isDir, got, tt.want)
		}
	}
}

func TestFileFilterOptions(t *testing.T) {
	tests := []struct {
		name   string
		git    bool // make root a git repository
		files  map[string]string
		opts   tool.FilterOptions
		extra  []string
		checks map[string]bool // path (trailing / = dir) → ignored
	}{
		{
			name:   "gitignore needs a repository",
			files:  map[string]string{".gitignore": "*.log"},
			opts:   tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true},
			checks: map[string]bool{"a.log": false, ".git/": true},
		},
		{
			name:   "geminiignore without git",
			files:  map[string]string{".geminiignore": "  secrets/  \n*.pem\n!public.pem"},
			opts:   tool.FilterOptions{RespectGeminiIgnore: true},
			checks: map[string]bool{"secrets/": true, "secrets/a": true, "k.pem": true, "public.pem": false, "secrets": false},
		},
		{
			name:   "geminiignore wins over gitignore",
			git:    true,
			files:  map[string]string{".gitignore": "*.log\ndist/", ".geminiignore": "!keep.log\nnotes.md"},
			opts:   tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true},
			checks: map[string]bool{"a.log": true, "keep.log": false, "notes.md": true, "dist/": true, "dist/keep.log": true},
		},
		{
			name:   "only gitignore",
			git:    true,
			files:  map[string]string{".gitignore": "*.log", ".geminiignore": "notes.md"},
			opts:   tool.FilterOptions{RespectGitIgnore: true},
			checks: map[string]bool{"a.log": true, "notes.md": false},
		},
		{
			name:   "only geminiignore in a repository",
			git:    true,
			files:  map[string]string{".gitignore": "*.log", ".geminiignore": "notes.md"},
			opts:   tool.FilterOptions{RespectGeminiIgnore: true},
			checks: map[string]bool{"a.log": false, "notes.md": true, ".git/": true},
		},
		{
			name:   "nothing respected still hides .git",
			git:    true,
			files:  map[string]string{".gitignore": "*.log"},
			checks: map[string]bool{"a.log": false, ".git/": true, "sub/.git/": true},
		},
		{
			name:   "extra ignore files always apply, first one wins",
			files:  map[string]string{"a.ignore": "!keep.tmp", "b.ignore": "*.tmp\nsecret"},
			extra:  []string{"a.ignore", "b.ignore"},
			checks: map[string]bool{"x.tmp": true, "keep.tmp": false, "secret": true},
		},
		{
			name:   "ignored directory is not re-included",
			git:    true,
			files:  map[string]string{".gitignore": "out/\n!out/keep.txt", "out/.gitignore": "!keep.txt"},
			opts:   tool.FilterOptions{RespectGitIgnore: true},
			checks: map[string]bool{"out/keep.txt": true, "out/": true},
		},
		{
			name:   "nested negation inside a live directory",
			git:    true,
			files:  map[string]string{".gitignore": "*.txt", "docs/.gitignore": "!readme.txt"},
			opts:   tool.FilterOptions{RespectGitIgnore: true},
			checks: map[string]bool{"a.txt": true, "docs/readme.txt": false, "docs/other.txt": true, "readme.txt": true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := realTempDir(t)
			files := map[string]string{}
			for k, v := range tt.files {
				files[k] = v
			}
			if tt.git {
				files[".git/HEAD"] = "ref: refs/heads/main\n"
			}
			writeTree(t, root, files)
			f := NewFileFilter(root, tt.opts, tt.extra...)
			for p, want := range tt.checks {
				isDir := strings.HasSuffix(p, "/")
				abs := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(p, "/")))
				if got := f.Ignored(abs, isDir); got != want {
					t.Errorf("Ignored(%s) = %v, want %v", p, got, want)
				}
			}
		})
	}
}

func TestFileFilterBounds(t *testing.T) {
	root := realTempDir(t)
	writeTree(t, root, map[string]string{".git/HEAD": "", ".gitignore": "*\n"})
	f := NewFileFilter(filepath.Join(root, "."), tool.FilterOptions{RespectGitIgnore: true})
	for _, tt := range []struct {
		path string
		want bool
	}{
		{root, false},               // the root itself
		{filepath.Dir(root), false}, // outside
		{filepath.Join(filepath.Dir(root), "x"), false}, // outside
		{"relative.go", true},                           // relative to the root
		{filepath.Join(root, "a", "..", "b"), true},
	} {
		if got := f.Ignored(tt.path, false); got != tt.want {
			t.Errorf("Ignored(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestFileFilterConcurrent(t *testing.T) {
	root := realTempDir(t)
	writeTree(t, root, gitFixture)
	f := NewFileFilter(root, tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				f.Ignored(filepath.Join(root, "src", fmt.Sprintf("d%d", j%7), "x.tmp"), false)
				f.Ignored(filepath.Join(root, "deep", "nested", "dir", "f"), false)
			}
		}()
	}
	wg.Wait()
	if !f.Ignored(filepath.Join(root, "src", "d1", "x.tmp"), false) {
		t.Error("src/d1/x.tmp should be ignored")
	}
}

func TestCompileIgnoreLine(t *testing.T) {
	tests := []struct {
		line  string
		path  string
		isDir bool
		want  bool // matches
	}{
		{"*.go", "a/b.go", false, true},
		{"/*.go", "a/b.go", false, false},
		{"/*.go", "b.go", false, true},
		{"a/*/c", "a/b/c", false, true},
		{"a/*/c", "a/b/x/c", false, false},
		{"**/foo", "x/y/foo", false, true},
		{"**/foo", "foo", false, true},
		{"foo/**", "foo/a/b", false, true},
		{"foo/**", "foo", true, false},
		{"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/y/b", false, true},
		{"[!a]bc", "xbc", false, true},
		{"[!a]bc", "abc", false, false},
		{"[a-c]x", "bx", false, true},
		{"[unclosed", "[unclosed", false, true},
		{`\*lit`, "*lit", false, true},
		{`\*lit`, "xlit", false, false},
		{`sp\ `, "sp ", false, true},
		{"dir/", "dir", false, false},
		{"dir/", "dir", true, true},
		{"", "x", false, false},
		{"   ", "x", false, false},
		{"!", "x", false, false},
		{"/", "x", false, false},
	}
	for _, tt := range tests {
		r := compileIgnoreLine(tt.line, "")
		got := r != nil && r.matches(tt.path, tt.isDir)
		if got != tt.want {
			t.Errorf("%q vs %q (dir=%v) = %v, want %v", tt.line, tt.path, tt.isDir, got, tt.want)
		}
	}
}

func BenchmarkFileFilter(b *testing.B) {
	root := b.TempDir()
	for name, content := range gitFixture {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			_ = mkdirAll(p)
			continue
		}
		_ = mkdirAll(filepath.Dir(p))
		_ = writeFile(p, content)
	}
	f := NewFileFilter(root, tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true})
	paths := []string{
		filepath.Join(root, "src", "pkg", "deep", "file.go"),
		filepath.Join(root, "docs", "api", "v1", "internal", "a"),
		filepath.Join(root, "vendor", "lib", "a.go"),
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.Ignored(paths[i%len(paths)], false)
	}
}
