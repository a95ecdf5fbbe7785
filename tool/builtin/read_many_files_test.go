package builtin

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// rmfWorkspace builds the workspace the read_many_files tests share.
func rmfWorkspace(t *testing.T) (*Env, string) {
	t.Helper()
	env, dir := auxTestEnv(t)
	fsWrite(t, dir, "README.md", "# Demo\n")
	fsWrite(t, dir, "src/main.go", "package main\n\nfunc main() {}\n")
	fsWrite(t, dir, "src/util/strings.go", "package util\n")
	fsWrite(t, dir, "src/Notes.TXT", "upper-case extension\n")
	fsWrite(t, dir, "src/.hidden.go", "package hidden\n")
	fsWrite(t, dir, "node_modules/dep/index.js", "module.exports = 1\n")
	fsWrite(t, dir, "GEMINI.md", "context file\n")
	fsWrite(t, dir, "logo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	fsWrite(t, dir, "docs/guide.pdf", "%PDF-1.4\n\x00binary")
	fsWrite(t, dir, "data.bin", "\x00\x01\x02")
	fsWrite(t, dir, "[id].ts", "export const id = 1\n")
	return env, dir
}

// rmfRender flattens a result's parts for golden comparison, with the
// workspace path replaced by <WS>.
func rmfRender(r *tool.Result, dir string) string {
	var b strings.Builder
	for i, p := range r.LLMParts {
		fmt.Fprintf(&b, "=== part %d ===\n", i)
		switch {
		case p.InlineData != nil:
			fmt.Fprintf(&b, "[inlineData %s, %d bytes]\n", p.InlineData.MIMEType, len(p.InlineData.Data))
		default:
			b.WriteString(strings.ReplaceAll(p.Text, dir, "<WS>"))
			b.WriteString("\n")
		}
	}
	b.WriteString("=== display ===\n")
	b.WriteString(strings.ReplaceAll(r.Display, dir, "<WS>"))
	b.WriteString("\n")
	return b.String()
}

func TestReadManyFilesGolden(t *testing.T) {
	tests := []struct {
		name   string
		args   map[string]any
		golden string
	}{
		{"all files", map[string]any{"paths": []any{"**/*"}}, "read_many_files/all.golden"},
		{"go files via include only (today's form)", map[string]any{"include": []any{"**/*.go"}}, "read_many_files/include_only.golden"},
		{"explicit image and pdf", map[string]any{"paths": []any{"*.png", "docs/guide.pdf", "README.md"}}, "read_many_files/media.golden"},
		{"directory, not recursive", map[string]any{"paths": []any{"src"}, "recursive": false}, "read_many_files/dir_flat.golden"},
		{"directory, recursive, with exclude", map[string]any{"paths": []any{"src/"}, "exclude": []any{"**/util/**"}}, "read_many_files/dir_exclude.golden"},
		{"bracket file name is literal", map[string]any{"paths": []any{"[id].ts"}}, "read_many_files/literal.golden"},
		{"no default excludes", map[string]any{"paths": []any{"node_modules/**", "GEMINI.md"}, "useDefaultExcludes": false}, "read_many_files/no_default_excludes.golden"},
		{"nothing matches", map[string]any{"paths": []any{"**/*.rs"}}, "read_many_files/none.golden"},
		{"everything excluded", map[string]any{"paths": []any{"node_modules/**"}}, "read_many_files/excluded.golden"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, dir := rmfWorkspace(t)
			r := fsRun(t, NewReadManyFiles(env), tc.args)
			if r.Error != nil {
				t.Fatalf("error %v", r.Error)
			}
			fsGolden(t, tc.golden, rmfRender(r, dir))
		})
	}
}

func TestReadManyFilesTruncatedFile(t *testing.T) {
	env, dir := auxTestEnv(t)
	var b strings.Builder
	for i := 1; i <= 2005; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	p := fsWrite(t, dir, "big.txt", b.String())
	r := fsRun(t, NewReadManyFiles(env), map[string]any{"paths": []any{"big.txt"}})
	if len(r.LLMParts) != 2 {
		t.Fatalf("%d parts", len(r.LLMParts))
	}
	text := r.LLMParts[0].Text
	prefix := "--- " + p + " ---\n\n[WARNING: This file was truncated. To view the full content, use the 'read_file' tool on this specific file.]\n\nline 1\n"
	if !strings.HasPrefix(text, prefix) || !strings.HasSuffix(text, "line 2000\n\n") {
		t.Errorf("part = %q...%q", text[:min(len(text), 200)], text[max(0, len(text)-30):])
	}
	if r.LLMParts[1].Text != "\n--- End of content ---" {
		t.Errorf("terminator = %q", r.LLMParts[1].Text)
	}
}

// rmfIgnore ignores paths with a given base name.
type rmfIgnore struct{ name string }

func (f rmfIgnore) Ignored(p string, _ bool) bool { return filepath.Base(p) == f.name }

func TestReadManyFilesIgnoreFilter(t *testing.T) {
	env, dir := rmfWorkspace(t)
	var got []tool.FilterOptions
	env.Filter = func(o tool.FilterOptions) tool.FileFilter {
		got = append(got, o)
		return rmfIgnore{"util"}
	}
	r := fsRun(t, NewReadManyFiles(env), map[string]any{
		"paths":                  []any{"src/**/*.go"},
		"file_filtering_options": map[string]any{"respect_git_ignore": false},
	})
	out := rmfRender(r, dir)
	if strings.Contains(out, "strings.go") || !strings.Contains(out, "main.go") {
		t.Errorf("ignored directory read:\n%s", out)
	}
	if len(got) != 1 || got[0].RespectGitIgnore || !got[0].RespectGeminiIgnore {
		t.Errorf("filter options = %+v", got)
	}

	env.Filter = func(tool.FilterOptions) tool.FileFilter { return rmfIgnore{"main.go"} }
	r = fsRun(t, NewReadManyFiles(env), map[string]any{"paths": []any{"src/**/*.go"}})
	if !strings.Contains(r.Display, "- `1 file(s)` (Reason: ignored by project ignore files)") {
		t.Errorf("display = %s", r.Display)
	}
}

func TestReadManyFilesMultipleWorkspaceDirs(t *testing.T) {
	env, dir := auxTestEnv(t)
	other := t.TempDir()
	other, _ = filepath.EvalSymlinks(other)
	env.Workspace.Add(other)
	fsWrite(t, dir, "a.md", "A\n")
	fsWrite(t, other, "b.md", "B\n")
	r := fsRun(t, NewReadManyFiles(env), map[string]any{"paths": []any{"*.md"}})
	if len(r.LLMParts) != 3 || !strings.Contains(r.LLMParts[0].Text+r.LLMParts[1].Text, "--- "+filepath.Join(other, "b.md")+" ---") {
		t.Errorf("parts = %q", rmfRender(r, dir))
	}
}

func TestReadManyFilesArgs(t *testing.T) {
	env, _ := auxTestEnv(t)
	if _, err := fsPrepare(NewReadManyFiles(env), "", map[string]any{}); err == nil || err.Message != "params must have required property 'paths'" {
		t.Errorf("no patterns: %v", err)
	}
	if _, err := fsPrepare(NewReadManyFiles(env), "", map[string]any{"paths": []any{}}); err == nil || err.Message != "params/paths must NOT have fewer than 1 items" {
		t.Errorf("empty paths: %v", err)
	}
	c, err := fsPrepare(NewReadManyFiles(env), "", map[string]any{"include": []any{"*.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := c.Confirmation(context.Background()); d != nil {
		t.Error("read_many_files asked for confirmation")
	}
	if !strings.Contains(c.Describe(), "using patterns: `*.go`") {
		t.Errorf("Describe = %q", c.Describe())
	}
	r := fsRun(t, NewReadManyFiles(env), map[string]any{"paths": []any{"src/{a,b"}})
	if r.Error == nil || r.Error.Type != tool.ErrReadManyFilesSearchError || !strings.HasPrefix(r.Error.Message, "Error during file search: ") {
		t.Errorf("bad pattern: %+v", r.Error)
	}
}
