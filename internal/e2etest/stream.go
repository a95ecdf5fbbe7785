package e2etest

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Stream is a castor process in a stream-json input session: the test
// writes input lines and reads the output events one by one.
type Stream struct {
	t *testing.T
	// Cmd is the castor process.
	Cmd   *exec.Cmd
	stdin io.WriteCloser
	// All are the events read so far, in order.
	All    []map[string]any
	events chan map[string]any
	// Stderr is castor's stderr so far.
	Stderr strings.Builder
}

// HangLimit bounds the wait for one event or exit, so that a hang fails
// the test instead of blocking it; nothing is timed against it.
const HangLimit = 60 * time.Second

// StartStream starts castor with args as this user, its stdin and stdout
// held by the test.
func (e *Env) StartStream(args ...string) *Stream {
	e.T.Helper()
	p := &Stream{t: e.T, events: make(chan map[string]any, 256)}
	p.Cmd = Command(e.T, args...)
	p.Cmd.Dir, p.Cmd.Env = e.WS, e.Environ()
	p.Cmd.Stderr = &p.Stderr
	var err error
	if p.stdin, err = p.Cmd.StdinPipe(); err != nil {
		e.T.Fatal(err)
	}
	stdout, err := p.Cmd.StdoutPipe()
	if err != nil {
		e.T.Fatal(err)
	}
	if err := p.Cmd.Start(); err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(func() { p.Cmd.Process.Kill() })
	go func() {
		defer close(p.events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var ev map[string]any
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				ev = map[string]any{"type": "NOT JSON", "line": sc.Text()}
			}
			p.events <- ev
		}
	}()
	return p
}

// Send writes one input line.
func (p *Stream) Send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("writing %q: %v", line, err)
	}
}

// Until reads events up to and including the first of type typ.
func (p *Stream) Until(typ string) map[string]any {
	p.t.Helper()
	timer := time.NewTimer(HangLimit)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-p.events:
			if !ok {
				p.t.Fatalf("output ended before a %s event; events %s\nstderr: %s", typ, MustJSON(p.All), p.Stderr.String())
			}
			p.All = append(p.All, ev)
			if ev["type"] == typ {
				return ev
			}
		case <-timer.C:
			p.t.Fatalf("no %s event; events so far %s", typ, MustJSON(p.All))
		}
	}
}

// Close closes stdin, reads the remaining events and returns the exit code.
func (p *Stream) Close() int {
	p.t.Helper()
	p.stdin.Close()
	for ev := range p.events {
		p.All = append(p.All, ev)
	}
	done := make(chan error, 1)
	go func() { done <- p.Cmd.Wait() }()
	select {
	case err := <-done:
		if strings.Contains(p.Stderr.String(), "goroutine ") {
			p.t.Fatalf("stack trace on stderr:\n%s", p.Stderr.String())
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			p.t.Fatal(err)
		}
		return 0
	case <-time.After(HangLimit):
		p.t.Fatalf("castor did not exit after stdin closed; stderr:\n%s", p.Stderr.String())
	}
	return -1
}

// Count is how many events of type typ were read.
func (p *Stream) Count(typ string) int {
	n := 0
	for _, ev := range p.All {
		if ev["type"] == typ {
			n++
		}
	}
	return n
}
