package builtin

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// TestBeforeEdit checks that every edit tool calls Env.BeforeEdit once,
// before the file changes and with the call's identity, and that edits
// that fail validation do not.
func TestBeforeEdit(t *testing.T) {
	tests := []struct {
		name     string
		tool     func(*Env) tool.Tool
		args     map[string]any
		wantCall bool
	}{
		{"write_file", NewWriteFile, map[string]any{"file_path": "a.txt", "content": "new\n"}, true},
		{"replace", NewReplace, map[string]any{"file_path": "a.txt", "old_string": "old", "new_string": "new"}, true},
		{"smart_edit", NewSmartEdit, map[string]any{"file_path": "a.txt", "instruction": "x", "old_string": "old", "new_string": "new"}, true},
		{"replace without a match", NewReplace, map[string]any{"file_path": "a.txt", "old_string": "absent", "new_string": "new"}, false},
		{"replace creating an existing file", NewReplace, map[string]any{"file_path": "a.txt", "old_string": "", "new_string": "new"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, ws := fsTestEnv(t)
			p := fsWrite(t, ws, "a.txt", "old\n")
			var got []Edit
			env.BeforeEdit = func(ctx context.Context, e Edit) {
				if content := fsRead(t, p); content != "old\n" {
					t.Errorf("file already changed when the hook ran: %q", content)
				}
				got = append(got, e)
			}
			c, terr := fsPrepare(tt.tool(env), "", tt.args)
			if terr != nil {
				t.Fatal(terr.Message)
			}
			ctx := tool.WithPromptID(tool.WithCallID(context.Background(), "call-1"), "sess########1")
			r := c.Execute(ctx, nil)
			if !tt.wantCall {
				if r.Error == nil || len(got) != 0 {
					t.Errorf("error %v, hook calls %d; want a failed edit and no call", r.Error, len(got))
				}
				return
			}
			if r.Error != nil {
				t.Fatalf("%s: %s", r.Error.Type, r.Error.Message)
			}
			if len(got) != 1 {
				t.Fatalf("hook called %d times", len(got))
			}
			e := got[0]
			if e.Tool != tt.tool(env).Name() || e.Path != filepath.Join(ws, "a.txt") || e.CallID != "call-1" || e.PromptID != "sess########1" || e.Args["file_path"] != "a.txt" {
				t.Errorf("hook got %+v", e)
			}
		})
	}
}

func TestMemoryChanged(t *testing.T) {
	tests := []struct {
		name  string
		file  string // memory file, relative to a temp dir; "" = unset
		calls int
	}{
		{"saved", "GEMINI.md", 1},
		{"failed", "", 0},
		{"unwritable", "missing-parent-is-a-file/GEMINI.md", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			fsWrite(t, dir, "missing-parent-is-a-file", "x")
			env := &Env{}
			if tt.file != "" {
				env.MemoryFile = filepath.Join(dir, tt.file)
			}
			calls := 0
			env.MemoryChanged = func() { calls++ }
			c, terr := fsPrepare(NewSaveMemory(env), "", map[string]any{"fact": "I like tea"})
			if terr != nil {
				t.Fatal(terr.Message)
			}
			c.Execute(context.Background(), nil)
			if calls != tt.calls {
				t.Errorf("MemoryChanged called %d times, want %d", calls, tt.calls)
			}
		})
	}
}

func TestWebFetchAllowPrivateHosts(t *testing.T) {
	for _, allow := range []bool{false, true} {
		tl := NewWebFetch(&Env{AllowPrivateHosts: allow}).(*WebFetchTool)
		if blocked := tl.hostBlocked("127.0.0.1"); blocked == allow {
			t.Errorf("AllowPrivateHosts=%v: 127.0.0.1 blocked=%v", allow, blocked)
		}
	}
}
