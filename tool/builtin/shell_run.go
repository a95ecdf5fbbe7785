package builtin

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/castor-dev/castor/internal/proc"
)

// Output buffering limits, as Gemini CLI's child-process runner has them.
const (
	maxShellBuffer = 16 * 1024 * 1024
	binarySniffLen = 4096
	// drainGrace is how long output still in flight is awaited after the
	// shell exits; background processes may hold the pipe open forever.
	drainGrace = 100 * time.Millisecond
)

// shellOutput collects a run's combined output. The reader goroutine
// writes, the runner's loop reads snapshots.
type shellOutput struct {
	mu      sync.Mutex
	buf     proc.Buffer // keeps the last maxShellBuffer bytes
	binary  bool
	total   int  // bytes received, binary or not
	version int  // bumped on every write, to spot unsent live output
	discard bool // nobody will read any more: drop data
}

func (o *shellOutput) write(p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.total += len(p)
	o.version++
	if o.discard {
		return
	}
	if !o.binary && o.buf.Len() < binarySniffLen {
		sniff := append(o.buf.Head(binarySniffLen), p[:min(len(p), binarySniffLen)]...)
		if looksBinaryOutput(sniff[:min(len(sniff), binarySniffLen)]) {
			o.binary = true
		}
	}
	if o.binary {
		return
	}
	_, _ = o.buf.Write(p)
}

// looksBinaryOutput is the test for binary command output: a NUL byte.
// (The 30% control-character rule of file detection would misfire on
// programs that draw with escape sequences.)
func looksBinaryOutput(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			return true
		}
	}
	return false
}

// text returns the output so far as text.
func (o *shellOutput) text() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := strings.ToValidUTF8(o.buf.String(), "\uFFFD")
	if o.buf.Truncated() {
		s += "\n[GEMINI_CLI_WARNING: Output truncated. The buffer is limited to 16MB.]"
	}
	return s
}

// live returns what the live output callback should show, and the version
// it reflects.
func (o *shellOutput) live() (string, int) {
	o.mu.Lock()
	binary, total, version := o.binary, o.total, o.version
	o.mu.Unlock()
	if binary {
		if total <= binarySniffLen {
			return "[Binary output detected. Halting stream...]", version
		}
		return "[Receiving binary output... " + formatBytes(total) + " received]", version
	}
	return strings.TrimSpace(stripANSI(o.text())), version
}

func (o *shellOutput) stopKeeping() {
	o.mu.Lock()
	o.discard = true
	o.mu.Unlock()
}

// formatBytes renders a byte count as Gemini CLI's formatBytes does.
func formatBytes(n int) string {
	switch {
	case n < 1024:
		return strconv.Itoa(n) + " B"
	case n < 1024*1024:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KB"
	case n < 1024*1024*1024:
		return strconv.FormatFloat(float64(n)/(1024*1024), 'f', 1, 64) + " MB"
	}
	return strconv.FormatFloat(float64(n)/(1024*1024*1024), 'f', 1, 64) + " GB"
}

// runShell runs req.command with bash in a new process group whose id is
// the shell's pid (a job object on Windows), and waits for it, the context, the inactivity timeout
// or (with req.background) the backgrounding delay.
func runShell(ctx context.Context, req shellRequest) shellResult {
	one := 1
	cmd := exec.Command("bash", "-c", req.command)
	cmd.Dir = req.dir
	cmd.Env = req.env
	pr, pw, err := os.Pipe()
	if err != nil {
		return shellResult{err: err, exitCode: &one}
	}
	// One pipe for both streams keeps stdout and stderr interleaved in the
	// order the command wrote them.
	cmd.Stdout, cmd.Stderr = pw, pw
	group := proc.New(cmd, proc.Options{Grace: killGrace})
	if err := group.Start(); err != nil {
		pw.Close()
		pr.Close()
		return shellResult{err: err, exitCode: &one}
	}
	defer group.Release()
	pw.Close()
	pid := group.Pid()

	out := &shellOutput{buf: proc.Buffer{Limit: maxShellBuffer}}
	activity := make(chan struct{}, 1)
	// drained is closed once everything the shell wrote before exiting has
	// been read: at EOF, or when the read deadline set after the exit
	// passes with the pipe empty (background processes keep it open).
	drained := make(chan struct{})
	var drainOnce sync.Once
	go func() {
		defer pr.Close()
		defer drainOnce.Do(func() { close(drained) })
		buf := make([]byte, 32*1024)
		for {
			n, err := pr.Read(buf)
			if n > 0 {
				out.write(buf[:n])
				select {
				case activity <- struct{}{}:
				default:
				}
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				// Keep reading, and dropping, whatever background
				// processes write later, so they never die of SIGPIPE.
				drainOnce.Do(func() { close(drained) })
				out.stopKeeping()
				_ = pr.SetReadDeadline(time.Time{})
				continue
			}
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()

	res := shellResult{pid: pid}
	if req.background {
		delay := req.bgDelay
		if delay <= 0 {
			delay = backgroundDelay
		}
		select {
		case <-exited:
		case <-time.After(delay):
			// Left running: keep draining its output so it never blocks
			// on a full pipe, but keep none of it.
			out.stopKeeping()
			res.backgrounded = true
			return res
		case <-ctx.Done():
		}
	}

	sent := 0
	flush := func() {
		if req.out == nil {
			return
		}
		if text, v := out.live(); v != sent {
			sent = v
			req.out(text)
		}
	}
	res.aborted, res.timedOut = WatchCommand(ctx, exited, activity, req.timeout, outputUpdateInterval, flush, func() { go group.Stop() })

	if !res.aborted && !res.timedOut {
		res.backgroundPIDs = group.PIDs()
	}
	// A deadline rather than a timer here: data already in the pipe is
	// read however late the reader runs; only an empty pipe times out.
	if pr.SetReadDeadline(time.Now().Add(drainGrace)) == nil {
		<-drained
	} else {
		select {
		case <-drained:
		case <-time.After(drainGrace):
		}
		out.stopKeeping()
	}
	flush()
	res.output = out.text()

	o := OutcomeOf(cmd.ProcessState, waitErr)
	res.exitCode, res.err = o.ExitCode, o.Err
	if o.Signal != "" {
		res.signal = signalNumber(o.Signal)
	}
	return res
}

// WatchCommand waits for a started command until exited is closed: it
// calls flush every interval (the live output), restarts the inactivity
// bound timeout (none when zero) whenever activity receives, and calls
// stop once, when ctx ends (aborted) or the command has been silent for
// timeout (timedOut). The shell tool and the terminal's pseudo-terminal
// (internal/tui) watch their commands alike.
func WatchCommand(ctx context.Context, exited, activity <-chan struct{}, timeout, interval time.Duration, flush, stop func()) (aborted, timedOut bool) {
	var timer <-chan time.Time
	var inactivity *time.Timer
	if timeout > 0 {
		inactivity = time.NewTimer(timeout)
		defer inactivity.Stop()
		timer = inactivity.C
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	done := ctx.Done()
	for {
		select {
		case <-exited:
			return aborted, timedOut
		case <-activity:
			if inactivity != nil {
				inactivity.Reset(timeout)
			}
		case <-ticker.C:
			flush()
		case <-done:
			aborted = true
			done, timer = nil, nil
			stop()
		case <-timer:
			timedOut = true
			done, timer = nil, nil
			stop()
		}
	}
}

// OutcomeOf is how a command that was waited for ended: its exit code,
// or the signal that killed it, or why waiting failed.
func OutcomeOf(ps *os.ProcessState, waitErr error) ShellOutcome {
	var o ShellOutcome
	if ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			o.Signal = signalName(int(ws.Signal()))
		} else {
			code := ps.ExitCode()
			o.ExitCode = &code
		}
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		o.Err = waitErr
	}
	return o
}

// signalName is a signal as ShellOutcome.Signal names it: SIGTERM for
// the ones a client may name, else the number.
func signalName(n int) string {
	for k, v := range signalNumbers.Get() {
		if v == n {
			return "SIG" + k
		}
	}
	return strconv.Itoa(n)
}

// signalNumber reads a ShellOutcome.Signal back; -1 for a signal it does
// not know.
func signalNumber(s string) int {
	if n := signalNumbers.Get()[strings.TrimPrefix(s, "SIG")]; n != 0 {
		return n
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return -1
}
