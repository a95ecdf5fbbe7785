package builtin

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/tool"
)

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
