package tui

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/termtext"
)

// maxShellOutput bounds what a "!" command keeps of its output.
const maxShellOutput = 1 << 20

// shellRun is a "!" command in progress.
type shellRun struct {
	start  time.Time
	cancel context.CancelFunc
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
	m.shell = &shellRun{start: m.now(), cancel: cancel}
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
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		var out limitedBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if ctx.Err() != nil {
			err = ctx.Err()
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

// limitedBuffer keeps the first maxShellOutput bytes written to it.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxShellOutput - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
