package tui

// The model's shell calls on a pseudo-terminal, as Gemini CLI 0.61's
// interactive shell runs them (tools.shell.enableInteractiveShell, on by
// default in its interactive face): a command that asks (read, git add
// -p, npm init, a password prompt) can be answered: what the user types
// while it has the focus goes to it.
// The model gets the output as the terminal showed it, escape sequences
// stripped. Tab moves focus into the command and Shift+Tab back, as in
// Gemini CLI 0.61 (Castor's Ctrl+F toggles too). Where the system has no pseudo-terminal (Windows) or the
// setting is off, the shell tool runs the command with pipes, as the
// headless faces always do.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/internal/proc"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/tool/builtin"
)

// ptyOutputInterval throttles the live output of a command on a
// pseudo-terminal (Gemini CLI's shell tool updates once a second; a
// prompt waiting for an answer should show sooner).
const ptyOutputInterval = 200 * time.Millisecond

// ptyDrain is how long output still in flight is read after the command
// exits: what it left in the background may hold the terminal forever.
const ptyDrain = 100 * time.Millisecond

// ptyShell runs the model's foreground shell commands for the terminal.
type ptyShell struct {
	// off is tools.shell.enableInteractiveShell set to false, known once
	// the session is assembled (no tool runs before).
	off  atomic.Bool
	send func(tea.Msg)
}

// ptyCall is a model's shell command running on a pseudo-terminal; the
// terminal's goroutine owns focused.
type ptyCall struct {
	term    *os.File
	focused bool
	// command, group, out and sink let Ctrl+B move the command to the
	// session's background processes (moveToolShell): its output goes on
	// into sink, switched from out to the process's log; moved is closed
	// once it has been adopted.
	command string
	group   *proc.Group
	out     *proc.Buffer
	sink    *shellSink
	moved   chan struct{}
}

// ptyCallMsg tells the terminal a command started (done false) or ended.
type ptyCallMsg struct {
	call *ptyCall
	done bool
}

// run is builtin.Env.Shell: it runs c on a pseudo-terminal, or hands it
// back to the shell tool's pipes.
func (p *ptyShell) run(ctx context.Context, c builtin.ShellCommand) builtin.ShellOutcome {
	if p.off.Load() {
		return builtin.ShellOutcome{Err: builtin.ErrShellLocal}
	}
	cmd := exec.Command("bash", "-c", c.Command)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	g := proc.New(cmd, proc.Options{Grace: 200 * time.Millisecond})
	term, err := g.StartPTY(proc.Size{Cols: 80, Rows: 24})
	if errors.Is(err, proc.ErrNoPTY) {
		return builtin.ShellOutcome{Err: builtin.ErrShellLocal}
	}
	if err != nil {
		return builtin.ShellOutcome{Err: err}
	}
	out := &proc.Buffer{Limit: 16 << 20}
	sink := &shellSink{w: out}
	call := &ptyCall{term: term, command: c.Command, group: g, out: out, sink: sink, moved: make(chan struct{})}
	p.send(ptyCallMsg{call: call})
	defer p.send(ptyCallMsg{call: call, done: true})

	var written atomic.Int64 // bytes read so far: live output is sent when it moves
	activity := make(chan struct{}, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 32<<10)
		for {
			n, err := term.Read(buf)
			if n > 0 {
				_, _ = sink.Write(buf[:n])
				written.Add(int64(n))
				select {
				case activity <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return // EIO once the last holder of the terminal is gone
			}
		}
	}()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	var res builtin.ShellOutcome
	var shown int64
	flush := func() {
		if n := written.Load(); c.Output != nil && n != shown {
			shown = n
			c.Output(ptyText(out.Tail(64 << 10)))
		}
	}
	// The watch ends when the command does or Ctrl+B moves it.
	watched := make(chan struct{})
	go func() {
		select {
		case <-exited:
		case <-call.moved:
		}
		close(watched)
	}()
	_, res.TimedOut = builtin.WatchCommand(ctx, watched, activity, c.Timeout, ptyOutputInterval, flush, func() { go g.Stop() })
	end := func() bool {
		<-exited
		select {
		case <-copied:
		case <-time.After(ptyDrain):
		}
		// Closing the terminal ends the read of what the background
		// still holds open.
		term.Close()
		<-copied
		adopted := sink.end(cmd)
		g.Release()
		return adopted
	}
	select {
	case <-exited:
	default:
		// Moved to the background: the tool call returns now, the
		// command goes on, and its end is recorded in its log's entry.
		go end()
		return builtin.ShellOutcome{Backgrounded: true, PID: g.Pid(), Output: ptyText(out.String())}
	}
	if end() {
		// Moved just as it ended: its output and end are in its log.
		return builtin.ShellOutcome{Backgrounded: true, PID: g.Pid(), Output: ptyText(out.String())}
	}
	flush()
	res.Output = ptyText(out.String())
	o := builtin.OutcomeOf(cmd.ProcessState, waitErr)
	res.ExitCode, res.Signal, res.Err = o.ExitCode, o.Signal, o.Err
	return res
}

// moveToolShell is Ctrl+B while the model's shell call runs on a
// pseudo-terminal: as in Gemini CLI 0.61 the command becomes one of the
// session's background processes (its output so far and to come in its
// log, which the model reads with read_background_output), and the call
// returns at once with "Command moved to background (PID: …)".
func (m *model) moveToolShell(c *ptyCall) tea.Cmd {
	if m.adopt(c.sink, c.group, c.command, c.out) { // bgshell.go
		close(c.moved)
		m.toolPTY = nil
	}
	return nil
}

// ptyText is a terminal's output as the model and the live area get it:
// lines as the terminal showed them, escape sequences and control
// characters gone.
func ptyText(raw string) string {
	return strings.TrimRight(termtext.String(terminalText(raw)), "\n")
}

// onPTYCall notes a model's command starting or ending on a
// pseudo-terminal. Focus stays on the input until Tab, as in Gemini CLI:
// the command may never ask anything.
func (m *model) onPTYCall(msg ptyCallMsg) {
	switch {
	case !msg.done:
		m.toolPTY = msg.call
		m.resizeToolPTY()
	case m.toolPTY == msg.call:
		m.toolPTY = nil
	}
}

// resizeToolPTY gives the running command the width its output is shown
// at.
func (m *model) resizeToolPTY() {
	if m.toolPTY != nil && m.width > 0 {
		_ = proc.ResizePTY(m.toolPTY.term, proc.Size{Cols: uint16(max(m.width-4, 20)), Rows: 24})
	}
}

// toolPTYLabel is the status line's words while the model's command runs
// on a pseudo-terminal.
func (m *model) toolPTYLabel() string {
	if m.toolPTY.focused {
		return "Running shell command · typing goes to it (shift+tab: back to the input)"
	}
	return "Running shell command (tab: type into it)"
}
