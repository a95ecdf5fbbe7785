package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

func TestWriteFile(t *testing.T) {
	env, ws := fsTestEnv(t)
	fsWrite(t, ws, "notes.txt", "hello world\nsecond line\n")
	fsWrite(t, ws, "win.txt", "one\r\ntwo\r\n")

	tests := []struct {
		name, path, content string
		want                string // exact llmContent, <WS> for the workspace
		onDisk              string
		isNew               bool
	}{
		{
			name: "new file with parents", path: "a/b/new.txt", content: "hello world\nsecond line\n",
			want:   "Successfully created and wrote to new file: <WS>/a/b/new.txt. Here is the updated code:\nhello world\nsecond line\n",
			onDisk: "hello world\nsecond line\n", isNew: true,
		},
		{
			name: "overwrite", path: "notes.txt", content: "overwritten\n",
			want:   "Successfully overwrote file: <WS>/notes.txt. Here is the updated code:\noverwritten\n",
			onDisk: "overwritten\n",
		},
		{
			name: "crlf kept", path: "win.txt", content: "one\ntwo\nthree\n",
			want:   "Successfully overwrote file: <WS>/win.txt. Here is the updated code:\none\ntwo\nthree\n",
			onDisk: "one\r\ntwo\r\nthree\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			abs := filepath.Join(ws, tt.path)
			var before *string
			if b, err := os.ReadFile(abs); err == nil {
				s := string(b)
				before = &s
			}
			r := fsRun(t, NewWriteFile(env), map[string]any{"file_path": tt.path, "content": tt.content})
			if r.Error != nil {
				t.Fatalf("error %s: %s", r.Error.Type, r.Error.Message)
			}
			if got := strings.ReplaceAll(r.LLMText, ws, "<WS>"); got != tt.want {
				t.Errorf("llmContent\n%q\nwant\n%q", got, tt.want)
			}
			if got := fsRead(t, abs); got != tt.onDisk {
				t.Errorf("on disk %q, want %q", got, tt.onDisk)
			}
			d := r.Diff
			if d == nil {
				t.Fatal("no FileDiff display")
			}
			if d.FileName != filepath.Base(abs) || d.FilePath != abs || d.NewContent != tt.content {
				t.Errorf("diff %+v", d)
			}
			if tt.isNew != (d.OriginalContent == nil) || (before != nil && *d.OriginalContent != *before) {
				t.Errorf("originalContent %v, before %v", d.OriginalContent, before)
			}
			if !strings.Contains(d.FileDiff, "+"+strings.SplitN(tt.content, "\n", 2)[0]) {
				t.Errorf("unified diff lacks the new line:\n%s", d.FileDiff)
			}
		})
	}

	t.Run("no temporary files left", func(t *testing.T) {
		filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.Contains(d.Name(), ".castor-tmp-") {
				t.Errorf("temporary file left: %s", p)
			}
			return nil
		})
	})
}

func TestWriteFileModifiedByUser(t *testing.T) {
	env, ws := fsTestEnv(t)
	fsWrite(t, ws, "f.txt", "a\nb\nc\n")
	c, err := fsPrepare(NewWriteFile(env), "", map[string]any{"file_path": "f.txt", "content": "a\nB\nc\n"})
	if err != nil {
		t.Fatal(err.Message)
	}
	conf, cerr := c.Confirmation(context.Background())
	if cerr != nil || conf == nil {
		t.Fatalf("confirmation %v %v", conf, cerr)
	}
	abs := filepath.Join(ws, "f.txt")
	if conf.Type != tool.ConfirmEdit || conf.Title != "Confirm Write: f.txt" || conf.FileName != "f.txt" || conf.FilePath != abs ||
		conf.OriginalContent == nil || *conf.OriginalContent != "a\nb\nc\n" || conf.NewContent != "a\nB\nc\n" {
		t.Errorf("confirmation %+v", conf)
	}
	fsGolden(t, "write_file/confirm.diff", conf.FileDiff)

	m, ok := c.(tool.Modifiable)
	if !ok {
		t.Fatal("write_file calls are not Modifiable")
	}
	m.ApplyUserContent("a\nUSER\nc\n")
	r := c.Execute(context.Background(), nil)
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	want := "Successfully overwrote file: " + abs + ". User modified the `content` to be: a\nUSER\nc\n Here is the updated code:\na\nUSER\nc\n"
	if r.LLMText != want {
		t.Errorf("llmContent\n%q\nwant\n%q", r.LLMText, want)
	}
	if got := fsRead(t, abs); got != "a\nUSER\nc\n" {
		t.Errorf("on disk %q", got)
	}
	st := r.Diff.DiffStat
	if st == nil || st.ModelAddedLines != 1 || st.ModelRemovedLines != 1 || st.UserAddedLines != 1 || st.UserRemovedLines != 1 {
		t.Errorf("diffStat %+v", st)
	}
}

func TestWriteFileNewFileConfirmation(t *testing.T) {
	env, _ := fsTestEnv(t)
	c, err := fsPrepare(NewWriteFile(env), "", map[string]any{"file_path": "n.txt", "content": "x\n"})
	if err != nil {
		t.Fatal(err.Message)
	}
	conf, _ := c.Confirmation(context.Background())
	if conf == nil || conf.OriginalContent == nil || *conf.OriginalContent != "" || !strings.Contains(conf.FileDiff, "+x") {
		t.Errorf("confirmation %+v", conf)
	}
	if got := c.Describe(); got != "Writing to n.txt" {
		t.Errorf("Describe %q", got)
	}
}

func TestWriteFileErrors(t *testing.T) {
	env, ws := fsTestEnv(t)
	outside := fsTempDir(t)
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	notInWS := func(p string) string { return fsNotInWorkspace(env, p) }
	tests := []struct {
		name string
		args map[string]any
		typ  tool.ErrorType
		msg  string
	}{
		{"missing content", map[string]any{"file_path": "x"}, tool.ErrInvalidParams, "params must have required property 'content'"},
		{"empty path", map[string]any{"file_path": "", "content": "x"}, tool.ErrInvalidParams, `Missing or empty "file_path"`},
		{"directory", map[string]any{"file_path": "dir", "content": "x"}, tool.ErrInvalidParams, "Path is a directory, not a file: " + filepath.Join(ws, "dir")},
		{"dot-dot", map[string]any{"file_path": "../evil.txt", "content": "x"}, tool.ErrPathNotInWorkspace, notInWS(filepath.Join(filepath.Dir(ws), "evil.txt"))},
		{"absolute outside", map[string]any{"file_path": filepath.Join(outside, "evil.txt"), "content": "x"}, tool.ErrPathNotInWorkspace, notInWS(filepath.Join(outside, "evil.txt"))},
		{"through symlink", map[string]any{"file_path": "out/evil.txt", "content": "x"}, tool.ErrPathNotInWorkspace, notInWS(filepath.Join(ws, "out/evil.txt"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fsPrepare(NewWriteFile(env), "", tt.args)
			if err == nil || err.Type != tt.typ || err.Message != tt.msg {
				t.Errorf("got %+v\nwant %s %q", err, tt.typ, tt.msg)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "evil.txt")); err == nil {
		t.Error("a file was written outside the workspace")
	}

	t.Run("permission denied", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root ignores file permissions")
		}
		ro := filepath.Join(ws, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(ro, 0o755)
		r := fsRun(t, NewWriteFile(env), map[string]any{"file_path": "ro/f.txt", "content": "x"})
		want := "Permission denied writing to file: " + filepath.Join(ro, "f.txt") + " (EACCES)"
		if r.Error == nil || r.Error.Type != tool.ErrPermissionDenied || r.Error.Message != want {
			t.Errorf("got %+v", r.Error)
		}
	})

	t.Run("symlink retargeted outside after build", func(t *testing.T) {
		inner := filepath.Join(ws, "moving")
		if err := os.Mkdir(inner, 0o755); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(ws, "hop")
		if err := os.Symlink(inner, link); err != nil {
			t.Fatal(err)
		}
		c, err := fsPrepare(NewWriteFile(env), "", map[string]any{"file_path": "hop/f.txt", "content": "x"})
		if err != nil {
			t.Fatal(err.Message)
		}
		os.Remove(link)
		if err := os.Symlink(outside, link); err != nil {
			t.Fatal(err)
		}
		r := c.Execute(context.Background(), nil)
		if r.Error == nil || r.Error.Type != tool.ErrPathNotInWorkspace {
			t.Errorf("got %+v", r.Error)
		}
		if _, err := os.Stat(filepath.Join(outside, "f.txt")); err == nil {
			t.Error("written outside the workspace")
		}
	})
}
