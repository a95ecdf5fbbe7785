package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// outputError is a write to stdout that failed: its reader went away
// (a broken pipe), the disk it goes to is full, and the like. The run then
// exits 1 with this one line on stderr, so that a script does not take
// the exit for an answer. Gemini CLI 0.61 exits 0 on a broken pipe
// (process.exit(0) from stdout's EPIPE handler); Castor differs on
// purpose.
type outputError struct{ err error }

func (e *outputError) Error() string {
	return fmt.Sprintf("writing the output to stdout failed (%s); the answer was not delivered", cause(e.err))
}

func (e *outputError) Unwrap() error { return e.err }

// cause is the innermost error's text ("broken pipe" rather than "write
// /dev/stdout: broken pipe").
func cause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// stdoutGuard passes writes to stdout and, on the first that fails,
// stops the run: nobody can read the rest of a turn whose output is gone,
// and tools should not go on acting for it. Later writes fail at once.
type stdoutGuard struct {
	w    io.Writer
	stop context.CancelCauseFunc

	mu  sync.Mutex
	err *outputError
}

func (g *stdoutGuard) Write(p []byte) (int, error) {
	g.mu.Lock()
	failed := g.err
	g.mu.Unlock()
	if failed != nil {
		return 0, failed
	}
	n, err := g.w.Write(p)
	if err != nil {
		g.mu.Lock()
		if g.err == nil {
			g.err = &outputError{err: err}
		}
		failed = g.err
		g.mu.Unlock()
		if g.stop != nil {
			g.stop(failed)
		}
	}
	return n, err
}

// guardStdout wraps stdio.Stdout for a headless run and returns the
// context the run must use: it is cancelled, with an *outputError as its
// cause, when a write to stdout fails. SIGPIPE is caught (not ignored, so
// that the programs tools start still get the default) so that a reader
// that went away makes writes fail with EPIPE instead of killing the
// process in the middle of a turn with no word on stderr.
func guardStdout(ctx context.Context, stdio *IO) (context.Context, context.CancelCauseFunc) {
	catchBrokenPipes()
	ctx, stop := context.WithCancelCause(ctx)
	stdio.Stdout = &stdoutGuard{w: stdio.Stdout, stop: stop}
	return ctx, stop
}

// catchSIGPIPE registers for SIGPIPE once per process: a registration is
// never undone, and a process that runs many commands (tests, a program
// embedding the CLI) need not pile them up.
var catchSIGPIPE sync.Once

// catchBrokenPipes makes a write to a pipe whose reader went away fail
// with EPIPE instead of killing the process. The signal is caught, never
// ignored: an ignored signal is inherited through exec, and the programs
// tools start (yes | head, a pager) rely on dying of it.
func catchBrokenPipes() {
	catchSIGPIPE.Do(func() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) })
}

// outputFailure returns the failed stdout write that stopped ctx, or nil.
func outputFailure(ctx context.Context) *outputError {
	var oe *outputError
	if errors.As(context.Cause(ctx), &oe) {
		return oe
	}
	return nil
}

// errStdoutClosed refuses a headless run whose stdout was closed before
// it started (closedAtStart): the answer could only be lost, so nothing
// is run, and the exit is 1 as for a stdout that breaks mid-run.
var errStdoutClosed = errors.New("stdout is closed: nothing would read the answer, so the prompt was not run")

// errACPStdoutClosed refuses `castor --acp` with stdout closed: nothing it
// answers could reach the client.
var errACPStdoutClosed = errors.New("stdout is closed: an ACP client reads castor's answers there")
