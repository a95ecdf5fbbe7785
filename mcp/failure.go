package mcp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of what a failure report quotes from a server: the last lines of
// its stderr (a Python traceback ends with the line that matters) and of
// its stray stdout, each cut to a readable length.
const (
	maxStderrLines = 8
	maxStrayLines  = 3
	maxLineChars   = 240
)

// exitGrace is how long a failure report waits for a server process whose
// connection just closed to be reaped, so that it can say how the process
// ended. A process that closed stdout but lives on is waited for no longer.
const exitGrace = time.Second

// Failure says why an MCP server could not be used, in words a user can
// act on: the server, how it is run (command line or URL), what went wrong,
// and the last lines it wrote to stderr. Errors from connecting, from
// `mcp list` probes and from calls to a server that died are *Failure
// (possibly wrapped); ServerStatus.Reason is its Error text.
type Failure struct {
	// Server is the server's name.
	Server string
	// Target is the command line of a stdio server or the URL of a remote
	// one.
	Target string
	// Problem is what went wrong, in plain words.
	Problem string
	// Stderr holds the last lines the server wrote to stderr, oldest
	// first, cleaned of control characters and cut to a bounded length.
	Stderr []string
	// Err is the underlying error.
	Err error
}

// Error is "MCP server '<name>' (<target>): " followed by Details.
func (f *Failure) Error() string {
	return fmt.Sprintf("MCP server '%s' (%s): %s", f.Server, f.Target, f.Details())
}

// Details is the problem followed by the stderr lines, each on its own
// indented line: the report without the server's name and target, for
// faces that show those already.
func (f *Failure) Details() string {
	if len(f.Stderr) == 0 {
		return f.Problem
	}
	var b strings.Builder
	b.WriteString(f.Problem)
	b.WriteString("\nLast lines on the server's stderr:")
	for _, l := range f.Stderr {
		b.WriteString("\n  ")
		b.WriteString(l)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (f *Failure) Unwrap() error { return f.Err }

// processOutput records what a stdio server process says besides MCP: the
// tail of its stderr, stray stdout lines and how it ended.
type processOutput struct {
	name string // "MCP server 'x'", for debug lines

	mu       sync.Mutex
	stderr   []string
	strays   []string
	nstrays  int
	done     chan struct{}
	state    *os.ProcessState
	waitErr  error
	finished bool
}

func newProcessOutput(server string) *processOutput {
	return &processOutput{name: fmt.Sprintf("MCP server '%s'", server)}
}

func (o *processOutput) stderrLine(line string) {
	o.mu.Lock()
	o.stderr = appendBounded(o.stderr, clip(line, maxLineChars), maxStderrLines)
	o.mu.Unlock()
}

func (o *processOutput) stray(line string) {
	o.mu.Lock()
	o.strays = appendBounded(o.strays, clip(line, maxLineChars), maxStrayLines)
	o.nstrays++
	o.mu.Unlock()
}

func (o *processOutput) setDone(done chan struct{}) {
	o.mu.Lock()
	o.done = done
	o.mu.Unlock()
}

func (o *processOutput) exit(state *os.ProcessState, err error) {
	o.mu.Lock()
	o.state, o.waitErr, o.finished = state, err, true
	o.mu.Unlock()
}

// ended waits up to grace for the process to end and says how it did
// ("exited with status 1", "was killed by signal killed"), or "" when it
// is still running (or never started).
func (o *processOutput) ended(grace time.Duration) string {
	o.mu.Lock()
	done := o.done
	o.mu.Unlock()
	if done == nil {
		return ""
	}
	select {
	case <-done:
	case <-time.After(grace):
		return ""
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.state == nil {
		if o.waitErr != nil {
			return "ended: " + o.waitErr.Error()
		}
		return ""
	}
	if ws, ok := o.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "was killed by signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exited with status %d", o.state.ExitCode())
}

func (o *processOutput) stderrTail() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.stderr...)
}

func (o *processOutput) strayTail() ([]string, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.strays...), o.nstrays
}

func appendBounded(lines []string, line string, max int) []string {
	lines = append(lines, line)
	if len(lines) > max {
		lines = append(lines[:0], lines[len(lines)-max:]...)
	}
	return lines
}

// clip cleans a line a server wrote of control characters (escape
// sequences would repaint the user's terminal) and cuts it to n runes.
func clip(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	count := 0
	for _, r := range s {
		if r == '\t' {
			r = ' '
		}
		if unicode.IsControl(r) {
			continue
		}
		if count == n {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		count++
	}
	return b.String()
}

// Target is how the server is run, as users wrote it: the command line of
// a stdio server, the URL of a remote one with the password and query
// values some servers take as credentials hidden (see hideURLSecrets),
// since failure reports reach logs and, from a tool call, the model.
func (c *ServerConfig) Target() string {
	if c.Command != "" {
		return strings.TrimSpace(c.Command + " " + strings.Join(c.Args, " "))
	}
	u := c.HTTPURL
	if u == "" {
		u = c.URL
	}
	return c.hideURLSecrets(u)
}

// hideURLSecrets replaces, in text, the password and the query values of
// the server's URL (wherever the URL or its query appears, as errors quote
// it) with "xxxxx".
func (c *ServerConfig) hideURLSecrets(text string) string {
	for _, raw := range []string{c.HTTPURL, c.URL} {
		u, err := url.Parse(raw)
		if raw == "" || err != nil {
			continue
		}
		if pw, ok := u.User.Password(); ok && pw != "" {
			for _, form := range []string{pw, url.PathEscape(pw), url.QueryEscape(pw)} {
				text = strings.ReplaceAll(text, ":"+form+"@", ":xxxxx@")
			}
		}
		if u.RawQuery != "" {
			q := u.Query()
			for k := range q {
				q[k] = []string{"xxxxx"}
			}
			text = strings.ReplaceAll(text, u.RawQuery, q.Encode())
		}
	}
	return text
}

// phase names what a server was doing when it failed, for the report.
type phase int

const (
	phaseConnect phase = iota // starting and the initialize handshake
	phaseDiscover
	phaseCall
	phaseSession // between calls
)

func (p phase) String() string {
	switch p {
	case phaseDiscover:
		return "while listing its tools, prompts and resources"
	case phaseCall:
		return "during the call"
	case phaseSession:
		return "after connecting"
	}
	return "before completing the MCP handshake"
}

// explain turns err, met in phase, into a Failure naming the server and
// saying in plain words what happened; out is the server process's output
// record (nil for remote servers). timeout is the deadline that expired,
// when one did.
func (s *server) explain(err error, ph phase, out *processOutput, timeout time.Duration) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	f = &Failure{Server: s.cfg.Name, Target: s.cfg.Target(), Err: err}
	var ended string
	if out != nil {
		if timeout == 0 && connectionLost(err) {
			// The server went away: say how, once it is reaped.
			ended = out.ended(exitGrace)
		}
		f.Stderr = out.stderrTail()
	}
	f.Problem = s.cfg.hideURLSecrets(s.problem(err, ph, out != nil, ended, timeout))
	if out != nil {
		if strays, n := out.strayTail(); n > 0 {
			f.Problem += fmt.Sprintf(". It wrote %d line(s) to stdout that are not MCP messages (stdout is for MCP alone; logs belong on stderr), the last: %q", n, strays[len(strays)-1])
		}
	}
	return f
}

// problem says in plain words what err, met in phase, means.
func (s *server) problem(err error, ph phase, stdio bool, ended string, timeout time.Duration) string {
	var se *startError
	switch {
	case errors.As(err, &se):
		return s.startProblem(se.err)
	case errors.Is(err, errNoCapabilities):
		return err.Error()
	case timeout > 0 && ph == phaseConnect:
		return fmt.Sprintf("timed out after %v waiting for the answer to initialize (a slow server needs a longer \"timeout\", in milliseconds, in its settings)", timeout)
	case timeout > 0:
		return fmt.Sprintf("timed out after %v %s", timeout, ph)
	case !stdio && strings.Contains(err.Error(), "failed to reconnect"):
		return fmt.Sprintf("the connection broke %s, and reconnecting failed: %s", ph, reconnectProblem(err))
	case !connectionLost(err):
		// The server answered, with an error; a process that ended
		// did so because the session was closed on that error.
	case ended != "":
		return fmt.Sprintf("the server %s %s", ended, ph)
	case stdio && connectionLost(err):
		return fmt.Sprintf("the server closed its stdout %s", ph)
	case !stdio:
		return fmt.Sprintf("the server closed the connection %s", ph)
	}
	if !stdio {
		switch answer, code := s.httpStatus.describe(err); {
		case code == http.StatusNotFound:
			return answer + ": is the URL's path right? (streamable HTTP servers often serve /mcp, SSE servers /sse)"
		case code != 0:
			return "the server answered " + answer
		}
	}
	return httpProblem(err)
}

// startProblem says why a stdio server's command did not start.
func (s *server) startProblem(err error) string {
	dir := s.cfg.Cwd
	if dir != "" {
		if _, serr := os.Stat(dir); serr != nil {
			return fmt.Sprintf("its working directory (cwd) %q does not exist", dir)
		}
	}
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Sprintf("command %q not found on PATH; is it installed?", s.cfg.Command)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("command %q does not exist", s.cfg.Command)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("command %q cannot be run: permission denied", s.cfg.Command)
	}
	return "could not start the command: " + err.Error()
}

// connectionLost reports whether err means the other end went away.
func connectionLost(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, sdk.ErrConnectionClosed) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe) ||
		strings.Contains(err.Error(), "broken pipe") || strings.HasSuffix(err.Error(), ": EOF")
}

// reconnectProblem says why the SDK's attempts to resume a broken
// stream failed; it words the error without wrapping it, so the cause is
// read from the text.
func reconnectProblem(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "connection refused"):
		return "connection refused: nothing is listening there (is the server running?)"
	case strings.Contains(msg, "connection reset"):
		return "the server reset the connection"
	}
	if i := strings.LastIndex(msg, "): "); i >= 0 {
		return msg[i+len("): "):]
	}
	return msg
}

// httpProblem says in plain words why a remote server could not be
// reached; errors it does not recognise are given as they are.
func httpProblem(err error) string {
	var dns *net.DNSError
	var ue *url.Error
	var cert *x509.UnknownAuthorityError
	var host x509.HostnameError
	var rec tls.RecordHeaderError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: nothing is listening there (is the server running?)"
	case errors.As(err, &dns):
		return fmt.Sprintf("host %q not found", dns.Name)
	case errors.As(err, &cert), errors.As(err, &host):
		return "the server's TLS certificate is not trusted: " + innermost(err)
	case errors.As(err, &rec):
		return "TLS handshake failed (is the URL http:// rather than https://?)"
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return "the server speaks plain HTTP, not HTTPS: use an http:// URL"
	case errors.Is(err, syscall.ECONNRESET):
		return "the server reset the connection"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.As(err, &ue) && ue.Timeout():
		return "timed out"
	}
	return err.Error()
}

// innermost is the message of the deepest error in a chain.
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
