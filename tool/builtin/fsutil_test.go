package builtin

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// ---------------------------------------------------------------------------
// Helpers shared by the tests of the file tools (prefixed fs to stay clear
// of other test helpers in the package).

// fsTestEnv returns an Env over a fresh workspace (symlinks resolved, so
// paths in messages are predictable) with a separate project temp dir.
func fsTestEnv(t *testing.T) (*Env, string) {
	t.Helper()
	dir := fsTempDir(t)
	return &Env{Workspace: tool.NewWorkspace(dir), TempDir: fsTempDir(t)}, dir
}

// fsTempDir is t.TempDir with symlinks resolved.
func fsTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// fsNotInWorkspace is the error text for path p outside env's workspace.
func fsNotInWorkspace(env *Env, p string) string {
	return `Path not in workspace: Attempted path "` + p + `" resolves outside the allowed workspace directories: ` +
		strings.Join(env.Workspace.Dirs(), ", ") + " or the project temp directory: " + env.TempDir
}

// fsWrite creates a file (and its parents) under dir.
func fsWrite(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fsRead returns a file's content.
func fsRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fsPrepare runs a call through a registry as the engine does: name or
// alias lookup, argument normalization, schema validation, Build.
func fsPrepare(tl tool.Tool, name string, args map[string]any) (tool.Call, *tool.Error) {
	if name == "" {
		name = tl.Name()
	}
	_, c, err := tool.NewRegistry(tl).Prepare(name, args, nil)
	return c, err
}

// fsRun prepares and executes a call, failing the test when preparation
// fails.
func fsRun(t *testing.T, tl tool.Tool, args map[string]any) *tool.Result {
	t.Helper()
	c, err := fsPrepare(tl, "", args)
	if err != nil {
		t.Fatalf("prepare %s: %s: %s", tl.Name(), err.Type, err.Message)
	}
	return c.Execute(context.Background(), nil)
}

// fsGolden compares got with testdata/<name>, rewriting the file when
// CASTOR_UPDATE_GOLDEN is set.
func fsGolden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", filepath.FromSlash(name))
	if os.Getenv("CASTOR_UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (set CASTOR_UPDATE_GOLDEN=1 to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s mismatch\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// fsFilter ignores paths with a listed name as any element, like a
// .gitignore of bare names would.
type fsFilter map[string]bool

// Ignored implements tool.FileFilter.
func (f fsFilter) Ignored(path string, _ bool) bool {
	for _, el := range strings.Split(filepath.ToSlash(path), "/") {
		if f[el] {
			return true
		}
	}
	return false
}

// fsWithFilter sets a filter that ignores the given base names.
func fsWithFilter(env *Env, names ...string) {
	f := fsFilter{}
	for _, n := range names {
		f[n] = true
	}
	env.Filter = func(tool.FilterOptions) tool.FileFilter { return f }
}

// ---------------------------------------------------------------------------
// Paths

func TestResolvePath(t *testing.T) {
	env, ws := fsTestEnv(t)
	outside := fsTempDir(t)
	fsWrite(t, outside, "secret.txt", "s")
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "sub"), filepath.Join(ws, "inner")); err != nil {
		t.Fatal(err)
	}
	fsWrite(t, ws, "sub/a.txt", "a")
	wantErr := func(abs string) string {
		return `Path not in workspace: Attempted path "` + abs + `" resolves outside the allowed workspace directories: ` + ws + " or the project temp directory: " + env.TempDir
	}
	tests := []struct {
		name, in, want string
		bad            bool
	}{
		{"relative", "sub/a.txt", filepath.Join(ws, "sub/a.txt"), false},
		{"absolute inside", filepath.Join(ws, "sub/a.txt"), filepath.Join(ws, "sub/a.txt"), false},
		{"root itself", "", ws, false},
		{"dot", ".", ws, false},
		{"not yet existing", "new/dir/file.txt", filepath.Join(ws, "new/dir/file.txt"), false},
		{"symlink inside to inside", "inner/a.txt", filepath.Join(ws, "inner/a.txt"), false},
		{"temp dir", filepath.Join(env.TempDir, "tool-outputs/x.txt"), filepath.Join(env.TempDir, "tool-outputs/x.txt"), false},
		{"dot-dot escape", "../x.txt", filepath.Join(filepath.Dir(ws), "x.txt"), true},
		{"deep dot-dot escape", "sub/../../../etc/passwd", filepath.Clean(filepath.Join(ws, "sub/../../../etc/passwd")), true},
		{"absolute outside", filepath.Join(outside, "secret.txt"), filepath.Join(outside, "secret.txt"), true},
		{"symlink to outside", "escape/secret.txt", filepath.Join(ws, "escape/secret.txt"), true},
		{"symlink dir to outside", "escape", filepath.Join(ws, "escape"), true},
		{"etc", "/etc/passwd", "/etc/passwd", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := env.resolvePath(tt.in)
			if got != tt.want {
				t.Errorf("path = %q, want %q", got, tt.want)
			}
			switch {
			case tt.bad && err == nil:
				t.Fatal("no error for a path outside the workspace")
			case tt.bad:
				if err.Type != tool.ErrPathNotInWorkspace || err.Message != wantErr(tt.want) {
					t.Errorf("error = %s %q\nwant %q", err.Type, err.Message, wantErr(tt.want))
				}
			case err != nil:
				t.Errorf("unexpected error %s: %s", err.Type, err.Message)
			}
		})
	}
}

func TestRelPath(t *testing.T) {
	env, ws := fsTestEnv(t)
	for in, want := range map[string]string{
		ws:                              ".",
		filepath.Join(ws, "a/b.go"):     "a/b.go",
		filepath.Join(ws, "../other/x"): "../other/x",
	} {
		if got := env.relPath(filepath.Clean(in)); got != want {
			t.Errorf("relPath(%q) = %q, want %q", in, got, want)
		}
	}
}

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

// ---------------------------------------------------------------------------
// Writing

func TestWriteFileAtomic(t *testing.T) {
	dir := fsTempDir(t)

	t.Run("creates parents", func(t *testing.T) {
		p := filepath.Join(dir, "a/b/c.txt")
		if err := writeFileAtomic(p, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if got := fsRead(t, p); got != "x" {
			t.Errorf("content %q", got)
		}
	})

	t.Run("keeps mode", func(t *testing.T) {
		p := fsWrite(t, dir, "run.sh", "old")
		if err := os.Chmod(p, 0o751); err != nil {
			t.Fatal(err)
		}
		if err := writeFileAtomic(p, []byte("new")); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(p)
		if fi.Mode().Perm() != 0o751 {
			t.Errorf("mode %v, want 0751", fi.Mode().Perm())
		}
		if got := fsRead(t, p); got != "new" {
			t.Errorf("content %q", got)
		}
	})

	t.Run("replaces a symlink's target", func(t *testing.T) {
		target := fsWrite(t, dir, "target.txt", "old")
		link := filepath.Join(dir, "link.txt")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if err := writeFileAtomic(link, []byte("new")); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Lstat(link); fi.Mode()&fs.ModeSymlink == 0 {
			t.Error("symlink was replaced by a file")
		}
		if got := fsRead(t, target); got != "new" {
			t.Errorf("target content %q", got)
		}
	})

	t.Run("read-only file refused", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root may write read-only files")
		}
		p := fsWrite(t, dir, "ro.txt", "old")
		if err := os.Chmod(p, 0o444); err != nil {
			t.Fatal(err)
		}
		if err := writeFileAtomic(p, []byte("new")); !errors.Is(err, syscall.EACCES) {
			t.Errorf("err = %v, want EACCES", err)
		}
		if got := fsRead(t, p); got != "old" {
			t.Errorf("read-only file changed to %q", got)
		}
	})

	t.Run("directory", func(t *testing.T) {
		err := writeFileAtomic(dir, []byte("x"))
		if !errors.Is(err, syscall.EISDIR) {
			t.Errorf("err = %v, want EISDIR", err)
		}
	})

	t.Run("no temporary files left", func(t *testing.T) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".castor-tmp-") {
				t.Errorf("temporary file left behind: %s", e.Name())
			}
		}
	})
}

func TestWriteError(t *testing.T) {
	pe := func(errno syscall.Errno) error {
		return &fs.PathError{Op: "open", Path: "/w/f.txt", Err: errno}
	}
	tests := []struct {
		name string
		err  error
		typ  tool.ErrorType
		msg  string
	}{
		{"EACCES", pe(syscall.EACCES), tool.ErrPermissionDenied, "Permission denied writing to file: /w/f.txt (EACCES)"},
		{"EPERM", pe(syscall.EPERM), tool.ErrPermissionDenied, "Permission denied writing to file: /w/f.txt (EPERM)"},
		{"ENOSPC", pe(syscall.ENOSPC), tool.ErrNoSpaceLeft, "No space left on device: /w/f.txt (ENOSPC)"},
		{"EISDIR", pe(syscall.EISDIR), tool.ErrTargetIsDirectory, "Target is a directory, not a file: /w/f.txt (EISDIR)"},
		{"ENOTDIR", pe(syscall.ENOTDIR), tool.ErrFileWriteFailure, "Error writing to file '/w/f.txt': ENOTDIR: not a directory, open '/w/f.txt' (ENOTDIR)"},
		{"plain", errors.New("boom"), tool.ErrFileWriteFailure, "Error writing to file: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := writeError("/w/f.txt", tt.err)
			if got.Type != tt.typ || got.Message != tt.msg {
				t.Errorf("got %s %q\nwant %s %q", got.Type, got.Message, tt.typ, tt.msg)
			}
		})
	}
	if !writeError("/x", pe(syscall.ENOSPC)).Type.Fatal() {
		t.Error("a full disk must be fatal")
	}
}

// ---------------------------------------------------------------------------
// Line endings

func TestLineEndings(t *testing.T) {
	tests := []struct {
		in, eol, applied string
	}{
		{"a\nb\n", "\n", "a\r\nb\r\n"},
		{"a\r\nb\r\n", "\r\n", "a\r\nb\r\n"},
		{"a\r\nb\nc", "\r\n", "a\r\nb\r\nc"},
		{"", "\n", ""},
		{"no newline", "\n", "no newline"},
	}
	for _, tt := range tests {
		if got := detectLineEnding(tt.in); got != tt.eol {
			t.Errorf("detectLineEnding(%q) = %q, want %q", tt.in, got, tt.eol)
		}
		if got := applyLineEnding(tt.in, "\r\n"); got != tt.applied {
			t.Errorf("applyLineEnding(%q, CRLF) = %q, want %q", tt.in, got, tt.applied)
		}
		if got := applyLineEnding(tt.in, "\n"); got != tt.in {
			t.Errorf("applyLineEnding(%q, LF) = %q, want it unchanged", tt.in, got)
		}
	}
}

// ---------------------------------------------------------------------------
// File types

func TestDetectFileType(t *testing.T) {
	dir := fsTempDir(t)
	tests := []struct {
		name    string
		content string
		want    fileType
	}{
		{"main.go", "package main\n", fileText},
		{"app.ts", "let x = 1\n", fileText}, // not video/mp2t
		{"logo.svg", "<svg/>", fileSVG},
		{"pic.png", "\x89PNG\r\n\x1a\n\x00\x00", fileImage},
		{"doc.pdf", "%PDF-1.4", filePDF},
		{"song.mp3", "ID3\x03\x00\x00\x00", fileAudio},
		{"lyrics.mp3", "just text, not audio\n", fileText},
		{"clip.mp4", "\x00\x00\x00\x18ftypmp42", fileVideo},
		{"lib.so", "anything", fileBinary},
		{"blob.dat2", "ab\x00cd", fileBinary},
		{"controls.txt", strings.Repeat("\x01\x02\x03", 10) + "ab", fileBinary},
		{"utf16.txt", "\xff\xfeh\x00i\x00", fileText},
		{"empty.bin2", "", fileText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fsWrite(t, dir, tt.name, tt.content)
			if got := detectFileType(p); got != tt.want {
				t.Errorf("detectFileType = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestDecodeText(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"plain", []byte("héllo"), "héllo"},
		{"utf8 bom", []byte("\xef\xbb\xbfhi"), "hi"},
		{"utf16le", []byte("\xff\xfeh\x00i\x00"), "hi"},
		{"utf16be", []byte("\xfe\xff\x00h\x00i"), "hi"},
		{"utf32le", []byte("\xff\xfe\x00\x00h\x00\x00\x00"), "h"},
		{"utf32be", []byte("\x00\x00\xfe\xff\x00\x00\x00h"), "h"},
	}
	for _, tt := range tests {
		if got := decodeText(tt.in); got != tt.want {
			t.Errorf("%s: decodeText = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// ---------------------------------------------------------------------------
// Reading

func TestSelectLines(t *testing.T) {
	long := strings.Repeat("x", maxLineLength+5)
	tests := []struct {
		name        string
		content     string
		start, end  int
		want        string
		first, last int
		total       int
		truncated   bool
	}{
		{"whole small file", "a\nb\n", 0, 0, "a\nb\n", 1, 3, 3, false},
		{"range", "1\n2\n3\n4", 2, 3, "2\n3", 2, 3, 4, true},
		{"start only reads to the end", "1\n2\n3", 2, 0, "2\n3", 2, 3, 3, true},
		{"end past the end", "1\n2", 1, 10, "1\n2", 1, 2, 2, false},
		{"start past the end", "1\n2", 5, 6, "", 3, 2, 2, true},
		{"long line", long, 0, 0, strings.Repeat("x", maxLineLength) + "... [truncated]", 1, 1, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := selectLines(tt.content, tt.start, tt.end)
			if w.Content != tt.want || w.FirstLine != tt.first || w.LastLine != tt.last || w.TotalLines != tt.total || w.Truncated() != tt.truncated {
				t.Errorf("got %q %d-%d/%d truncated=%v", w.Content, w.FirstLine, w.LastLine, w.TotalLines, w.Truncated())
			}
		})
	}
	t.Run("default window", func(t *testing.T) {
		content := strings.Repeat("l\n", 2500)
		w := selectLines(content, 0, 0)
		if w.FirstLine != 1 || w.LastLine != defaultMaxLines || w.TotalLines != 2501 {
			t.Errorf("window %d-%d of %d", w.FirstLine, w.LastLine, w.TotalLines)
		}
	})
	t.Run("astral characters count twice", func(t *testing.T) {
		line := strings.Repeat("😀", maxLineLength/2) + "x"
		w := selectLines(line, 0, 0)
		if !w.LinesShortened || !strings.HasSuffix(w.Content, "😀... [truncated]") {
			t.Errorf("line not cut at %d UTF-16 units: %q", maxLineLength, w.Content[len(w.Content)-30:])
		}
	})
}

// ---------------------------------------------------------------------------
// Oversized output

func TestTruncateToolOutput(t *testing.T) {
	content := strings.Repeat("a", 10) + strings.Repeat("b", 80) + strings.Repeat("c", 10)
	got := truncateToolOutput(content, "/tmp/out.txt", 50)
	want := "Output too large. Showing first 10 and last 40 characters. For full output see: /tmp/out.txt\n" +
		strings.Repeat("a", 10) + "\n\n... [50 characters omitted] ...\n\n" + strings.Repeat("b", 30) + strings.Repeat("c", 10)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := truncateToolOutput("short", "/f", 50); got != "short" {
		t.Errorf("short content changed: %q", got)
	}
}

func TestFormatThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 40000: "40,000", 1234567: "1,234,567", -8000: "-8,000"} {
		if got := formatThousands(n); got != want {
			t.Errorf("formatThousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSaveToolOutput(t *testing.T) {
	dir := fsTempDir(t)
	p, err := saveToolOutput(dir, "run_shell_command", "abc/1", "full")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "tool-outputs", "run_shell_command_abc_1.txt"); p != want {
		t.Errorf("path %q, want %q", p, want)
	}
	if fsRead(t, p) != "full" {
		t.Error("content not saved")
	}
	p, _ = saveToolOutput(dir, "run_shell_command", "run_shell_command_7", "x")
	if filepath.Base(p) != "run_shell_command_7.txt" {
		t.Errorf("id starting with the tool name: %q", filepath.Base(p))
	}
}

// ---------------------------------------------------------------------------
// Edit feedback and ordering

func TestDiffContextSnippet(t *testing.T) {
	many := func(n int, change map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := change[i]; ok {
				b.WriteString(s + "\n")
				continue
			}
			b.WriteString("line" + string(rune('A'+i%26)) + "\n")
		}
		return b.String()
	}
	orig := many(30, nil)
	tests := []struct {
		name      string
		old, new  string
		want      string
		wantLines int
	}{
		{"new file", "", "a\nb\n", "a\nb\n", 0},
		{"unchanged", "a\n", "a\n", "a\n", 0},
		{"whole replacement", "hello world\nsecond line\n", "overwritten\n", "overwritten\n", 0},
		{"change in the middle", orig, many(30, map[int]string{15: "CHANGED"}), "...\n" + strings.Join(strings.Split(many(30, map[int]string{15: "CHANGED"}), "\n")[9:20], "\n") + "\n...", 0},
		{"two distant changes", orig, many(30, map[int]string{3: "X", 28: "Y"}), "", 0},
		{"crlf normalized", "a\r\nb\r\n", "a\r\nc\r\n", "a\nc\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diffContextSnippet(tt.old, tt.new, 5)
			if tt.want != "" && got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			if tt.name == "two distant changes" {
				parts := strings.Split(got, "\n...\n")
				if len(parts) != 2 || !strings.Contains(parts[0], "X") || !strings.Contains(parts[1], "Y") {
					t.Errorf("want two hunks around X and Y, got\n%s", got)
				}
			}
		})
	}
}

func TestLocaleCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"a", "B", -1},
		{"B", "c", -1},
		{"a", "A", -1},
		{"README.md", "go.mod", 1},
		{"_x", "a", -1},
		{"-x", "_x", 1},
		{"1", "a", -1},
		{"file10", "file2", -1},
		{"a.txt", "a.txt", 0},
		{"ab", "a", 1},
		{".env", "a", -1},
	}
	for _, tt := range tests {
		if got := localeCompare(tt.a, tt.b); got != tt.want {
			t.Errorf("localeCompare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := localeCompare(tt.b, tt.a); got != -tt.want {
			t.Errorf("localeCompare(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}
