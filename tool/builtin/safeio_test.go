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

// swapForSymlink moves path aside and puts a symlink to target in its
// place: the attack the workspace check must survive.
func swapForSymlink(t *testing.T, path, target string) {
	t.Helper()
	if err := os.Rename(path, path+".orig"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// withOpenHook runs hook once, the first time a checked open reaches a
// path for which match is true, and removes it when the test ends.
func withOpenHook(t *testing.T, match func(string) bool, hook func()) {
	t.Helper()
	done := false
	testHookBeforeOpen = func(p string) {
		if !done && match(p) {
			done = true
			hook()
		}
	}
	t.Cleanup(func() { testHookBeforeOpen = nil })
}

// TestSymlinkSwapBetweenCheckAndUse swaps a directory of the target path,
// or the target file itself, for a symlink leading out of the workspace
// after the call was built: either before Execute starts (its re-check
// must catch it) or at the very moment the file is opened (only the
// checks on the opened file can). No file outside may be read or written.
func TestSymlinkSwapBetweenCheckAndUse(t *testing.T) {
	const secret = "TOP SECRET\n"
	tests := []struct {
		name string
		tool func(*Env) tool.Tool
		args map[string]any
		// swap is the path (relative to the workspace) replaced by a
		// symlink to the same relative path outside.
		swap string
		// atWrite makes the at-open swap wait for the write's own open of
		// the directory, past the reads that come before it.
		atWrite bool
		// quiet names when the tool skips the file instead of failing:
		// "at open", "always" or "" (never).
		quiet string
	}{
		{"read_file dir", NewReadFile, map[string]any{"absolute_path": "sub/a.txt"}, "sub", false, ""},
		{"read_file file", NewReadFile, map[string]any{"absolute_path": "sub/a.txt"}, "sub/a.txt", false, ""},
		{"read_many_files dir", NewReadManyFiles, map[string]any{"paths": []any{"sub/a.txt"}}, "sub", false, "always"},
		{"write_file dir", NewWriteFile, map[string]any{"file_path": "sub/a.txt", "content": "pwned\n"}, "sub", false, ""},
		{"write_file dir at write", NewWriteFile, map[string]any{"file_path": "sub/a.txt", "content": "pwned\n"}, "sub", true, ""},
		{"write_file new file in swapped dir", NewWriteFile, map[string]any{"file_path": "sub/new.txt", "content": "pwned\n"}, "sub", true, ""},
		{"write_file file", NewWriteFile, map[string]any{"file_path": "sub/a.txt", "content": "pwned\n"}, "sub/a.txt", false, ""},
		{"replace dir", NewReplace, map[string]any{"file_path": "sub/a.txt", "old_string": "inside", "new_string": "pwned"}, "sub", false, ""},
		{"replace dir at write", NewReplace, map[string]any{"file_path": "sub/a.txt", "old_string": "inside", "new_string": "pwned"}, "sub", true, ""},
		{"replace file", NewReplace, map[string]any{"file_path": "sub/a.txt", "old_string": "inside", "new_string": "pwned"}, "sub/a.txt", false, ""},
		{"smart_edit dir at write", NewSmartEdit, map[string]any{"file_path": "sub/a.txt", "instruction": "x", "old_string": "inside", "new_string": "pwned"}, "sub", true, ""},
		{"list_directory", NewListDirectory, map[string]any{"path": "sub"}, "sub", false, ""},
		{"search_file_content walker", func(env *Env) tool.Tool { return &grepTool{env: env} }, map[string]any{"pattern": "inside", "path": "sub"}, "sub", false, "at open"},
	}
	for _, when := range []string{"before execute", "at open", "at open without /proc"} {
		for _, tt := range tests {
			t.Run(when+"/"+tt.name, func(t *testing.T) {
				if when == "at open without /proc" {
					kernelPath = func(*os.File) (string, error) { return "", errors.ErrUnsupported }
					t.Cleanup(func() { kernelPath = fdPath })
				}
				env, ws := fsTestEnv(t)
				outside := fsTempDir(t)
				fsWrite(t, ws, "sub/a.txt", "inside\n")
				fsWrite(t, outside, "sub/a.txt", "inside "+secret)
				if err := os.Mkdir(filepath.Join(outside, "sub/a.txt.orig"), 0o755); err != nil {
					t.Fatal(err)
				}
				c, terr := fsPrepare(tt.tool(env), "", tt.args)
				if terr != nil {
					t.Fatalf("build: %s", terr.Message)
				}
				swapped := filepath.Join(ws, tt.swap)
				swap := func() { swapForSymlink(t, swapped, filepath.Join(outside, tt.swap)) }
				if when == "before execute" {
					swap()
				} else {
					// Any checked open at or below the swapped path.
					withOpenHook(t, func(p string) bool {
						return p == swapped || (!tt.atWrite && strings.HasPrefix(p, swapped+"/"))
					}, swap)
				}
				r := c.Execute(context.Background(), nil)
				if strings.Contains(r.ResponseText(), "SECRET") || partsContain(r, "SECRET") || strings.Contains(r.ResponseText(), "a.txt.orig") {
					t.Errorf("the model saw the outside file: %s", r.ResponseText())
				}
				if got := fsRead(t, filepath.Join(outside, "sub/a.txt")); got != "inside "+secret {
					t.Errorf("outside file changed: %q", got)
				}
				if _, err := os.Stat(filepath.Join(outside, "sub/new.txt")); err == nil {
					t.Error("a file was created outside the workspace")
				}
				if entries, _ := os.ReadDir(filepath.Join(outside, "sub")); len(entries) != 2 {
					t.Errorf("outside directory gained files: %v", entries)
				}
				if tt.quiet == "always" || (tt.quiet == "at open" && strings.HasPrefix(when, "at open")) {
					// The tool reports the file as skipped (or simply finds
					// nothing in it) rather than failing the call.
					return
				}
				if r.Error == nil || r.Error.Type != tool.ErrPathNotInWorkspace {
					t.Errorf("error %+v, want %s", r.Error, tool.ErrPathNotInWorkspace)
				}
			})
		}
	}
}

// partsContain reports whether any text part of r contains s.
func partsContain(r *tool.Result, s string) bool {
	for _, p := range r.LLMParts {
		if p != nil && strings.Contains(p.Text, s) {
			return true
		}
	}
	return false
}

// TestWriteThroughSymlinks checks which symlinks edits may write through:
// links whose target stays inside the workspace are followed (the link
// survives), links leading out are refused, even when the target does
// not exist yet and so passed the check at build time.
func TestWriteThroughSymlinks(t *testing.T) {
	tests := []struct {
		name     string
		link     string // link target; "<WS>" and "<OUT>" are replaced
		tool     string
		wantErr  tool.ErrorType
		buildErr bool
		written  string // file that must hold the new content; "" when refused
	}{
		{name: "relative link inside", link: "real.txt", tool: "write_file", written: "<WS>/real.txt"},
		{name: "absolute link inside", link: "<WS>/real.txt", tool: "replace", written: "<WS>/real.txt"},
		{name: "link into a subdirectory", link: "d/deep.txt", tool: "write_file", written: "<WS>/d/deep.txt"},
		{name: "dangling link inside", link: "d/later.txt", tool: "write_file", written: "<WS>/d/later.txt"},
		{name: "link outside", link: "<OUT>/victim.txt", tool: "write_file", buildErr: true},
		{name: "link outside, replace", link: "<OUT>/victim.txt", tool: "replace", buildErr: true},
		{name: "dangling link outside", link: "<OUT>/new.txt", tool: "write_file", wantErr: tool.ErrPathNotInWorkspace},
		{name: "relative link escaping", link: "../" + "escape.txt", tool: "write_file", wantErr: tool.ErrPathNotInWorkspace},
		{name: "link chain leading out", link: "hop.txt", tool: "write_file", wantErr: tool.ErrPathNotInWorkspace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, ws := fsTestEnv(t)
			outside := fsTempDir(t)
			fsWrite(t, ws, "real.txt", "old text\n")
			fsWrite(t, ws, "d/deep.txt", "old text\n")
			fsWrite(t, outside, "victim.txt", "old text\n")
			if err := os.Symlink(filepath.Join(outside, "nowhere.txt"), filepath.Join(ws, "hop.txt")); err != nil {
				t.Fatal(err)
			}
			repl := strings.NewReplacer("<WS>", ws, "<OUT>", outside)
			link := filepath.Join(ws, "link.txt")
			if err := os.Symlink(repl.Replace(tt.link), link); err != nil {
				t.Fatal(err)
			}
			args := map[string]any{"file_path": "link.txt", "content": "new text\n"}
			tl := NewWriteFile(env)
			if tt.tool == "replace" {
				args = map[string]any{"file_path": "link.txt", "old_string": "old", "new_string": "new"}
				tl = NewReplace(env)
			}
			c, terr := fsPrepare(tl, "", args)
			if tt.buildErr {
				if terr == nil || terr.Type != tool.ErrPathNotInWorkspace {
					t.Fatalf("build error %+v, want %s", terr, tool.ErrPathNotInWorkspace)
				}
				return
			}
			if terr != nil {
				t.Fatalf("build: %s", terr.Message)
			}
			r := c.Execute(context.Background(), nil)
			if tt.wantErr != "" {
				if r.Error == nil || r.Error.Type != tt.wantErr {
					t.Fatalf("error %+v, want %s", r.Error, tt.wantErr)
				}
				for _, p := range []string{filepath.Join(outside, "new.txt"), filepath.Join(outside, "nowhere.txt"), filepath.Join(filepath.Dir(ws), "escape.txt")} {
					if _, err := os.Stat(p); err == nil {
						t.Errorf("%s was created", p)
					}
				}
				if got := fsRead(t, filepath.Join(outside, "victim.txt")); got != "old text\n" {
					t.Errorf("outside file changed: %q", got)
				}
				return
			}
			if r.Error != nil {
				t.Fatalf("%s: %s", r.Error.Type, r.Error.Message)
			}
			if got := fsRead(t, repl.Replace(tt.written)); got != "new text\n" {
				t.Errorf("%s = %q", tt.written, got)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Error("the link was replaced by a file")
			}
		})
	}
}

// TestVerifiedHelpers covers the helpers directly, including the loop
// guard and a confined write through a directory swapped at open time.
func TestVerifiedHelpers(t *testing.T) {
	env, ws := fsTestEnv(t)
	outside := fsTempDir(t)
	allowed := env.realAllowed()

	t.Run("loop", func(t *testing.T) {
		a, b := filepath.Join(ws, "loop-a"), filepath.Join(ws, "loop-b")
		os.Symlink(b, a)
		os.Symlink(a, b)
		if err := writeAtomic(a, []byte("x"), allowed, 0); err == nil {
			t.Error("a symlink loop was written through")
		}
	})
	t.Run("temp dir allowed", func(t *testing.T) {
		p := filepath.Join(env.TempDir, "tool-outputs", "x.txt")
		if err := env.writeFileSafe(p, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if b, err := env.readFileSafe(p); err != nil || string(b) != "x" {
			t.Errorf("read back %q, %v", b, err)
		}
	})
	t.Run("outside refused", func(t *testing.T) {
		p := fsWrite(t, outside, "o.txt", "o")
		if _, err := env.readFileSafe(p); err != errOutsideWorkspace {
			t.Errorf("read: %v", err)
		}
		if err := env.writeFileSafe(p, []byte("x")); err != errOutsideWorkspace {
			t.Errorf("write: %v", err)
		}
		if got := fsRead(t, p); got != "o" {
			t.Errorf("changed to %q", got)
		}
	})
	t.Run("missing parents created inside", func(t *testing.T) {
		p := filepath.Join(ws, "n1", "n2", "f.txt")
		if err := env.writeFileSafe(p, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if got := fsRead(t, p); got != "x" {
			t.Errorf("%q", got)
		}
	})
	t.Run("ancestor swapped while creating parents", func(t *testing.T) {
		fsWrite(t, ws, "m/keep.txt", "k")
		os.MkdirAll(filepath.Join(outside, "m"), 0o755)
		swapped := filepath.Join(ws, "m")
		withOpenHook(t, func(p string) bool { return p == swapped }, func() {
			swapForSymlink(t, swapped, filepath.Join(outside, "m"))
		})
		err := env.writeFileSafe(filepath.Join(ws, "m", "x", "y", "f.txt"), []byte("x"))
		if err != errOutsideWorkspace {
			t.Errorf("err %v", err)
		}
		if _, err := os.Stat(filepath.Join(outside, "m", "x")); err == nil {
			t.Error("directories were created outside")
		}
	})
	t.Run("fifo refused without blocking", func(t *testing.T) {
		p := filepath.Join(ws, "fifo")
		if !haveFifo {
			t.Skip("no named pipes on this system")
		}
		if err := syscallMkfifo(p); err != nil {
			t.Skip("no FIFOs here:", err)
		}
		if _, err := env.readFileSafe(p); err == nil {
			t.Error("read a FIFO")
		}
	})
}

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
