package e2etest

import (
	"encoding/json"
	"strings"
	"time"
)

// Stream is a castor process in a stream-json input session: the test
// writes input lines (Send) and reads the output events one by one.
type Stream struct {
	*Process
	// All are the events read so far, in order.
	All []map[string]any
}

// HangLimit bounds the wait for one event or exit, so that a hang fails
// the test instead of blocking it; nothing is timed against it.
const HangLimit = 60 * time.Second

// StartStream starts castor with args as this user, its stdin and stdout
// held by the test.
func (e *Env) StartStream(args ...string) *Stream {
	e.T.Helper()
	return &Stream{Process: e.Start(Options{Stdin: true}, args...)}
}

// event is one output line as an event; a line that is not JSON is an
// event of type "NOT JSON", for the messages of a test it fails.
func event(line string) map[string]any {
	var ev map[string]any
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		ev = map[string]any{"type": "NOT JSON", "line": line}
	}
	return ev
}

// Until reads events up to and including the first of type typ.
func (p *Stream) Until(typ string) map[string]any {
	p.t.Helper()
	timer := time.NewTimer(p.limit)
	defer timer.Stop()
	for {
		line, err := p.next(timer.C)
		if err == errEnded {
			p.t.Fatalf("output ended before a %s event; events %s\nstderr: %s", typ, MustJSON(p.All), p.Stderr.String())
		}
		if err != nil {
			p.t.Fatalf("no %s event; events so far %s", typ, MustJSON(p.All))
		}
		ev := event(line)
		p.All = append(p.All, ev)
		if ev["type"] == typ {
			return ev
		}
	}
}

// Close closes stdin, waits for castor to exit, reads the remaining
// events and returns the exit code.
func (p *Stream) Close() int {
	p.t.Helper()
	p.CloseStdin()
	code := p.ExitCode()
	for line := range p.Unread() {
		p.All = append(p.All, event(line))
	}
	if strings.Contains(p.Stderr.String(), "goroutine ") {
		p.t.Fatalf("stack trace on stderr:\n%s", p.Stderr.String())
	}
	return code
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
