package discovered

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"time"

	"github.com/castor-dev/castor/internal/proc"
)

// maxOutput bounds what is kept of a command's stdout and of its stderr
// (10 MiB each, Gemini CLI's bound on the discovery command's); a command
// printing more is stopped.
const maxOutput = 10 << 20

// waitDelay is how long output is still awaited once a command has
// exited, when something it started in the background holds its pipes.
const waitDelay = 5 * time.Second

// outcome is how one run of a command went.
type outcome struct {
	stdout, stderr string
	// err is why the command could not run (not found, not executable),
	// nil when it ran.
	err error
	// exited is set when the command ended by itself, with code; signal
	// names the signal that ended it otherwise ("SIGKILL"), "" when none.
	exited bool
	code   int
	signal string
	// overflow is set when the command printed more than maxOutput on a
	// stream and was stopped.
	overflow bool
}

// failed reports whether the run counts as a failure for a tool call:
// Gemini CLI takes anything on stderr as one, even with exit code 0.
func (o *outcome) failed() bool {
	return o.err != nil || o.overflow || !o.exited || o.code != 0 || o.stderr != ""
}

// runCommand runs argv in dir with exactly env, stdin given to it (an
// empty stdin when nil), and collects its output. The command leads a
// process group of its own, which is killed when ctx ends.
func runCommand(ctx context.Context, argv []string, dir string, env []string, stdin []byte) *outcome {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.WaitDelay = waitDelay
	group := proc.New(cmd, proc.Options{})
	// Past the limit the command is killed before the write that passed
	// it returns, so that it does not race on to an exit of its own.
	over := func() { _ = group.Kill(); stop() }
	stdout, stderr := &proc.Buffer{Limit: maxOutput, OnFull: over}, &proc.Buffer{Limit: maxOutput, OnFull: over}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := group.Run()
	o := &outcome{stdout: text(stdout), stderr: text(stderr), overflow: stdout.Truncated() || stderr.Truncated()}
	if cmd.ProcessState == nil {
		o.err = err
		return o
	}
	if ws := cmd.ProcessState; ws.Exited() {
		o.exited, o.code = true, ws.ExitCode()
	} else {
		o.signal = signalName(ws)
	}
	if err != nil && !errors.Is(err, exec.ErrWaitDelay) && !o.overflow && o.exited && o.code == 0 {
		o.err = err // the output could not be read
	}
	return o
}

// text is the output as text, invalid UTF-8 replaced as Node's decoder
// replaces it.
func text(b *proc.Buffer) string { return strings.ToValidUTF8(b.String(), "\uFFFD") }
