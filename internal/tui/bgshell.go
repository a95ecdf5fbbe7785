package tui

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/internal/proc"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/tool/builtin"
)

// The background shells of Gemini CLI 0.61: the model's is_background
// commands keep running after their call, as does a "!" command that
// Ctrl+B moved to the background while it ran, and Ctrl+B shows them in a panel
// above the input, with the output of one (its log, followed while the
// panel is open). In the panel Ctrl+K kills the shown shell, Ctrl+L opens
// the list of them all (Up and Down choose, Enter shows, Ctrl+K kills the
// one chosen, Esc closes the list), Shift+Tab or Esc gives the keys back to
// the input and Ctrl+B closes it. Ctrl+L and Ctrl+K keep their usual
// meaning (clear the screen, delete to the end of the line) while the panel
// does not have the keys. Castor's background commands read no input (it is
// /dev/null), so what is typed into the panel is not sent to them.

// bgRefresh is how often the open panel reads the shown shell's log again.
const bgRefresh = time.Second

// bgTailBytes bounds what is read from the end of a log for the panel.
const bgTailBytes = 32 << 10

// bgPanel is the background shell panel's state.
type bgPanel struct {
	visible, focused, list bool
	// active is the PID of the shell shown; sel the row chosen in the list.
	active int
	sel    int
	// dismissed are the shells killed or removed from the panel.
	dismissed map[int]bool
	// gen tells the current refresh chain from the ones of an earlier
	// opening.
	gen int
	// procs and tail are what was read last.
	procs []builtin.BackgroundProcess
	tail  []string
	// noInputSaid says the panel already said that the shells take no
	// input.
	noInputSaid bool
}

type bgTickMsg struct{ gen int }

type bgKilledMsg struct {
	pid int
	ok  bool
}

// bgProcs are the session's background shells still in the panel.
func (m *model) bgProcs() []builtin.BackgroundProcess {
	if m.agent == nil || m.agent.Background == nil {
		return nil
	}
	var out []builtin.BackgroundProcess
	for _, p := range m.agent.Background.List() {
		if !m.bg.dismissed[p.PID] {
			out = append(out, p)
		}
	}
	return out
}

// toggleBackground is Ctrl+B (and /shells): the panel opens with the
// keys, is given them back when it has lost them, or closes.
func (m *model) toggleBackground() tea.Cmd {
	if m.shellRunning() {
		return m.backgroundShell()
	}
	if m.toolPTY != nil {
		return m.moveToolShell(m.toolPTY) // toolpty.go
	}
	if m.bg.visible && !m.bg.focused {
		m.bg.focused = true
		return nil
	}
	if m.bg.visible {
		m.closeBackground()
		return nil
	}
	procs := m.bgProcs()
	if len(procs) == 0 {
		m.printNotice(noticeInfo, "No background shells. The model starts one with run_shell_command's is_background.")
		return nil
	}
	m.bg.visible, m.bg.focused = true, true
	m.bg.active = procs[len(procs)-1].PID
	for i := len(procs) - 1; i >= 0; i-- {
		if procs[i].Running {
			m.bg.active = procs[i].PID
			break
		}
	}
	m.bg.list = len(procs) > 1
	m.bg.sel = m.bgIndex(procs, m.bg.active)
	m.bg.gen++
	m.refreshBackground()
	return m.bgTick()
}

// backgroundShell is Ctrl+B while a "!" command runs: it goes on as one
// of the session's background processes, its output so far and to come in
// its log, and the input is free again (Gemini CLI 0.61).
func (m *model) backgroundShell() tea.Cmd {
	s := m.shell
	if s.group == nil || !m.adopt(s.sink, s.group, s.command, s.out) {
		return nil
	}
	m.shell = nil
	m.printNotice(noticeInfo, fmt.Sprintf("The command moved to the background (PID: %d); Ctrl+B shows it.", s.group.Pid()))
	return m.nextQueued()
}

// adopt makes a running command one of the session's background
// processes: what it printed so far (out) and to come (through sink) goes
// to its log. It reports whether it did; why not is said in one line,
// or nothing when the command has just ended or was moved already.
func (m *model) adopt(sink *shellSink, g *proc.Group, command string, out *proc.Buffer) bool {
	if m.agent == nil || m.agent.Background == nil {
		m.printNotice(noticeInfo, "Ctrl+B can move a command to the background once the session has started.")
		return false
	}
	sink.mu.Lock()
	if sink.ended || sink.finish != nil {
		sink.mu.Unlock()
		return false // its output is on its way, or it is in the background
	}
	log, finish, err := m.agent.Background.Adopt(g, command, []byte(terminalText(out.String())))
	if err == nil {
		sink.w, sink.finish = log, finish
	}
	sink.mu.Unlock()
	if err != nil {
		m.printNotice(noticeError, "Ctrl+B: "+err.Error())
		return false
	}
	return true
}

func (m *model) closeBackground() {
	m.bg.visible, m.bg.focused, m.bg.list = false, false, false
	m.bg.procs, m.bg.tail = nil, nil
	m.bg.gen++
}

func (m *model) bgTick() tea.Cmd {
	gen := m.bg.gen
	return tea.Tick(bgRefresh, func(time.Time) tea.Msg { return bgTickMsg{gen: gen} })
}

func (m *model) onBgTick(msg bgTickMsg) tea.Cmd {
	if msg.gen != m.bg.gen || !m.bg.visible {
		return nil
	}
	m.refreshBackground()
	return m.bgTick()
}

func (m *model) bgIndex(procs []builtin.BackgroundProcess, pid int) int {
	for i, p := range procs {
		if p.PID == pid {
			return i
		}
	}
	return 0
}

// refreshBackground reads the shells and the shown one's log again; the
// panel closes when none is left.
func (m *model) refreshBackground() {
	procs := m.bgProcs()
	if len(procs) == 0 {
		m.closeBackground()
		return
	}
	m.bg.procs = procs
	if m.bgIndex(procs, m.bg.active) == 0 && procs[0].PID != m.bg.active {
		m.bg.active = procs[len(procs)-1].PID
	}
	m.bg.sel = min(m.bg.sel, len(procs)-1)
	m.bg.tail = nil
	for _, p := range procs {
		if p.PID == m.bg.active {
			m.bg.tail = logTail(p.Log, m.bgRows())
		}
	}
}

// bgRows is how many lines of output the panel shows.
func (m *model) bgRows() int { return min(max(m.height/3, 3), 12) }

// logTail is the last n lines of a log, made safe to print.
func logTail(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > bgTailBytes {
		f.Seek(fi.Size()-bgTailBytes, io.SeekStart)
	}
	data, _ := io.ReadAll(f)
	text := strings.TrimRight(strings.ReplaceAll(termtext.Visible(string(data)), "\r", ""), "\n")
	if text == "" {
		return nil
	}
	return tailLines(text, n)
}

// killBackground stops pid, off the event loop: a process group is given
// its grace period to end.
func (m *model) killBackground(pid int) tea.Cmd {
	bg := m.agent.Background
	return func() tea.Msg { return bgKilledMsg{pid: pid, ok: bg.Kill(pid)} }
}

func (m *model) onBgKilled(msg bgKilledMsg) {
	if m.bg.dismissed == nil {
		m.bg.dismissed = map[int]bool{}
	}
	m.bg.dismissed[msg.pid] = true
	if !m.bg.visible {
		return
	}
	if m.bg.active == msg.pid {
		m.bg.active = 0
	}
	m.refreshBackground()
	if m.bg.visible && len(m.bg.procs) <= 1 {
		m.bg.list = false
	}
}

// backgroundKey handles a key while the panel has the keys; false lets
// the key go on to the input (and takes the keys back from the panel).
func (m *model) backgroundKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if !m.bg.visible || !m.bg.focused {
		return nil, false
	}
	procs := m.bg.procs
	if m.bg.list {
		switch k.String() {
		case "up", "k", "ctrl+p":
			m.bg.sel = (m.bg.sel - 1 + len(procs)) % len(procs)
		case "down", "j", "ctrl+n":
			m.bg.sel = (m.bg.sel + 1) % len(procs)
		case "enter", "ctrl+l":
			m.bg.active = procs[m.bg.sel].PID
			m.bg.list = false
			m.refreshBackground()
		case "esc":
			m.bg.list = false
		case "ctrl+k":
			return m.killBackground(procs[m.bg.sel].PID), true
		case "ctrl+b":
			return m.toggleBackground(), true
		case "shift+tab":
			m.bg.focused = false
		default:
			return nil, true
		}
		return nil, true
	}
	switch k.String() {
	case "ctrl+k":
		return m.killBackground(m.bg.active), true
	case "ctrl+l":
		m.bg.list = true
		m.bg.sel = m.bgIndex(procs, m.bg.active)
		return nil, true
	case "ctrl+b":
		return m.toggleBackground(), true
	case "esc", "shift+tab":
		m.bg.focused = false
		return nil, true
	}
	if k.Text != "" || k.String() == "enter" {
		if !m.bg.noInputSaid {
			m.bg.noInputSaid = true
			m.printNotice(noticeInfo, "Castor's background shells read no input; Shift+Tab gives the keys back to the prompt.")
		}
		return nil, true
	}
	return nil, false
}

// renderBackground is the panel: the shells as tabs and the shown one's
// output, or the list to choose from.
func (m *model) renderBackground() string {
	if !m.bg.visible || len(m.bg.procs) == 0 {
		return ""
	}
	inner := max(m.width-4, 20)
	help := "Close (Ctrl+B) | Kill (Ctrl+K) | List (Ctrl+L)"
	var tabs []string
	for i, p := range m.bg.procs {
		if !p.Running && p.PID != m.bg.active {
			continue
		}
		label := fmt.Sprintf(" %d: %s ", i+1, firstLine(termtext.String(p.Command)))
		if p.PID == m.bg.active {
			label = m.theme.title.Render(label)
		} else {
			label = m.theme.dim.Render(label)
		}
		tabs = append(tabs, label)
	}
	pid := fmt.Sprintf(" (PID: %d)", m.bg.active)
	if m.bg.focused {
		pid += " (Focused)"
	}
	// The tabs give way, not what the keys act on; room is kept for a
	// PID of 7 digits, so that the tabs do not change with the PID.
	pidW := ansi.StringWidth(pid) + max(7-len(fmt.Sprint(m.bg.active)), 0)
	head := ansi.Truncate(strings.Join(tabs, ""), max(inner-ansi.StringWidth(help)-pidW-1, 10), "…") + pid
	gap := max(inner-ansi.StringWidth(head)-ansi.StringWidth(help), 1)
	var b strings.Builder
	b.WriteString(head + strings.Repeat(" ", gap) + m.theme.dim.Render(help) + "\n")
	if m.bg.list {
		b.WriteString(m.theme.title.Render("Select Process (Enter to select, Ctrl+K to kill, Esc to cancel):") + "\n")
		for i, p := range m.bg.procs {
			mark := "  "
			if i == m.bg.sel {
				mark = "● "
			}
			row := fmt.Sprintf("%s%d. %s (PID: %d)", mark, i+1, firstLine(termtext.String(p.Command)), p.PID)
			row = ansi.Truncate(row, inner, "…")
			if i == m.bg.sel {
				row = m.theme.accent.Render(row)
			}
			b.WriteString(row + exitNote(m, p) + "\n")
		}
	} else {
		lines := m.bg.tail
		if len(lines) == 0 {
			lines = []string{m.theme.dim.Render("(no output yet)")}
		}
		for _, l := range lines {
			b.WriteString(ansi.Truncate(l, inner, "…") + "\n")
		}
		for _, p := range m.bg.procs {
			if p.PID == m.bg.active && !p.Running {
				b.WriteString(strings.TrimSpace(exitNote(m, p)) + "\n")
			}
		}
	}
	return m.theme.dialog.Width(m.width).Render(strings.TrimRight(b.String(), "\n"))
}

// exitNote says how a shell that ended ended.
func exitNote(m *model, p builtin.BackgroundProcess) string {
	switch {
	case p.Running:
		return ""
	case p.ExitCode != nil && *p.ExitCode == 0:
		return m.theme.ok.Render(" (Exit Code: 0)")
	case p.ExitCode != nil:
		return m.theme.bad.Render(fmt.Sprintf(" (Exit Code: %d)", *p.ExitCode))
	default:
		return m.theme.bad.Render(fmt.Sprintf(" (Signal: %d)", p.Signal))
	}
}
