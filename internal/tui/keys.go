package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/tailscale/hujson"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/internal/termtext"
)

// The terminal's own keys, named by Gemini CLI's keybinding commands so
// that ~/.gemini/keybindings.json rebinds them as it does in Gemini CLI:
// a JSON array (comments allowed) of {"command", "key"}, a command
// prefixed with "-" unbinding that key. Keys of editing and cursor
// movement stay the input editor's own.

// defaultBindings are the commands the terminal carries out, with their
// keys as Gemini CLI 0.61 binds them.
var defaultBindings = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		"app.toggleYolo":                     {"ctrl+y"},
		"app.cycleApprovalMode":              {"shift+tab"},
		"app.clearScreen":                    {"ctrl+l"},
		"app.showMoreLines":                  {"ctrl+o"},
		"background.toggle":                  {"ctrl+b"},
		"app.showFullTodos":                  {"ctrl+t"},
		"input.paste":                        {"ctrl+v", "alt+v"},
		"app.suspend":                        {"ctrl+z"},
		"history.search.start":               {"ctrl+r"},
		"history.previous":                   {"ctrl+p"},
		"history.next":                       {"ctrl+n"},
		"input.openExternalEditor":           {"ctrl+g", "ctrl+shift+g"},
		"input.deprecatedOpenExternalEditor": {"ctrl+x"},
		"edit.clear":                         {},
	}
}}

// keybindingsFile is Gemini CLI's file of custom keybindings, in the
// Gemini home directory.
const keybindingsFile = "keybindings.json"

// keymap maps a normalised key to the command it runs.
type keymap map[string]string

// loadKeymap is the default bindings changed by the user's file; a file
// that cannot be read as Gemini CLI's format is said in one warning and
// the defaults kept.
func loadKeymap(geminiDir string, warn func(string)) keymap {
	km := keymap{}
	for cmd, keys := range defaultBindings.Get() {
		for _, k := range keys {
			km[normKey(k)] = cmd
		}
	}
	if geminiDir == "" {
		return km
	}
	path := filepath.Join(geminiDir, keybindingsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return km
	}
	var rows []struct {
		Command string `json:"command"`
		Key     string `json:"key"`
	}
	if err == nil {
		if data, err = hujson.Standardize(data); err == nil {
			err = json.Unmarshal(data, &rows)
		}
	}
	if err != nil {
		warn(fmt.Sprintf("%s: %v; the default keys are used", path, err))
		return km
	}
	var unknown []string
	for _, r := range rows {
		cmd, unbind := strings.CutPrefix(r.Command, "-")
		k := normKey(r.Key)
		if _, ok := defaultBindings.Get()[cmd]; !ok {
			unknown = append(unknown, r.Command)
			continue
		}
		if unbind {
			if km[k] == cmd {
				delete(km, k)
			}
			continue
		}
		km[k] = cmd
	}
	if len(unknown) > 0 {
		warn(fmt.Sprintf("%s: Castor does not rebind %s (the input editor keeps its own keys)", path, strings.Join(unknown, ", ")))
	}
	return km
}

// normKey writes a key as Bubble Tea names it, whatever order and
// synonyms the modifiers were given in ("shift+ctrl+G" is "ctrl+shift+g").
func normKey(k string) string {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(k)), "+")
	if len(parts) == 0 {
		return ""
	}
	base := parts[len(parts)-1]
	if base == "" && len(parts) > 1 { // "ctrl++"
		base = "+"
	}
	switch base {
	case "escape":
		base = "esc"
	case "pageup":
		base = "pgup"
	case "pagedown":
		base = "pgdown"
	case "return":
		base = "enter"
	}
	var mods []string
	for _, p := range parts[:len(parts)-1] {
		switch p {
		case "opt", "option":
			p = "alt"
		case "cmd":
			p = "meta"
		case "":
			continue
		}
		mods = append(mods, p)
	}
	// Bubble Tea's order.
	order := []string{"ctrl", "alt", "shift", "meta", "hyper", "super"}
	slices.SortFunc(mods, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
	return strings.Join(append(mods, base), "+")
}

// appKey runs the terminal command bound to k; it reports whether k was
// one (or closed the overlay, or belongs to the reverse search).
func (m *model) appKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.search != nil {
		return m.searchKey(k), true
	}
	closed := m.overlay != ""
	if closed {
		// Any key closes the overlay; Esc does nothing else, and ? is
		// typed, as in Gemini CLI.
		m.overlay = ""
		if k.String() == "esc" {
			return nil, true
		}
	}
	if m.keys == nil {
		m.keys = loadKeymap(m.geminiDir(), func(s string) { m.printNotice(noticeWarn, s) })
	}
	if k.Text == "?" && !closed && m.input.Value() == "" && !m.running {
		m.overlay = m.shortcuts()
		return nil, true
	}
	switch m.keys[k.String()] {
	case "app.toggleYolo":
		m.toggleYolo()
	case "app.cycleApprovalMode":
		m.cycleMode()
	case "app.clearScreen":
		if m.bg.visible {
			// Gemini CLI's background.toggleList, on the same key.
			m.bg.focused, m.bg.list = true, true
			m.bg.sel = m.bgIndex(m.bg.procs, m.bg.active)
			return nil, true
		}
		return m.clearScreen(), true
	case "background.toggle":
		return m.toggleBackground(), true
	case "app.showFullTodos":
		m.toggleTodos()
	case "input.paste":
		return m.pasteClipboard(), true
	case "app.showMoreLines":
		// A paste under the cursor first, as Gemini CLI's app.expandPaste
		// on the same key (paste.go).
		if !m.togglePaste() {
			m.expandLastOutput()
		}
	case "app.suspend":
		return tea.Suspend, true
	case "history.search.start":
		m.startSearch()
	case "history.previous":
		return m.onKey(tea.KeyPressMsg{Code: tea.KeyUp}), true
	case "history.next":
		return m.onKey(tea.KeyPressMsg{Code: tea.KeyDown}), true
	case "input.openExternalEditor", "input.deprecatedOpenExternalEditor":
		return m.editPrompt(), true
	case "edit.clear":
		m.resetInput()
	default:
		if why, ok := keysNotHere.Get()[k.String()]; ok {
			m.printNotice(noticeInfo, why)
			return nil, true
		}
		return nil, false
	}
	return nil, true
}

// keysNotHere are Gemini CLI 0.61 keys with no meaning in Castor's
// inline terminal, each said in one line rather than ignored.
var keysNotHere = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"alt+m":  "Alt+M (raw Markdown) is not available in Castor: answers are printed once, rendered.",
		"ctrl+s": "Ctrl+S (mouse mode) is not available in Castor: it draws inline, and the terminal's own scrollback scrolls.",
		"f12":    "F12 (the debug console) is not available in Castor: errors are printed where they happen.",
		"f9":     "F9 (copy mode) is not available in Castor: it draws inline, so the terminal's own selection works.",
		"f4":     "F4 (IDE context details) is not available in Castor: /ide status shows the connection and open files.",
	}
}}

// geminiDir is the Gemini home directory (~/.gemini).
func (m *model) geminiDir() string {
	if m.agent != nil {
		return m.agent.Home.Dir
	}
	if m.homeDir != "" {
		return filepath.Join(m.homeDir, ".gemini")
	}
	return ""
}

// clearScreen is Ctrl+L: the screen is cleared and the live area drawn
// again; unlike /clear the conversation stays.
func (m *model) clearScreen() tea.Cmd {
	m.shown, m.redraw = nil, nil
	return tea.Sequence(tea.Raw(ansi.CursorHomePosition+ansi.EraseEntireScreen), tea.ClearScreen)
}

// shortcutRows are the rows of the ? panel, Gemini CLI's ShortcutsHelp.
var shortcutRows = [][2]string{
	{"!", "shell mode"},
	{"@", "select file or folder"},
	{"Double Esc", "clear & rewind"},
	{"Ctrl+Y", "YOLO mode"},
	{"Shift+Tab", "cycle mode"},
	{"Ctrl+R", "reverse-search history"},
	{"Ctrl+G", "open external editor"},
	{"Ctrl+O", "expand or fold the paste at the cursor, else the last tool output"},
	{"Ctrl+L", "clear the screen"},
	{"Ctrl+B", "background shells (Ctrl+K kills, Ctrl+L lists); moves a running shell command there"},
	{"Ctrl+T", "show or fold the TODO list"},
	{"Ctrl+V", "paste from the clipboard; an image as an @path"},
	{"Ctrl+Z", "undo in the input, else suspend"},
	{"Tab", "queue the prompt while a reply streams; into a running command"},
	{"Tab Tab", "hide or show the footer"},
	{"/help", "all commands and keys"},
}

// shortcuts is the ? panel.
func (m *model) shortcuts() string {
	var b strings.Builder
	b.WriteString(m.theme.title.Render("Shortcuts") + m.theme.dim.Render(" (any key closes)") + "\n")
	for _, r := range shortcutRows {
		b.WriteString("  " + m.theme.accent.Render(fmt.Sprintf("%-11s", r[0])) + " " + r[1] + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// expandLastOutput is Ctrl+O: the scrollback cannot grow a block printed
// above, so the last tool call's output is printed again in full.
func (m *model) expandLastOutput() {
	c := m.lastCallDone
	if c == nil || c.Result == nil || strings.TrimSpace(c.Result.Display) == "" {
		if len(m.calls) > 0 && m.calls[0].LiveOutput != "" {
			m.overlay = strings.Join(tailLines(termtext.Visible(m.calls[0].LiveOutput), max(m.height-8, 5)), "\n")
			return
		}
		m.printNotice(noticeInfo, "No tool output to show yet.")
		return
	}
	m.separate()
	m.print(m.callIcon(c.Status) + " " + m.theme.title.Render(termtext.Visible(c.Name)) + " " + m.theme.dim.Render("(full output)"))
	m.print(termtext.Visible(strings.TrimRight(c.Result.Display, "\n")))
	m.print("")
}

// noteDone remembers the last finished call for Ctrl+O.
func (m *model) noteDone(c *agent.ToolCall) { m.lastCallDone = c }

// editorArgv is the editor command line: general.preferredEditor, else
// $VISUAL, $EDITOR, vi.
func (m *model) editorArgv() []string {
	if args := m.preferredEditor(); args != nil {
		return args
	}
	editor := getenv(m.cfg.Environ, "VISUAL")
	if editor == "" {
		editor = getenv(m.cfg.Environ, "EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	return strings.Fields(editor)
}

// promptEditedMsg brings back the prompt edited in the external editor.
type promptEditedMsg struct {
	path string
	err  error
}

// editPrompt is Ctrl+G: the prompt opens in the external editor, and
// comes back into the input when it is closed.
func (m *model) editPrompt() tea.Cmd {
	f, err := os.CreateTemp("", "castor-prompt-*.md")
	if err != nil {
		m.printNotice(noticeError, err.Error())
		return nil
	}
	_, err = f.WriteString(m.inputText())
	f.Close()
	if err != nil {
		m.printNotice(noticeError, err.Error())
		return nil
	}
	args := m.editorArgv()
	path := f.Name()
	cmd := exec.Command(args[0], append(args[1:], path)...)
	return tea.ExecProcess(cmd, func(err error) tea.Msg { return promptEditedMsg{path: path, err: err} })
}

func (m *model) onPromptEdited(msg promptEditedMsg) tea.Cmd {
	defer os.Remove(msg.path)
	if msg.err != nil {
		m.printNotice(noticeError, "editor: "+msg.err.Error())
		return nil
	}
	data, err := os.ReadFile(msg.path)
	if err != nil {
		m.printNotice(noticeError, err.Error())
		return nil
	}
	m.setInput(strings.TrimRight(string(data), "\n"))
	m.input.MoveToEnd()
	return nil
}

// histSearch is Ctrl+R's reverse search through the input history.
type histSearch struct {
	query string
	// at is the index in the history of the match shown; -1 for none.
	at    int
	draft string
}

func (m *model) startSearch() {
	if m.hist == nil {
		m.printNotice(noticeInfo, "No input history yet.")
		return
	}
	m.search = &histSearch{at: -1, draft: m.inputText()}
}

// find looks for the newest entry containing the query older than the
// index before.
func (s *histSearch) find(items []string, before int) int {
	q := strings.ToLower(s.query)
	for i := min(before, len(items)) - 1; i >= 0; i-- {
		if strings.Contains(strings.ToLower(items[i]), q) {
			return i
		}
	}
	return -1
}

// searchKey handles a key during the reverse search: letters narrow it,
// Ctrl+R finds an older match, Enter sends the match, Tab (or an arrow)
// puts it in the input to edit, Esc gives the draft back.
func (m *model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	s, items := m.search, m.hist.items
	switch k.String() {
	case "esc", "ctrl+c", "ctrl+g":
		m.search = nil
		m.setInput(s.draft)
		return nil
	case "ctrl+r":
		if s.at > 0 {
			if i := s.find(items, s.at); i >= 0 {
				s.at = i
			}
		}
		return nil
	case "backspace":
		if s.query != "" {
			r := []rune(s.query)
			s.query = string(r[:len(r)-1])
			s.at = s.find(items, len(items))
		}
		return nil
	case "enter":
		m.search = nil
		if s.at < 0 {
			m.setInput(s.draft)
			return nil
		}
		text := items[s.at]
		m.resetInput()
		m.hist.add(text)
		return m.submit(text, false)
	case "tab", "right", "left", "up", "down":
		m.search = nil
		if s.at >= 0 {
			m.setInput(items[s.at])
			m.input.MoveToEnd()
		} else {
			m.setInput(s.draft)
		}
		return nil
	}
	if k.Text != "" {
		s.query += k.Text
		s.at = s.find(items, len(items))
	}
	return nil
}

// renderSearch is the reverse search's row, in place of the status row.
func (m *model) renderSearch() string {
	s := m.search
	match := m.theme.dim.Render("no match")
	if s.at >= 0 {
		match = strings.Join(strings.Fields(termtext.String(m.hist.items[s.at])), " ")
	}
	line := m.theme.accent.Render("(reverse-i-search)") + "`" + termtext.String(s.query) + "': " + match
	hint := m.theme.dim.Render("  Enter runs · Tab edits · Ctrl+R older · Esc cancels")
	return ansi.Truncate(line+hint, max(m.width-1, 10), "…")
}

// escTwice is how soon a second Esc must follow the first to count as
// Gemini CLI's double Esc.
const escTwice = 500 * time.Millisecond

// doubleEsc is a second Esc on an idle prompt: it clears the input, or
// on an empty one opens the rewind picker, which /rewind carries out
// where this build has it.
func (m *model) doubleEsc() tea.Cmd {
	now := m.now()
	first := m.lastEsc
	m.lastEsc = now
	if first.IsZero() || now.Sub(first) > escTwice {
		return nil
	}
	m.lastEsc = time.Time{}
	if m.input.Value() != "" {
		m.resetInput()
		m.comp = completion{}
		return nil
	}
	if c, _, _ := m.commands().Lookup("rewind"); c != nil && c.OfferedIn(command.FaceTerminal) {
		return m.runCommand("/rewind")
	}
	m.printNotice(noticeInfo, "Rewind is not available in this build.")
	return nil
}
