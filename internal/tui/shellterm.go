package tui

// The "!" command's pseudo-terminal and Gemini CLI 0.61's shell mode.
//
// A "!" command runs on a pseudo-terminal of its own where the system has
// one (internal/proc.StartPTY), and focus moves into it: what the user
// types goes to the command (read, git add -p, npm init, a REPL, a
// password prompt), Ctrl+C included; Shift+Tab gives focus back to
// Castor's input and Tab takes it again (Gemini CLI 0.61's keys; Castor's
// Ctrl+F toggles), and Esc stops the command, as for the model's
// requests. "!" typed into an empty input turns on shell mode, where each
// line sent is a command, until Esc leaves it.

import (
	"io"
	"os"
	"os/exec"
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/internal/proc"
)

// waitPTY copies the command's terminal output into out until the
// command has ended and no process holds the terminal any more, then
// closes the terminal and releases the group.
func waitPTY(cmd *exec.Cmd, g *proc.Group, term *os.File, out io.Writer) error {
	copied := make(chan struct{})
	go func() {
		// Linux reports EIO once the last holder of the terminal is gone.
		_, _ = io.Copy(out, term)
		close(copied)
	}()
	err := cmd.Wait()
	// What the command left running in the background still holds the
	// terminal; it is stopped with the command, as a closed terminal
	// would hang it up.
	_ = g.Kill()
	<-copied
	term.Close()
	g.Release()
	return err
}

// terminalText is a terminal's output as lines: a terminal ends lines
// with "\r\n", and a lone "\r" rewrites the line (progress bars), so only
// what follows the last one stays.
func terminalText(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		if j := strings.LastIndexByte(strings.TrimRight(l, "\r"), '\r'); j >= 0 {
			l = l[j+1:]
		}
		lines[i] = strings.TrimRight(l, "\r")
	}
	return strings.Join(lines, "\n")
}

// shellKey handles the keys that belong to a "!" command or to shell
// mode, and reports whether it did.
func (m *model) shellKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	ks := k.String()
	if (m.shell != nil || m.toolPTY != nil) && (ks == "ctrl+b" || m.keys[ks] == "background.toggle") {
		// Not typed into the command: Gemini CLI 0.61 moves it to the
		// background (bgshell.go).
		return m.toggleBackground(), true
	}
	if c := m.toolPTY; c != nil && ks != "esc" {
		// Gemini CLI 0.61: Tab moves focus into the command, Shift+Tab
		// back; Ctrl+F (Castor's) toggles.
		switch {
		case ks == "ctrl+f", ks == "tab" && !c.focused && !m.comp.active(), ks == "shift+tab" && c.focused:
			c.focused = !c.focused
			return nil, true
		}
		if c.focused {
			if b := keyBytes(k); len(b) > 0 {
				_, _ = c.term.Write(b)
			}
			return nil, true
		}
	}
	if s := m.shell; s != nil && s.term != nil && ks != "esc" {
		switch {
		case ks == "ctrl+f", ks == "tab" && !s.focused, ks == "shift+tab" && s.focused:
			s.focused = !s.focused
			return nil, true
		}
		if s.focused {
			if b := keyBytes(k); len(b) > 0 {
				_, _ = s.term.Write(b)
			}
			return nil, true
		}
	}
	switch {
	case !m.shellMode && ks == "!" && m.input.Value() == "" && !m.comp.active():
		m.setShellMode(true)
		return nil, true
	case m.shellMode && ks == "esc" && !m.running && !m.shellRunning() && !m.comp.active():
		m.setShellMode(false)
		return nil, true
	case m.shellMode && ks == "enter":
		text := strings.TrimSpace(m.inputText())
		if text == "" {
			return nil, true
		}
		m.resetInput()
		m.comp = completion{}
		if m.hist != nil {
			m.hist.add("!" + text)
		}
		return m.submit("!"+text, false), true
	}
	return nil, false
}

// setShellMode turns shell mode on or off: the input's mark and hint say
// which.
func (m *model) setShellMode(on bool) {
	m.shellMode = on
	mark, hint := "> ", "Type your message or @path/to/file"
	if on {
		mark, hint = "! ", "Type your shell command (esc to leave shell mode)"
	}
	m.input.SetPromptFunc(2, func(p textarea.PromptInfo) string {
		if p.LineNumber == 0 {
			return mark
		}
		return "  "
	})
	m.input.Placeholder = hint
}

// shellLabel is the status line's words while a "!" command runs.
func (m *model) shellLabel() string {
	switch {
	case m.shell == nil || m.shell.term == nil:
		return "Running shell command"
	case m.shell.focused:
		return "Running shell command · typing goes to it (shift+tab: back to the input)"
	}
	return "Running shell command (tab: type into it)"
}

// keyBytes is what a terminal sends for k.
func keyBytes(k tea.KeyPressMsg) []byte {
	key := k.Key()
	ctrl, alt := key.Mod&tea.ModCtrl != 0, key.Mod&tea.ModAlt != 0
	var b []byte
	switch key.Code {
	case tea.KeyEnter:
		b = []byte{'\r'}
	case tea.KeyTab:
		b = []byte{'\t'}
	case tea.KeyBackspace:
		b = []byte{0x7f}
	case tea.KeyEscape:
		b = []byte{0x1b}
	case tea.KeyUp:
		b = []byte("\x1b[A")
	case tea.KeyDown:
		b = []byte("\x1b[B")
	case tea.KeyRight:
		b = []byte("\x1b[C")
	case tea.KeyLeft:
		b = []byte("\x1b[D")
	case tea.KeyHome:
		b = []byte("\x1b[H")
	case tea.KeyEnd:
		b = []byte("\x1b[F")
	case tea.KeyDelete:
		b = []byte("\x1b[3~")
	case tea.KeyPgUp:
		b = []byte("\x1b[5~")
	case tea.KeyPgDown:
		b = []byte("\x1b[6~")
	case tea.KeySpace:
		b = []byte{' '}
	default:
		switch {
		case ctrl && key.Code >= 'a' && key.Code <= 'z':
			b = []byte{byte(key.Code - 'a' + 1)}
		case key.Text != "":
			b = []byte(key.Text)
		case key.Code > 0 && key.Code < 0x110000:
			b = []byte(string(key.Code))
		}
	}
	if alt && len(b) > 0 {
		b = append([]byte{0x1b}, b...)
	}
	return b
}
