package discovered

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/castor-dev/castor/internal/hooks"
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
	hooks.Group(cmd, true)
	cmd.WaitDelay = waitDelay
	stdout, stderr := &capped{over: stop}, &capped{over: stop}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	o := &outcome{stdout: stdout.text(), stderr: stderr.text(), overflow: stdout.overflow() || stderr.overflow()}
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

var errOverflow = errors.New("output over the size limit")

// capped keeps up to maxOutput bytes and calls over once when more come.
type capped struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	over func()
	full bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.full {
		return 0, errOverflow
	}
	if c.buf.Len()+len(p) > maxOutput {
		// Reading no more leaves the command blocked on its pipe until
		// over has it killed, rather than racing to an exit of its own.
		c.full = true
		c.over()
		return 0, errOverflow
	}
	return c.buf.Write(p)
}

func (c *capped) overflow() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.full
}

// text is the output as text, invalid UTF-8 replaced as Node's decoder
// replaces it.
func (c *capped) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.ToValidUTF8(c.buf.String(), "\uFFFD")
}
