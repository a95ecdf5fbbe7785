package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/internal/proc"
)

// stdioTransport runs a server process and speaks MCP over its stdin and
// stdout. Unlike the SDK's CommandTransport it skips stdout lines that are
// not JSON-RPC messages (a banner, a stray print), as Gemini CLI's stdio
// transport does, instead of dropping the connection with "invalid
// character"; the lines go to the debug log and, in case the server then
// fails, into its failure report. It also records how the process ended,
// so that a failure can say "exited with status 1" rather than
// "broken pipe".
type stdioTransport struct {
	cmd *exec.Cmd
	// out collects what the process says besides MCP: stderr, stray stdout
	// lines, its exit. A fresh one per process.
	out *processOutput
	// terminate is how long Close waits for the process to exit after
	// closing its stdin, before SIGTERM, and again before SIGKILL; and
	// how long the processes a server left behind get after SIGTERM.
	terminate time.Duration
	// stderr receives what the server writes to its stderr.
	stderr io.Writer
	debug  func(string)
	// limit bounds one message (a line); a longer one is spooled.
	limit messageLimit
}

func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	var pipes [6]*os.File // stdin r/w, stdout r/w, stderr r/w
	for i := 0; i < len(pipes); i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeFiles(pipes[:i]...)
			return nil, err
		}
		pipes[i], pipes[i+1] = r, w
	}
	inR, inW, outR, outW, errR, errW := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5]
	// Files, not writers: Wait then returns as the server exits, not when
	// a child it left behind closes its copy of stderr, so the child can
	// be stopped at once.
	t.cmd.Stdin, t.cmd.Stdout, t.cmd.Stderr = inR, outW, errW
	group := proc.New(t.cmd, proc.Options{Grace: t.terminate, Tether: true})
	err := group.Start()
	// The child holds its own copies of these ends now.
	closeFiles(inR, outW, errW)
	if err != nil {
		closeFiles(inW, outR, errR)
		return nil, &startError{err: err}
	}
	stderrDone := make(chan struct{})
	go func() {
		_, _ = io.Copy(t.stderr, errR)
		close(stderrDone)
	}()
	done := make(chan struct{})
	go func() {
		err := t.cmd.Wait()
		// What the server started and left running goes with it.
		if group.Alive() {
			group.Stop()
		}
		group.Release()
		// Its last words on stderr belong in the record, unless a process
		// outside the group still holds stderr open.
		select {
		case <-stderrDone:
		case <-time.After(time.Second):
		}
		errR.Close()
		t.out.exit(t.cmd.ProcessState, err)
		close(done)
	}()
	t.out.setDone(done)
	msgs, msgW := io.Pipe()
	go t.filter(outR, msgW)
	p := &process{group: group, stdin: inW, stdout: outR, done: done, terminate: t.terminate}
	return (&sdk.IOTransport{Reader: msgs, Writer: p, MaxLineLength: -1}).Connect(ctx)
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// filter copies JSON-RPC lines from the server's stdout to w, and sets
// every other line aside.
func (t *stdioTransport) filter(stdout io.ReadCloser, w *io.PipeWriter) {
	defer stdout.Close()
	r := bufio.NewReaderSize(stdout, 64<<10)
	var line []byte
	var sp *spooler // set while a line longer than the limit is read
	for {
		chunk, err := r.ReadSlice('\n')
		if sp != nil {
			sp.write(chunk)
		} else {
			line = append(line, chunk...)
			if len(line) > t.limit.bound() {
				// Too large to hold: its text streams to a file and a
				// short stand-in takes its place (see limitTransport).
				sp = t.limit.newSpooler()
				sp.write(line)
				line = nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if sp != nil {
			msg := sp.finish()
			sp = nil
			if msg != nil {
				if _, werr := w.Write(append(msg, '\n')); werr != nil {
					return
				}
			}
			line = line[:0]
			if err != nil {
				w.Close()
				return
			}
			continue
		}
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if isMessage(msg) {
				if _, werr := w.Write(append(msg, '\n')); werr != nil {
					return
				}
			} else {
				t.out.stray(string(msg))
				t.debug(fmt.Sprintf("%s wrote a line to stdout that is not an MCP message; skipped: %s", t.out.name, clip(string(msg), maxLineChars)))
			}
		}
		line = line[:0]
		if err != nil {
			w.Close() // EOF for the session: the server closed its stdout
			return
		}
	}
}

// isMessage reports whether a stdout line is JSON-RPC (a message or a
// batch) rather than a stray line: text, or JSON without "jsonrpc", such
// as a structured logger writing {"level":30,"msg":"started"} to stdout.
func isMessage(line []byte) bool {
	switch line[0] {
	case '{':
		var m struct {
			JSONRPC *string `json:"jsonrpc"`
		}
		return json.Unmarshal(line, &m) == nil && m.JSONRPC != nil
	case '[':
		return json.Valid(line)
	}
	return false
}

// process is the writing end of a stdio session. Closing it shuts the
// server down the way the MCP specification asks: close its stdin, wait,
// SIGTERM, wait, SIGKILL; the signals go to the server's whole process
// group (internal/proc), and what the server leaves of its group when it
// exits is stopped the same way.
type process struct {
	group     *proc.Group
	stdin     *os.File
	stdout    *os.File
	done      chan struct{}
	terminate time.Duration
}

func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

func (p *process) Close() error {
	p.stdin.Close()
	if !p.wait() {
		if p.group.Terminate() != nil || !p.wait() {
			_ = p.group.Kill()
		}
	}
	<-p.done // after the sweep of the server's group
	// A grandchild may still hold stdout open; stop reading it.
	p.stdout.Close()
	// How the process ended is in the server's output record; a server
	// told to stop has nothing to report.
	return nil
}

func (p *process) wait() bool {
	select {
	case <-p.done:
		return true
	case <-time.After(p.terminate):
		return false
	}
}

// startError is a stdio server's command that could not be started.
type startError struct{ err error }

func (e *startError) Error() string { return e.err.Error() }
func (e *startError) Unwrap() error { return e.err }
