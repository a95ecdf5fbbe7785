package castor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/proc"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// SessionContext is what dynamic instructions and hooks learn about the
// session they serve, with a filesystem and a shell that keep to the
// session's workspace and policy.
type SessionContext struct {
	SessionID  string
	WorkDir    string
	Timestamp  time.Time
	Transcript []*genai.Content
	// TranscriptPath is the session file, when the session is recorded.
	TranscriptPath string
	// Agent is the agent itself; nil in a hook run as a command.
	Agent *Agent
	// FS reads and writes files inside the workspace.
	FS *FS
	// Shell runs commands in the workspace.
	Shell *Shell
}

// ErrOutsideWorkspace is returned for paths outside the workspace.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// ErrPlanMode is returned for writes and commands in plan mode, which
// allows neither.
var ErrPlanMode = errors.New("not allowed in plan mode")

// newSessionContext describes the session of sa (nil in a hook run as a
// command, where only the working directory is known).
func newSessionContext(sa *setup.Agent, ts time.Time) SessionContext {
	if ts.IsZero() {
		ts = time.Now()
	}
	sc := SessionContext{Timestamp: ts}
	if sa == nil {
		return sc
	}
	ws := sa.Workspace
	sc.WorkDir = ws.Root()
	if sa.Session != nil {
		sc.SessionID = sa.Session.ID()
		sc.Transcript = sa.Session.History()
	}
	sc.Agent = &Agent{a: sa}
	sc.FS = &FS{ws: ws, pol: sa.Policy}
	sc.Shell = &Shell{ws: ws, pol: sa.Policy, env: sa.Env.Environ()}
	return sc
}

// commandContext is the SessionContext of a hook run as a command: the
// workspace is the hook's cwd, the transcript is read from the session
// file (when there is one and it reads).
func commandContext(sessionID, cwd, transcript string, ts time.Time) SessionContext {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	ws := tool.NewWorkspace(cwd)
	var history []*genai.Content
	if transcript != "" {
		if conv, err := chats.LoadFile(transcript); err == nil {
			history = conv.History()
		}
	}
	return SessionContext{
		Transcript: history,
		SessionID:  sessionID, WorkDir: cwd, Timestamp: ts, TranscriptPath: transcript,
		FS:    &FS{ws: ws},
		Shell: &Shell{ws: ws, env: os.Environ()},
	}
}

// FS is a filesystem limited to the session's workspace directories;
// in plan mode it only reads. Relative paths are relative to the
// workspace root.
type FS struct {
	ws  *tool.Workspace
	pol *policy.Engine
}

func (f *FS) path(p string) (string, error) {
	abs := f.ws.Resolve(p)
	if !f.ws.Contains(abs) {
		return "", fmt.Errorf("%s: %w", p, ErrOutsideWorkspace)
	}
	return abs, nil
}

func (f *FS) writable() error {
	if f.pol != nil && f.pol.Mode() == policy.ModePlan {
		return ErrPlanMode
	}
	return nil
}

// ReadFile returns a file's content.
func (f *FS) ReadFile(path string) (string, error) {
	p, err := f.path(path)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(p)
	return string(b), err
}

// WriteFile writes a file, creating its directory.
func (f *FS) WriteFile(path, content string) error {
	p, err := f.path(path)
	if err != nil {
		return err
	}
	if err := f.writable(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// ReadDir lists a directory.
func (f *FS) ReadDir(path string) ([]fs.DirEntry, error) {
	p, err := f.path(path)
	if err != nil {
		return nil, err
	}
	return os.ReadDir(p)
}

// Stat describes a file.
func (f *FS) Stat(path string) (fs.FileInfo, error) {
	p, err := f.path(path)
	if err != nil {
		return nil, err
	}
	return os.Stat(p)
}

// Remove deletes a file or an empty directory.
func (f *FS) Remove(path string) error {
	p, err := f.path(path)
	if err != nil {
		return err
	}
	if err := f.writable(); err != nil {
		return err
	}
	return os.Remove(p)
}

// Glob returns the workspace files matching pattern (filepath.Match
// syntax, relative to the root).
func (f *FS) Glob(pattern string) ([]string, error) {
	matches, err := filepath.Glob(f.ws.Resolve(pattern))
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(matches, func(m string) bool { return !f.ws.Contains(m) }), nil
}

// Shell runs commands through bash (sh without it) in the workspace. A
// command the settings exclude (tools.exclude, --exclude-tools) is
// refused, and so is every command in plan mode.
type Shell struct {
	ws  *tool.Workspace
	pol *policy.Engine
	env []string
}

// ShellOptions tune a command; the zero value runs in the workspace root
// with the session's environment and no timeout.
type ShellOptions struct {
	// Env is added to the session's environment.
	Env map[string]string
	// Dir is the working directory, inside the workspace.
	Dir string
	// Timeout ends the command (and what it started) when it runs longer.
	Timeout time.Duration
}

// ShellResult is a finished command.
type ShellResult struct {
	ExitCode int
	Stdout   string
	Stderr   string
	// Output is stdout and stderr interleaved as they were written.
	Output string
}

// Process is a running command started with Shell.Start.
type Process struct {
	// Stdin feeds the command; close it to send end of file.
	Stdin io.WriteCloser
	// Stdout and Stderr stream what the command writes.
	Stdout io.ReadCloser
	Stderr io.ReadCloser
	cmd    *exec.Cmd
	group  *proc.Group
	cancel context.CancelFunc
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Wait waits for the command to end (after its output has been read)
// and returns its exit code.
func (p *Process) Wait() (int, error) {
	defer p.cancel()
	defer p.group.Release()
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return -1, err
	}
	return 0, nil
}

// Kill ends the command and whatever it started.
func (p *Process) Kill() error { return p.group.Kill() }

func (s *Shell) command(ctx context.Context, command string, o *ShellOptions) (*exec.Cmd, context.CancelFunc, error) {
	if o == nil {
		o = &ShellOptions{}
	}
	if s.pol != nil {
		// Only the exclusion rules count: the program, not the model, runs
		// the command, so what would need the user's approval is allowed.
		// Asking as a read-only call leaves exactly those rules to refuse.
		if d, msg := s.pol.Decide(policy.Call{Name: "run_shell_command", Kind: tool.KindRead, Args: map[string]any{"command": command}}); d == policy.Deny && s.pol.Mode() != policy.ModePlan {
			if msg == "" {
				msg = "denied by policy"
			}
			return nil, nil, fmt.Errorf("command %q: %s", command, msg)
		}
		if s.pol.Mode() == policy.ModePlan {
			return nil, nil, fmt.Errorf("command %q: %w", command, ErrPlanMode)
		}
	}
	dir := s.ws.Root()
	if o.Dir != "" {
		dir = s.ws.Resolve(o.Dir)
		if !s.ws.Contains(dir) {
			return nil, nil, fmt.Errorf("%s: %w", o.Dir, ErrOutsideWorkspace)
		}
	}
	cancel := func() {}
	if o.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
	}
	sh := "/bin/sh"
	if p, err := exec.LookPath("bash"); err == nil {
		sh = p
	}
	cmd := exec.CommandContext(ctx, sh, "-c", command)
	cmd.Dir = dir
	cmd.Env = slices.Clone(s.env)
	for k, v := range o.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.WaitDelay = time.Second
	return cmd, cancel, nil
}

// Exec runs a command to completion. A non-zero exit is no error: it is
// in ExitCode; the error is for a command that could not run or timed
// out.
func (s *Shell) Exec(ctx context.Context, command string, o *ShellOptions) (*ShellResult, error) {
	cmd, cancel, err := s.command(ctx, command, o)
	if err != nil {
		return nil, err
	}
	defer cancel()
	var stdout, stderr bytes.Buffer
	// Unbounded: the program chose the command and reads all it says.
	var both proc.Buffer
	cmd.Stdout = io.MultiWriter(&stdout, &both)
	cmd.Stderr = io.MultiWriter(&stderr, &both)
	err = proc.New(cmd, proc.Options{}).Run()
	res := &ShellResult{Stdout: stdout.String(), Stderr: stderr.String(), Output: both.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		res.ExitCode = ee.ExitCode()
	default:
		res.ExitCode = -1
		if ctxErr := context.Cause(ctx); ctxErr != nil || cmd.ProcessState != nil {
			return res, fmt.Errorf("command %q: %w", command, errors.Join(err, ctxErr))
		}
		return res, fmt.Errorf("command %q: %w", command, err)
	}
	return res, nil
}

// Start starts a command whose input and output are streamed; call Wait
// once its output has been read.
func (s *Shell) Start(ctx context.Context, command string, o *ShellOptions) (*Process, error) {
	cmd, cancel, err := s.command(ctx, command, o)
	if err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, group: proc.New(cmd, proc.Options{}), cancel: cancel}
	if p.Stdin, err = cmd.StdinPipe(); err == nil {
		if p.Stdout, err = cmd.StdoutPipe(); err == nil {
			if p.Stderr, err = cmd.StderrPipe(); err == nil {
				err = p.group.Start()
			}
		}
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return p, nil
}

// sessionKey carries the assembled agent in the context of a turn.
type sessionKey struct{}

// withSession marks ctx as a turn of sa, for SessionContextFrom.
func withSession(ctx context.Context, sa *setup.Agent) context.Context {
	return context.WithValue(ctx, sessionKey{}, sa)
}

// SessionContextFrom returns the SessionContext of the session whose turn
// ctx belongs to; a tool made with NewTool calls it with the context its
// function receives. It reports false outside a turn of an Agent.
func SessionContextFrom(ctx context.Context) (SessionContext, bool) {
	sa, ok := ctx.Value(sessionKey{}).(*setup.Agent)
	if !ok || sa == nil {
		return SessionContext{}, false
	}
	return newSessionContext(sa, time.Now()), true
}
