package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func perm(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestWriteFileAtomic(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes and symlinks")
	}
	dir := t.TempDir()

	t.Run("new file gets perm, parents are created", func(t *testing.T) {
		p := filepath.Join(dir, "a", "b", "new.json")
		if err := WriteFileAtomic(p, []byte("x"), 0o640); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, p); got != "x" {
			t.Errorf("content = %q", got)
		}
		if got := perm(t, p); got != 0o640 {
			t.Errorf("mode = %v, want 0640", got)
		}
	})

	t.Run("existing file keeps its mode", func(t *testing.T) {
		p := filepath.Join(dir, "old.json")
		if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := WriteFileAtomic(p, []byte("new"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, p); got != "new" {
			t.Errorf("content = %q", got)
		}
		if got := perm(t, p); got != 0o644 {
			t.Errorf("mode = %v, want 0644", got)
		}
	})

	t.Run("symlink target is replaced, link kept", func(t *testing.T) {
		real := filepath.Join(dir, "real.json")
		link := filepath.Join(dir, "link.json")
		if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		if err := WriteFileAtomic(link, []byte("new"), 0o600); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("link is gone: %v, %v", fi, err)
		}
		if got := readFile(t, real); got != "new" {
			t.Errorf("target content = %q", got)
		}
	})

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".json" && e.Name() != "a" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestReplaceFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes and symlinks")
	}
	dir := t.TempDir()

	t.Run("mode is set, not kept", func(t *testing.T) {
		p := filepath.Join(dir, "creds.json")
		if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := ReplaceFile(p, []byte("new"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, p); got != "new" {
			t.Errorf("content = %q", got)
		}
		if got := perm(t, p); got != 0o600 {
			t.Errorf("mode = %v, want 0600", got)
		}
	})

	t.Run("symlink is replaced, target untouched", func(t *testing.T) {
		real := filepath.Join(dir, "real.json")
		link := filepath.Join(dir, "link.json")
		if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		if err := ReplaceFile(link, []byte("new"), 0o600); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("link not replaced by a file: %v, %v", fi, err)
		}
		if got := readFile(t, real); got != "old" {
			t.Errorf("target content = %q", got)
		}
	})

	t.Run("missing directory fails, nothing left", func(t *testing.T) {
		if err := ReplaceFile(filepath.Join(dir, "nope", "x.json"), nil, 0o600); err == nil {
			t.Fatal("want an error")
		}
	})

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("entries = %v, want creds.json, link.json, real.json", entries)
	}
}

func TestResolveExisting(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ in, want string }{
		{filepath.Join(dir, "link"), real},
		{filepath.Join(dir, "link", "new", "file.txt"), filepath.Join(real, "new", "file.txt")},
		{filepath.Join(dir, "missing", "x"), filepath.Join(dir, "missing", "x")},
		{"relative/never/there", "relative/never/there"},
	} {
		if got := ResolveExisting(tt.in); got != tt.want {
			t.Errorf("ResolveExisting(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCopyFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.WriteFile(src, []byte("new"), 0o640); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		existing string // "" means dst does not exist
		replace  bool
		want     string
		wantErr  bool
	}{
		{name: "new file", want: "new"},
		{name: "new file, replace", replace: true, want: "new"},
		{name: "existing kept", existing: "old", wantErr: true, want: "old"},
		{name: "existing replaced", existing: "longer old content", replace: true, want: "new"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := filepath.Join(dir, fmt.Sprintf("dst%d", i))
			if tt.existing != "" {
				if err := os.WriteFile(dst, []byte(tt.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := CopyFile(src, dst, tt.replace)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			got, _ := os.ReadFile(dst)
			if string(got) != tt.want {
				t.Errorf("dst holds %q, want %q", got, tt.want)
			}
			if fi, _ := os.Stat(dst); tt.existing == "" && fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want 0640", fi.Mode().Perm())
			}
		})
	}
}
