package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/term"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/memtrim"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/tool"
)

// Config is what the CLI hands the interactive terminal.
type Config struct {
	// Options are the assembly options; Confirm and Warn are set here.
	Options setup.Options
	// Prompt, when not empty, is sent as soon as the session is ready
	// (castor "prompt", castor -i "prompt").
	Prompt string
	// In and Out are the terminal; Err receives what is printed after the
	// program ends.
	In       io.Reader
	Out, Err io.Writer
	// Environ is the environment the program inspects (TERM, NO_COLOR,
	// EDITOR); nil means the process environment.
	Environ []string
	// AskTrust shows the folder trust dialog for a folder that no rule
	// decides, instead of vouching for it (trustdialog.go).
	AskTrust bool
	// Sandbox names the sandbox the commands run in, for the footer;
	// "" when none.
	Sandbox string
	// ScreenReader asks for plain, linear output (--screen-reader), as
	// the setting ui.accessibility.screenReader does.
	ScreenReader bool
}

// firstFrameEnv makes the program exit right after its first frame; the
// start-up benchmark uses it to time exec → first frame.
const firstFrameEnv = "CASTOR_TUI_EXIT_AFTER_FIRST_FRAME"

// Run runs the interactive terminal until the user quits, and returns the
// process exit code.
func Run(ctx context.Context, c Config) int {
	if c.Environ == nil {
		c.Environ = os.Environ()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	memtrim.Limit() // a long session stays under 80 MB
	m := newModel(ctx, c)
	// The size is known before the first frame, so that it is drawn once
	// at the right width (a frame redrawn wider leaves rows behind).
	if f, ok := c.Out.(*os.File); ok {
		if w, h, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			m.width, m.height, m.sized = w, h, true
			m.resize()
		}
	}
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithEnvironment(c.Environ)}
	if c.In != nil {
		opts = append(opts, tea.WithInput(c.In))
	}
	var watch *frameWatch
	if f, ok := c.Out.(*os.File); ok {
		watch = &frameWatch{File: f}
		opts = append(opts, tea.WithOutput(watch))
		m.rawOut = func(s string) { _, _ = f.WriteString(s) }
		m.waitFrame = true
	} else if c.Out != nil {
		opts = append(opts, tea.WithOutput(c.Out))
	}
	p := tea.NewProgram(m, opts...)
	if watch != nil {
		// From the renderer's goroutine, under its lock: Send must not
		// block there, as the event loop may be waiting for that lock.
		watch.drawn = func() { go p.Send(frameDrawnMsg{}) }
	}
	m.send = p.Send
	m.pace = newPacer(p)
	m.exitAfterFirstFrame = getenv(c.Environ, firstFrameEnv) != ""
	m.startAssembly()
	_, err := p.Run()
	cancel()
	m.cancelTurn()
	// The assemblies may still be running, or may have finished after
	// the program stopped reading messages: wait for them (cancelling ctx
	// shortens them) and close what they built. There is more than one
	// when the first failed for want of credentials and the auth dialog
	// started another.
	var a *setup.Agent
	if !m.exitAfterFirstFrame {
		for range m.assemblies {
			if x := <-m.assembled; x != nil {
				x.Close()
				a = x
			}
		}
	}
	code := m.exitCode
	if m.exitNote != "" {
		fmt.Fprintln(c.Err, m.exitNote)
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(c.Err, "Error: %s\n", err)
		code = 1
	}
	if a != nil && m.ready && !m.exitAfterFirstFrame && a.Recorded() {
		fmt.Fprintf(c.Err, "Session %s saved.\nTo resume it: castor --resume %s\n", a.Session.ID(), a.Session.ID())
	}
	return code
}

// startAssembly builds the session on a goroutine of its own; Run waits
// for every one started.
func (m *model) startAssembly() {
	if m.assembled == nil {
		m.assembled = make(chan *setup.Agent, 8)
	}
	m.assemblies++
	send := m.send
	go func() { m.assembled <- m.assemble(send) }()
}

// assemble builds the session in the background and reports it with a
// readyMsg; warnings become notices as they come.
func (m *model) assemble(send func(tea.Msg)) *setup.Agent {
	o := m.cfg.Options
	o.Confirm = m.confirm
	o.Elicit = m.elicit
	o.Warn = func(s string) { send(noticeMsg{kind: noticeWarn, text: s}) }
	o.Info = func(s string) { send(noticeMsg{kind: noticeInfo, text: s}) }
	// The prompt is usable while MCP servers connect (mcpwait.go).
	o.MCPInBackground = true
	// The model's shell calls run on a pseudo-terminal (toolpty.go).
	ptys := &ptyShell{send: send}
	if o.Shell == nil {
		o.Shell = ptys.run
	}
	if m.cfg.AskTrust {
		o.AskTrust = m.askTrust
	}
	a, err := setup.New(m.ctx, o)
	if a != nil {
		// Gemini CLI 0.61's switch back to pipes.
		if on, ok := a.Settings.GetBool("tools.shell.enableInteractiveShell"); ok && !on {
			ptys.off.Store(true)
		}
	}
	send(readyMsg{agent: a, err: err})
	return a
}

// confirm is the engine's confirmation callback. It runs on the turn's
// goroutine: it shows the dialog and waits for the answer.
func (m *model) confirm(ctx context.Context, call *agent.ToolCall) (tool.Decision, error) {
	reply := make(chan tool.Decision, 1)
	m.send(confirmMsg{call: call, reply: reply})
	select {
	case d := <-reply:
		return d, nil
	case <-ctx.Done():
		return tool.Decision{}, ctx.Err()
	}
}

func getenv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}
