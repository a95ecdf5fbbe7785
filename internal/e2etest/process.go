package e2etest

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Options say how Start runs a process.
type Options struct {
	// Dir is the working folder; empty, the test binary's.
	Dir string
	// Env is the whole environment; nil, the test binary's.
	Env []string
	// Stdin gives the process a pipe for Send and CloseStdin. Without
	// it stdin is empty (/dev/null): castor -p reads a stdin that is not
	// a terminal to its end, so a pipe held open would keep it waiting.
	Stdin bool
	// HangLimit bounds every wait on the process (a line, its exit);
	// zero is HangLimit. A shorter one is for a test whose claim is
	// "at once, not after some timeout castor has".
	HangLimit time.Duration
}

// Process is a command a test started and holds while it runs: castor
// serving (a2a-server, mcp serve --http, --acp, ide serve) or in a turn
// the test interrupts. Its stdout and stderr are read as they come, so
// it never blocks on a full pipe whatever the test reads; the test waits
// for content (Line, LineWhere, Wait), each wait bounded by the hang
// limit so that a hang fails the test instead of blocking it.
//
// It ends with the test: t.Cleanup kills it and waits for it, also when
// the test failed half-way; when go test's -timeout kills the test
// binary, which runs no cleanup, the kernel sends it SIGTERM
// (DieWithTest). Castor puts what it starts in process groups of their
// own and stops them on SIGTERM, so only castor itself is signalled.
//
// Its methods belong to the test's goroutine (they fail the test); the
// Outputs may be read from any.
type Process struct {
	t *testing.T
	// Cmd is the started command (Cmd.Process.Pid names it).
	Cmd *exec.Cmd
	// Stdout is everything the process wrote to stdout so far; Line and
	// LineWhere read it line by line.
	Stdout *Output
	// Stderr is everything it wrote to stderr so far.
	Stderr *Output

	name  string // for messages: "castor --acp"
	limit time.Duration
	stdin io.WriteCloser
	// outR are the read ends of stdout's and stderr's pipes.
	outR   [2]*os.File
	read   int    // Stdout's offset of the next unread line, under Stdout.mu
	last   string // what the test last did to the process, for a hang's message
	exited chan struct{}
	err    error // cmd.Wait's, once exited is closed
}

// Start starts the built castor with args as o says.
func Start(t *testing.T, o Options, args ...string) *Process {
	t.Helper()
	return StartCommand(t, exec.Command(Binary(t), args...), o)
}

// Start starts the built castor with args as this user, as o says: in
// the workspace unless o.Dir names another folder, with Environ unless
// o.Env is another environment.
func (e *Env) Start(o Options, args ...string) *Process {
	e.T.Helper()
	if o.Dir == "" {
		o.Dir = e.WS
	}
	if o.Env == nil {
		o.Env = e.Environ()
	}
	return Start(e.T, o, args...)
}

// StartCommand starts cmd, not yet started and with none of its standard
// streams set, as o says (its Dir and Env when o leaves them empty) and
// holds it as a Process.
func StartCommand(t *testing.T, cmd *exec.Cmd, o Options) *Process {
	t.Helper()
	p := &Process{t: t, Cmd: DieWithTest(cmd), Stdout: newOutput(), Stderr: newOutput(), limit: o.HangLimit, exited: make(chan struct{})}
	if p.limit == 0 {
		p.limit = HangLimit
	}
	p.name = strings.Join(append([]string{filepath.Base(cmd.Path)}, cmd.Args[1:]...), " ")
	if o.Dir != "" {
		cmd.Dir = o.Dir
	}
	if o.Env != nil {
		cmd.Env = o.Env
	}
	if o.Stdin {
		var err error
		if p.stdin, err = cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
	}
	// Pipes of our own rather than exec's: Wait does not wait for what
	// a child castor left running to close them, and CloseStdout can
	// close the read end as a client that stops reading does.
	var outW [2]*os.File
	for i := range outW {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		p.outR[i], outW[i] = r, w
	}
	cmd.Stdout, cmd.Stderr = outW[0], outW[1]
	err := cmd.Start()
	for _, w := range outW {
		w.Close()
	}
	if err != nil {
		p.outR[0].Close()
		p.outR[1].Close()
		t.Fatal(err)
	}
	for i, o := range []*Output{p.Stdout, p.Stderr} {
		go func() {
			_, _ = io.Copy(o, p.outR[i])
			o.end()
		}()
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		// Harmless once it has exited: os.Process knows it did.
		_ = cmd.Process.Kill()
		<-p.exited
		p.outR[0].Close()
		p.outR[1].Close()
	})
	return p
}

// Send writes line and a newline to the process's stdin (Options.Stdin).
func (p *Process) Send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("%s: writing %q: %v", p.name, line, err)
	}
}

// CloseStdin closes the process's stdin (Options.Stdin), as a client
// that goes away does.
func (p *Process) CloseStdin() {
	p.stdin.Close()
	p.did("after stdin closed")
}

// CloseStdout closes the read end of the process's stdout, as a client
// that stops reading does: its next writes fail with a broken pipe.
func (p *Process) CloseStdout() {
	p.outR[0].Close()
	p.did("after stdout closed")
}

// Signal sends sig to the process.
func (p *Process) Signal(sig os.Signal) {
	p.t.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("%s: %v", p.name, err)
	}
	p.did("after " + sig.String())
}

// did notes what the test last did to the process, for the message of
// a Wait that runs into the hang limit.
func (p *Process) did(what string) { p.last = " " + what }

// Wait waits for the process to exit and its output to end, and returns
// cmd.Wait's error (an *exec.ExitError for an exit other than 0). A
// process still running at the hang limit is killed and fails the test,
// with what was last done to it and its stderr.
func (p *Process) Wait() error {
	p.t.Helper()
	timer := time.NewTimer(p.limit)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C: // a hang, not a timing assertion
		_ = p.Cmd.Process.Kill()
		p.t.Fatalf("%s did not exit%s within %v; stderr:\n%s", p.name, p.last, p.limit, p.Stderr.String())
	}
	// What it started may hold its stdout or stderr open after it exited:
	// what arrived by the hang limit is its output.
	for _, o := range []*Output{p.Stdout, p.Stderr} {
		select {
		case <-o.ended:
		case <-timer.C:
			p.t.Logf("%s exited but something it started still holds its output open", p.name)
			return p.err
		}
	}
	return p.err
}

// ExitCode waits for the process (Wait) and returns its exit code, -1
// when a signal ended it.
func (p *Process) ExitCode() int {
	p.t.Helper()
	err := p.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		p.t.Fatalf("%s: %v", p.name, err)
	}
	return 0
}

// WantExit waits for the process (Wait) and fails the test, going on,
// unless it exited with code: 130 for a run a signal interrupted.
func (p *Process) WantExit(code int) {
	p.t.Helper()
	if p.ExitCode() != code {
		p.t.Errorf("%s: exit = %v, want %d; stderr:\n%s", p.name, p.err, code, p.Stderr.String())
	}
}

// Line returns the next line of stdout, without its newline. It fails
// the test, naming what, when stdout ends first or at the hang limit.
func (p *Process) Line(what string) string {
	p.t.Helper()
	return p.LineWhere(what, func(string) bool { return true })
}

// LineWhere returns the next line of stdout that match accepts, passing
// over the others; it fails the test as Line does.
func (p *Process) LineWhere(what string, match func(line string) bool) string {
	p.t.Helper()
	timer := time.NewTimer(p.limit)
	defer timer.Stop()
	for {
		line, err := p.next(timer.C)
		if err != nil {
			p.t.Fatalf("%s: no %s on stdout (%v); stderr:\n%s", p.name, what, err, p.Stderr.String())
		}
		if match(line) {
			return line
		}
	}
}

// ListenURL returns the URL a server castor started says it listens on,
// in the line "Castor … server listening on URL" of its stdout, passing
// over the lines before it; it fails the test as Line does.
func (p *Process) ListenURL() string {
	p.t.Helper()
	const on = " listening on "
	line := p.LineWhere("line saying where it listens", func(l string) bool { return strings.Contains(l, on) })
	_, url, _ := strings.Cut(line, on)
	return strings.TrimSpace(url)
}

// Unread yields the lines of stdout that arrived and were not read yet,
// waiting for none: what the process said by now.
func (p *Process) Unread() iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			line, err := p.next(now)
			if err != nil || !yield(line) {
				return
			}
		}
	}
}

// now is a hang channel that has fired already.
var now = func() <-chan time.Time {
	c := make(chan time.Time)
	close(c)
	return c
}()

var (
	errEnded = errors.New("stdout ended")
	errHang  = errors.New("hang limit reached")
)

// next returns the next unread line of stdout, waiting for it until
// stdout ends (errEnded) or hang fires (errHang).
func (p *Process) next(hang <-chan time.Time) (string, error) {
	o := p.Stdout
	for {
		o.mu.Lock()
		rest := o.b[p.read:]
		i := bytes.IndexByte(rest, '\n')
		switch {
		case i >= 0:
			p.read += i + 1
			o.mu.Unlock()
			return string(rest[:i]), nil
		case o.done && len(rest) > 0:
			p.read += len(rest)
			o.mu.Unlock()
			return string(rest), nil
		case o.done:
			o.mu.Unlock()
			return "", errEnded
		}
		changed := o.changed
		o.mu.Unlock()
		select {
		case <-changed:
		case <-hang:
			return "", errHang
		}
	}
}

// Output is what a process wrote to one of its streams, safe to read
// while it writes.
type Output struct {
	mu      sync.Mutex
	b       []byte
	done    bool
	changed chan struct{} // closed and replaced at each write and at the end
	ended   chan struct{} // closed at the end
}

func newOutput() *Output {
	return &Output{changed: make(chan struct{}), ended: make(chan struct{})}
}

// Write appends b; it never blocks on a reader.
func (o *Output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.b = append(o.b, b...)
	close(o.changed)
	o.changed = make(chan struct{})
	return len(b), nil
}

// end marks the stream ended (the pipe closed).
func (o *Output) end() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.done = true
	close(o.changed)
	o.changed = make(chan struct{})
	close(o.ended)
}

// String is what was written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return string(o.b)
}
