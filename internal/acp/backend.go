package acp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/tool"
	"github.com/castor-dev/castor/tool/builtin"
)

// clientFiles serves the built-in tools' file text from the client's
// editor (fs/read_text_file, fs/write_text_file) for files inside the
// session's directory, so that unsaved buffers are seen and edits land in
// the editor; other paths, and whatever the client does not offer, stay
// on the local disk, as in Gemini CLI.
type clientFiles struct {
	s            *session
	read, write  bool
	root, gemini string
}

func (f *clientFiles) remote(path string) bool {
	return within(f.root, path) && (f.gemini == "" || !within(f.gemini, path))
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ReadTextFile implements builtin.TextFiles.
func (f *clientFiles) ReadTextFile(path string) (string, error) {
	if !f.read || !f.remote(path) {
		b, err := os.ReadFile(path)
		return string(b), err
	}
	resp, err := f.s.conn.ReadTextFile(f.s.callContext(), sdk.ReadTextFileRequest{SessionId: sdk.SessionId(f.s.id), Path: path})
	if err != nil {
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
			return "", serr
		}
		return "", fmt.Errorf("the editor could not read %s: %w", path, err)
	}
	return resp.Content, nil
}

// WriteTextFile implements builtin.TextFiles.
func (f *clientFiles) WriteTextFile(path, content string) error {
	if !f.write || !f.remote(path) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
		return os.WriteFile(path, []byte(content), mode)
	}
	_, err := f.s.conn.WriteTextFile(f.s.callContext(), sdk.WriteTextFileRequest{SessionId: sdk.SessionId(f.s.id), Path: path, Content: content})
	if err != nil {
		return fmt.Errorf("the editor could not write %s: %w", path, err)
	}
	return nil
}

// shellOutputLimit bounds what the client keeps of a command's output;
// the tool truncates further for the model.
const shellOutputLimit = 16 << 20

// runInTerminal runs a shell command in a terminal of the client
// (terminal/create, wait_for_exit, output, release), shown in the call's
// content so that the user watches it run. Cancelling ctx kills it.
func (s *session) runInTerminal(ctx context.Context, cmd builtin.ShellCommand) builtin.ShellOutcome {
	dir := cmd.Dir
	t, err := s.conn.CreateTerminal(ctx, sdk.CreateTerminalRequest{
		SessionId:       sdk.SessionId(s.id),
		Command:         "bash",
		Args:            []string{"-c", cmd.Command},
		Cwd:             &dir,
		Env:             envDelta(cmd.Env, os.Environ()),
		OutputByteLimit: sdk.Ptr(shellOutputLimit),
	})
	if err != nil {
		return builtin.ShellOutcome{Err: fmt.Errorf("the editor could not start a terminal: %w", err)}
	}
	// Release with a fresh context: the turn's may be cancelled already.
	bg := context.WithoutCancel(ctx)
	defer s.conn.ReleaseTerminal(bg, sdk.ReleaseTerminalRequest{SessionId: sdk.SessionId(s.id), TerminalId: t.TerminalId})
	if id := tool.CallID(ctx); id != "" {
		_ = s.conn.SessionUpdate(bg, sdk.SessionNotification{SessionId: sdk.SessionId(s.id), Update: sdk.SessionUpdate{
			ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: sdk.ToolCallId(id), Content: []sdk.ToolCallContent{sdk.ToolTerminalRef(t.TerminalId)}},
		}})
	}
	exit, werr := s.conn.WaitForTerminalExit(ctx, sdk.WaitForTerminalExitRequest{SessionId: sdk.SessionId(s.id), TerminalId: t.TerminalId})
	if werr != nil {
		_, _ = s.conn.KillTerminal(bg, sdk.KillTerminalRequest{SessionId: sdk.SessionId(s.id), TerminalId: t.TerminalId})
	}
	out, oerr := s.conn.TerminalOutput(bg, sdk.TerminalOutputRequest{SessionId: sdk.SessionId(s.id), TerminalId: t.TerminalId})
	res := builtin.ShellOutcome{Output: out.Output}
	switch {
	case werr != nil && ctx.Err() == nil:
		res.Err = fmt.Errorf("terminal: %w", werr)
	case werr == nil:
		res.ExitCode = exit.ExitCode
		if exit.Signal != nil {
			res.Signal = *exit.Signal
		}
	}
	if oerr != nil && res.Err == nil && ctx.Err() == nil {
		res.Err = fmt.Errorf("terminal output: %w", oerr)
	}
	return res
}

// envDelta are the variables of env that base lacks or sets otherwise:
// what the session adds (the workspace's .env, Gemini CLI's markers) to
// the environment the editor's terminal already has.
func envDelta(env, base []string) []sdk.EnvVariable {
	have := make(map[string]string, len(base))
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok {
			have[k] = v
		}
	}
	var out []sdk.EnvVariable
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if old, found := have[k]; !found || old != v {
			out = append(out, sdk.EnvVariable{Name: k, Value: v})
		}
	}
	return out
}
