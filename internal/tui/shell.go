package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/proc"
	"github.com/castor-dev/castor/internal/termtext"
)

// maxShellOutput bounds what a "!" command keeps of its output (the end
// of it, as for the shell tool).
const maxShellOutput = 1 << 20

// shellRun is a "!" command in progress; its output so far shows in the
// live area, as a model's shell call's does.
type shellRun struct {
	start  time.Time
	cancel context.CancelFunc
	out    *proc.Buffer
	// term is the command's pseudo-terminal (nil where there is none):
	// while focused, what the user types goes to the command
	// (shellterm.go).
	term    *os.File
	focused bool
	// command and group are the command line and its processes; sink is
	// where its terminal's output goes, switched to a log when Ctrl+B
	// moves it to the background (bgshell.go).
	command string
	group   *proc.Group
	sink    *shellSink
}

// shellSink is a "!" command's output: the live area's buffer, then the
// log of the background process it became.
type shellSink struct {
	mu sync.Mutex
	w  io.Writer
	// ended says the command has ended (it can no longer be adopted);
	// finish, once adopted, records how it ended.
	ended  bool
	finish func(exitCode *int, signal int)
}

func (s *shellSink) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.w.Write(b); err != nil {
		// A log that cannot be written loses output, not the command.
		return len(b), nil
	}
	return len(b), nil
}

// end marks the command ended and reports whether it had been adopted,
// recording its end there.
func (s *shellSink) end(cmd *exec.Cmd) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	if s.finish == nil {
		return false
	}
	var code *int
	sig := 0
	if st := cmd.ProcessState; st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig = int(ws.Signal())
		} else {
			c := st.ExitCode()
			code = &c
		}
	}
	s.finish(code, sig)
	return true
}

type shellDoneMsg struct {
	run             *shellRun
	command, output string
	err             error
}

func (m *model) shellRunning() bool { return m.shell != nil }

func (m *model) cancelShell() {
	if m.shell != nil {
		m.shell.cancel()
	}
}

// runShell runs command with bash in the workspace, as Gemini CLI's shell
// mode does; its output is printed and joins the conversation.
func (m *model) runShell(command string) tea.Cmd {
	if command == "" {
		return nil
	}
	if m.running || m.shellRunning() {
		m.printNotice(noticeWarn, "Wait for the running request to finish, or press Esc to cancel it.")
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	out := &proc.Buffer{Limit: maxShellOutput}
	sink := &shellSink{w: out}
	m.shell = &shellRun{start: m.now(), cancel: cancel, out: out, command: command, sink: sink}
	run := m.shell
	env := m.cfg.Environ
	if m.agent != nil && m.agent.Env != nil {
		// Redacted as the shell tool's (security.environmentVariableRedaction).
		env = proc.Env(m.agent.Env.Environ(), nil, m.agent.RedactShellEnv)
	}
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	if _, err := exec.LookPath("bash"); err != nil {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	cmd.Dir, cmd.Env = m.workDir, env
	// Cancelling kills the whole group, so that what the command started
	// in the background stops with it.
	g := proc.New(cmd, proc.Options{})
	m.shell.group = g
	// On a pseudo-terminal the command can ask and be answered: focus
	// moves into it (shellterm.go).
	term, err := g.StartPTY(proc.Size{Cols: uint16(max(m.width-2, 20)), Rows: 24})
	if err == nil {
		m.shell.term, m.shell.focused = term, true
	}
	send := m.send
	go func() {
		defer cancel()
		switch {
		case err == nil:
			err = waitPTY(cmd, g, term, sink)
		case errors.Is(err, proc.ErrNoPTY):
			cmd.Stdout, cmd.Stderr = sink, sink
			err = g.Run()
		}
		if sink.end(cmd) {
			return // a background process now (Ctrl+B): it has recorded its end
		}
		if ctx.Err() != nil {
			err = errShellCancelled
		}
		send(shellDoneMsg{run: run, command: command, output: out.String(), err: err})
	}()
	return m.spin.Tick
}

func (m *model) onShellDone(msg shellDoneMsg) tea.Cmd {
	if msg.run != m.shell {
		return nil
	}
	m.shell = nil
	out := strings.TrimRight(termtext.Visible(terminalText(msg.output)), "\n")
	if out != "" {
		m.print(strings.Join(headLines(out, 200), "\n"))
	}
	status := "exit 0"
	if msg.err != nil {
		status = msg.err.Error()
		if ee, ok := msg.err.(*exec.ExitError); ok {
			status = fmt.Sprintf("exit %d", ee.ExitCode())
		}
	}
	m.print(m.theme.dim.Render("(" + status + ")"))
	m.print("")
	if m.agent != nil {
		// The command and its output join the conversation, so the model
		// knows what the user saw.
		note := fmt.Sprintf("I ran the following shell command:\n```sh\n%s\n```\n\nThis produced the following result:\n```\n%s\n```", msg.command, out)
		h := append(m.agent.Session.History(), genai.NewContentFromText(note, genai.RoleUser))
		if err := m.agent.Session.SetHistory(h); err != nil {
			m.printNotice(noticeWarn, err.Error())
		}
	}
	return m.nextQueued()
}

// errShellCancelled ends a "!" command stopped with Esc.
var errShellCancelled = errors.New("cancelled")

// renderShell is the running "!" command's last lines of output.
func (m *model) renderShell() string {
	out := strings.TrimRight(termtext.Visible(terminalText(m.shell.out.Tail(8<<10))), "\n")
	if out == "" {
		return ""
	}
	lines := tailLines(out, maxLiveLines)
	for i, l := range lines {
		lines[i] = ansi.Truncate("  "+l, m.width, "…")
	}
	return strings.Join(lines, "\n")
}
