package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

func TestListDirectory(t *testing.T) {
	env, ws := fsTestEnv(t)
	fsWrite(t, ws, "README.md", "# Demo project\n\nThis is the README of the demo project.\nIt has three lines of body text.\n")
	fsWrite(t, ws, "src/main.go", "package main\n")
	fsWrite(t, ws, "go.mod", "module x\n")
	fsWrite(t, ws, "_notes.txt", "n")
	fsWrite(t, ws, "Zeta.txt", "zz")
	fsWrite(t, ws, "alpha.txt", "a")
	fsWrite(t, ws, "build/out.bin", "o")
	fsWrite(t, ws, "debug.log", "log")
	fsWrite(t, ws, "docs/a.md", "a")
	if err := os.Mkdir(filepath.Join(ws, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(ws, "srclink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing-target", filepath.Join(ws, "dangling")); err != nil {
		t.Fatal(err)
	}

	t.Run("listing", func(t *testing.T) {
		r := fsRun(t, NewListDirectory(env), map[string]any{"path": ws})
		if r.Error != nil {
			t.Fatal(r.Error.Message)
		}
		fsGolden(t, "list_directory/listing.golden", strings.ReplaceAll(r.LLMText, ws, "<WS>"))
		if r.Display != "Listed 11 item(s)." {
			t.Errorf("display %q", r.Display)
		}
	})

	t.Run("ignored by filter and by pattern", func(t *testing.T) {
		env := *env
		fsWithFilter(&env, "build", "debug.log")
		r := fsRun(t, NewListDirectory(&env), map[string]any{"dir_path": ".", "ignore": []any{"*.txt", "dang?ing"}})
		if r.Error != nil {
			t.Fatal(r.Error.Message)
		}
		fsGolden(t, "list_directory/ignored.golden", strings.ReplaceAll(r.LLMText, ws, "<WS>"))
		if r.Display != "Listed 6 item(s). (2 ignored)" {
			t.Errorf("display %q", r.Display)
		}
	})

	t.Run("filtering switched off", func(t *testing.T) {
		env := *env
		var got tool.FilterOptions
		env.Filter = func(o tool.FilterOptions) tool.FileFilter { got = o; return fsFilter{"build": true} }
		fsRun(t, NewListDirectory(&env), map[string]any{"path": ".", "file_filtering_options": map[string]any{"respect_git_ignore": false}})
		if got.RespectGitIgnore || !got.RespectGeminiIgnore {
			t.Errorf("filter options %+v", got)
		}
	})

	notInWS := func(p string) string { return fsNotInWorkspace(env, p) }
	tests := []struct {
		name    string
		args    map[string]any
		typ     tool.ErrorType
		msg     string
		display string
	}{
		{"empty", map[string]any{"path": "empty"}, "", "Directory " + filepath.Join(ws, "empty") + " is empty.", "Directory is empty."},
		{"a file", map[string]any{"path": "go.mod"}, tool.ErrPathIsNotADirectory, "Error: Path is not a directory: " + filepath.Join(ws, "go.mod"), "Error: Path is not a directory."},
		{"missing", map[string]any{"path": "nope"}, tool.ErrLsExecutionError, "Error listing directory: ENOENT: no such file or directory, stat '" + filepath.Join(ws, "nope") + "'", "Error: Failed to list directory."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fsRun(t, NewListDirectory(env), tt.args)
			if tt.typ == "" {
				if r.Error != nil || r.LLMText != tt.msg {
					t.Errorf("got %q (error %v), want %q", r.LLMText, r.Error, tt.msg)
				}
			} else if r.Error == nil || r.Error.Type != tt.typ || r.Error.Message != tt.msg {
				t.Errorf("got %+v, want %s %q", r.Error, tt.typ, tt.msg)
			}
			if r.Display != tt.display {
				t.Errorf("display %q, want %q", r.Display, tt.display)
			}
		})
	}

	escapes := []struct {
		name, path, abs string
	}{
		{"dot-dot", "..", filepath.Dir(ws)},
		{"absolute outside", "/etc", "/etc"},
		{"symlink outside", "out", filepath.Join(ws, "out")},
	}
	if err := os.Symlink(fsTempDir(t), filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range escapes {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fsPrepare(NewListDirectory(env), "", map[string]any{"path": tt.path})
			if err == nil || err.Type != tool.ErrPathNotInWorkspace || err.Message != notInWS(tt.abs) {
				t.Errorf("got %+v", err)
			}
		})
	}
}
