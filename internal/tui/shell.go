package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/termtext"
)

// maxShellOutput bounds what a "!" command keeps of its output.
const maxShellOutput = 1 << 20

// shellRun is a "!" command in progress; its output so far shows in the
// live area, as a model's shell call's does.
type shellRun struct {
	start  time.Time
	cancel context.CancelFunc
	out    *limitedBuffer
}

type shellDoneMsg struct {
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
	out := &limitedBuffer{}
	m.shell = &shellRun{start: m.now(), cancel: cancel, out: out}
	env := m.cfg.Environ
	if m.agent != nil && m.agent.Env != nil {
		// Redacted as the shell tool's (security.environmentVariableRedaction).
		env = m.agent.RedactShellEnv(m.agent.Env.Environ())
	}
	dir := m.workDir
	send := m.send
	go func() {
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "-c", command)
		if _, err := exec.LookPath("bash"); err != nil {
			cmd = exec.CommandContext(ctx, "sh", "-c", command)
		}
		cmd.Dir, cmd.Env = dir, env
		killGroupOnCancel(cmd)
		cmd.Stdout, cmd.Stderr = out, out
		err := cmd.Run()
		if ctx.Err() != nil {
			err = errShellCancelled
		}
		send(shellDoneMsg{command: command, output: out.String(), err: err})
	}()
	return m.spin.Tick
}

func (m *model) onShellDone(msg shellDoneMsg) tea.Cmd {
	m.shell = nil
	out := strings.TrimRight(termtext.String(msg.output), "\n")
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

// limitedBuffer keeps the first maxShellOutput bytes written to it. The
// command writes while the live area reads, hence the lock.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := maxShellOutput - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// liveTail is the end of the output so far, at most n bytes and cut at a
// line start, so that each frame costs the same however much was written.
func (b *limitedBuffer) liveTail(n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.buf.Bytes()
	if len(t) > n {
		t = t[len(t)-n:]
		if i := bytes.IndexByte(t, '\n'); i >= 0 {
			t = t[i+1:]
		}
	}
	return string(t)
}

// renderShell is the running "!" command's last lines of output.
func (m *model) renderShell() string {
	out := strings.TrimRight(termtext.String(m.shell.out.liveTail(8<<10)), "\n")
	if out == "" {
		return ""
	}
	lines := tailLines(out, maxLiveLines)
	for i, l := range lines {
		lines[i] = ansi.Truncate("  "+l, m.width, "…")
	}
	return strings.Join(lines, "\n")
}
