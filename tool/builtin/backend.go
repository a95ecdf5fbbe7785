package builtin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/castor-dev/castor/internal/lazy"
)

// TextFiles reads and writes text files somewhere other than the local
// disk: an ACP client's editor, which sees unsaved buffers and shows
// edits as they land. Env.Files holds one; paths are absolute and have
// passed the workspace checks. Implementations bound each call by their
// own session's lifetime, since the tools' file helpers take no context.
type TextFiles interface {
	// ReadTextFile returns the file's current text. A file that does not
	// exist gives an error wrapping fs.ErrNotExist.
	ReadTextFile(path string) (string, error)
	// WriteTextFile replaces the file's text, creating it when missing.
	WriteTextFile(path, content string) error
}

// ShellCommand is a foreground command handed to Env.Shell.
type ShellCommand struct {
	// Command is the bash command line, Dir its working directory and Env
	// its environment.
	Command string
	Dir     string
	Env     []string
	// Output, when set, receives the output so far while the command runs.
	Output func(string)
	// Timeout is the inactivity bound (tools.shell.inactivityTimeout):
	// the command is stopped once it has printed nothing for this long.
	// Zero means none.
	Timeout time.Duration
}

// ErrShellLocal, returned as ShellOutcome.Err by Env.Shell before
// anything ran, hands the command back to the local runner: the
// terminal's pseudo-terminal is switched off
// (tools.shell.enableInteractiveShell) or the system has none.
var ErrShellLocal = errors.New("run the shell command locally")

// ShellOutcome is how a command run by Env.Shell ended.
type ShellOutcome struct {
	// Output is the combined output.
	Output string
	// ExitCode is nil when the command was killed by a signal (Signal
	// names it) or never started (Err says why).
	ExitCode *int
	Signal   string
	Err      error
	// TimedOut says the command was stopped by ShellCommand.Timeout.
	TimedOut bool
	// Backgrounded says the user moved the running command to the
	// session's background processes (the terminal's Ctrl+B, as in Gemini
	// CLI 0.61): it goes on as process PID, and the model is told so.
	Backgrounded bool
	PID          int
}

// readText reads a file through Env.Files once the local checks passed.
func (e *Env) readText(path string) ([]byte, error) {
	s, err := e.Files.ReadTextFile(path)
	return []byte(s), err
}

// writeText writes through Env.Files after confining path as the local
// write does: the nearest existing ancestor, symlinks resolved, must lie
// in the workspace or the temp directory.
func (e *Env) writeText(path string, data []byte) error {
	dir := filepath.Dir(path)
	for {
		if _, err := os.Lstat(dir); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if !e.realAllowed()(filepath.Clean(real)) {
		return errOutsideWorkspace
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil || !e.realAllowed()(target) {
			return errOutsideWorkspace
		}
	}
	return e.Files.WriteTextFile(path, string(data))
}

// runShellVia runs a foreground command through Env.Shell and reports it
// as the local runner would.
func (e *Env) runShellVia(ctx context.Context, req shellRequest) shellResult {
	// The editor shows the command as the model wrote it: the option
	// guard only matters to a bash that inherited options, which a
	// terminal's fresh bash -c has not.
	command := strings.TrimPrefix(req.command, bashShoptGuard+" ")
	out := e.Shell(ctx, ShellCommand{Command: command, Dir: req.dir, Env: req.env, Output: req.out, Timeout: req.timeout})
	if errors.Is(out.Err, ErrShellLocal) {
		return runShell(ctx, req)
	}
	if out.Backgrounded {
		return shellResult{output: out.Output, backgrounded: true, pid: out.PID}
	}
	r := shellResult{output: out.Output, exitCode: out.ExitCode, err: out.Err, timedOut: out.TimedOut}
	if out.ExitCode == nil && out.Signal != "" {
		r.signal = signalNumber(out.Signal)
	}
	if ctx.Err() != nil {
		r.aborted, r.err = true, nil
	}
	return r
}

// signalNumbers are the POSIX numbers of the signals a client may name.
var signalNumbers = lazy.Value[map[string]int]{New: func() map[string]int {
	return map[string]int{"HUP": 1, "INT": 2, "QUIT": 3, "KILL": 9, "SEGV": 11, "PIPE": 13, "ALRM": 14, "TERM": 15}
}}
