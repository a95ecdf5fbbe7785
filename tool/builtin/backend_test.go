package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// editorFiles is a TextFiles over a map of buffers, falling back to the
// disk for reads, as an editor with unsaved changes would.
type editorFiles struct {
	buffers map[string]string
	writes  []string
}

func (f *editorFiles) ReadTextFile(path string) (string, error) {
	if s, ok := f.buffers[path]; ok {
		return s, nil
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

func (f *editorFiles) WriteTextFile(path, content string) error {
	f.writes = append(f.writes, path)
	f.buffers[path] = content
	return nil
}

func TestEnvFiles(t *testing.T) {
	env, ws := fsTestEnv(t)
	notes := fsWrite(t, ws, "notes.txt", "on disk\n")
	files := &editorFiles{buffers: map[string]string{notes: "unsaved buffer\n"}}
	env.Files = files

	r := fsRun(t, NewReadFile(env), map[string]any{"file_path": "notes.txt"})
	if r.Error != nil || !strings.Contains(r.LLMText, "unsaved buffer") {
		t.Errorf("read_file through the editor: %+v", r)
	}

	r = fsRun(t, NewReplace(env), map[string]any{"file_path": notes, "old_string": "unsaved", "new_string": "edited"})
	if r.Error != nil {
		t.Fatalf("replace: %s", r.Error.Message)
	}
	if files.buffers[notes] != "edited buffer\n" || fsRead(t, notes) != "on disk\n" {
		t.Errorf("replace: buffer %q, disk %q", files.buffers[notes], fsRead(t, notes))
	}

	newFile := filepath.Join(ws, "sub", "new.txt")
	r = fsRun(t, NewWriteFile(env), map[string]any{"file_path": newFile, "content": "fresh\n"})
	if r.Error != nil || !strings.Contains(r.LLMText, "new file") {
		t.Errorf("write_file of a new file: %+v", r)
	}
	if files.buffers[newFile] != "fresh\n" {
		t.Errorf("new file not written through the editor: %v", files.writes)
	}
	if _, err := os.Stat(newFile); !os.IsNotExist(err) {
		t.Errorf("the new file was written locally too: %v", err)
	}

	// A symlink leading out of the workspace is refused before the
	// editor is asked.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Skip(err)
	}
	before := len(files.writes)
	if _, terr := fsPrepare(NewWriteFile(env), "write_file", map[string]any{"file_path": filepath.Join(ws, "escape", "x.txt"), "content": "x"}); terr == nil {
		t.Error("write through an escaping symlink was accepted")
	}
	if err := env.writeFileSafe(filepath.Join(ws, "escape", "y.txt"), []byte("y")); err == nil || len(files.writes) != before {
		t.Errorf("writeFileSafe through an escaping symlink: %v, writes %v", err, files.writes)
	}
}

func TestEnvShell(t *testing.T) {
	env, ws := fsTestEnv(t)
	var got ShellCommand
	env.Shell = func(ctx context.Context, c ShellCommand) ShellOutcome {
		got = c
		zero := 0
		return ShellOutcome{Output: "from the editor\n", ExitCode: &zero}
	}
	r := fsRun(t, NewShell(env), map[string]any{"command": "echo hi"})
	if r.Error != nil || !strings.Contains(r.LLMText, "from the editor") || !strings.Contains(r.LLMText, "Exit Code: 0") {
		t.Errorf("shell through the editor: %+v", r)
	}
	if got.Command != "echo hi" || got.Dir != ws {
		t.Errorf("command %q in %q", got.Command, got.Dir)
	}

	env.Shell = func(ctx context.Context, c ShellCommand) ShellOutcome {
		return ShellOutcome{Output: "partial", Signal: "SIGTERM"}
	}
	r = fsRun(t, NewShell(env), map[string]any{"command": "sleep 9"})
	if !strings.Contains(r.LLMText, "Signal: 15") {
		t.Errorf("killed command: %q", r.LLMText)
	}

	// ErrShellLocal hands the command back to the local bash (the
	// terminal's pseudo-terminal switched off or missing).
	env.Shell = func(ctx context.Context, c ShellCommand) ShellOutcome {
		return ShellOutcome{Err: ErrShellLocal}
	}
	r = fsRun(t, NewShell(env), map[string]any{"command": "echo ran-42 | tr 2 2"})
	if r.Error != nil || !strings.Contains(r.LLMText, "ran-42") {
		t.Errorf("handed back to the local runner: %+v", r)
	}

	env.Shell = func(ctx context.Context, c ShellCommand) ShellOutcome {
		return ShellOutcome{Output: "slow", TimedOut: true}
	}
	r = fsRun(t, NewShell(env), map[string]any{"command": "sleep 9"})
	if !strings.Contains(r.LLMText, "without output") {
		t.Errorf("timed out command: %q", r.LLMText)
	}
}
