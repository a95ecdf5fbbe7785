package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/tool"
)

// dialog asks the user about one call awaiting approval. The engine's
// confirmation callback waits on reply.
type dialog struct {
	call    *agent.ToolCall
	reply   chan<- tool.Decision
	options []option
	sel     int
	done    bool
	// note is open once the user chose to reject: an optional line for
	// the model, sent with the cancelled call (Gemini CLI's "suggest
	// changes"); nil before.
	note *textinput.Model
	// ask is set for a confirmation that is a question (askdialog.go).
	ask *askState
}

type option struct {
	label   string
	outcome tool.Outcome
	// hint follows the label, dimmed: where "allow always and save"
	// writes its rule, as Gemini CLI shows it.
	hint string
}

// newDialog builds the dialog for c. save is where an "allow always and
// save" answer is written, as the user reads it; "" leaves the option out
// (security.enablePermanentToolApproval off).
func newDialog(c *agent.ToolCall, reply chan<- tool.Decision, save string) *dialog {
	d := &dialog{call: c, reply: reply}
	det := &tool.ConfirmationDetails{}
	if c.Confirmation != nil && c.Confirmation.Details != nil {
		det = c.Confirmation.Details
	}
	d.options = append(d.options, option{label: "Allow once", outcome: tool.ProceedOnce})
	if d.ask = newAsk(det); d.ask != nil {
		d.options = append(d.options, option{label: "Dismiss", outcome: tool.Cancel})
		return d
	}
	switch det.Type {
	case tool.ConfirmEdit:
		d.options = append(d.options, option{label: fmt.Sprintf("Allow %s for this session", displayName(c)), outcome: tool.ProceedAlways})
		if det.NewContent != "" || det.OriginalContent != nil {
			d.options = append(d.options, option{label: "Modify in $EDITOR, then allow", outcome: tool.ModifyWithEditor})
		}
	case tool.ConfirmExec:
		d.options = append(d.options, option{label: fmt.Sprintf("Allow %s for this session", strings.Join(rootsOf(det), ", ")), outcome: tool.ProceedAlways})
	case tool.ConfirmMCP:
		d.options = append(d.options,
			option{label: fmt.Sprintf("Allow tool %s for this session", det.ToolName), outcome: tool.ProceedAlwaysTool},
			option{label: fmt.Sprintf("Allow every tool of server %s for this session", det.ServerName), outcome: tool.ProceedAlwaysServer})
	default:
		d.options = append(d.options, option{label: fmt.Sprintf("Allow %s for this session", displayName(c)), outcome: tool.ProceedAlways})
	}
	if save != "" {
		// After the session's choices, before the editor, as in Gemini CLI.
		at := len(d.options)
		if d.options[at-1].outcome == tool.ModifyWithEditor {
			at--
		}
		d.options = slices.Insert(d.options, at, option{label: "Allow always and save", outcome: tool.ProceedAlwaysSave, hint: save})
	}
	d.options = append(d.options, option{label: "No, tell the model what to do instead (esc)", outcome: tool.Cancel})
	return d
}

// savesAnswers is where "allow always and save" answers are written, with
// the home directory as ~, or "" when the session does not save them.
func (m *model) savesAnswers() string {
	if m.agent == nil || m.agent.Policy == nil {
		return ""
	}
	p := m.agent.Policy.SavesAnswers()
	if home := m.agent.Home.UserDir; p != "" && home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && filepath.IsLocal(rel) {
			p = "~" + string(filepath.Separator) + rel
		}
	}
	return p
}

// answer sends the decision once.
func (d *dialog) answer(dec tool.Decision) {
	if d.done {
		return
	}
	d.done = true
	d.reply <- dec
}

func (m *model) dialogKey(k tea.KeyPressMsg) tea.Cmd {
	d := m.dialog
	ks := k.String()
	if d.ask != nil {
		return m.askKey(k)
	}
	if d.note != nil {
		return m.noteKey(k)
	}
	switch ks {
	case "up", "k":
		d.sel = (d.sel + len(d.options) - 1) % len(d.options)
	case "down", "j", "tab":
		d.sel = (d.sel + 1) % len(d.options)
	case "esc":
		return m.choose(len(d.options) - 1)
	case "ctrl+c":
		m.cancelTurn()
	case "enter":
		return m.choose(d.sel)
	case "shift+tab":
		m.cycleMode()
	default:
		if len(ks) == 1 && ks[0] >= '1' && int(ks[0]-'0') <= len(d.options) {
			return m.choose(int(ks[0] - '1'))
		}
	}
	return nil
}

// choose takes option i. Rejecting first opens the note line (noteKey).
func (m *model) choose(i int) tea.Cmd {
	d := m.dialog
	o := d.options[i]
	switch o.outcome {
	case tool.ModifyWithEditor:
		return m.openEditor()
	case tool.Cancel:
		in := textinput.New()
		in.Prompt = "> "
		in.Placeholder = "optional note for the model"
		in.CharLimit = 2000
		in.SetWidth(max(m.width-8, 10))
		d.note = &in
		return in.Focus()
	}
	m.dialog = nil
	d.answer(tool.Decision{Outcome: o.outcome})
	return nil
}

// noteKey edits the rejection note. Enter rejects the call, and a note
// becomes the prompt that follows it: rejecting ends the turn (the engine
// cancels the rest of the batch), and the next prompt carries the
// cancelled responses to the model together with the note. Esc rejects
// without a note.
func (m *model) noteKey(k tea.KeyPressMsg) tea.Cmd {
	d := m.dialog
	switch k.String() {
	case "enter", "esc":
		note := ""
		if k.String() == "enter" {
			note = strings.TrimSpace(d.note.Value())
		}
		m.dialog = nil
		if note == "" {
			m.printNotice(noticeInfo, "Rejected.")
		} else {
			m.rejectNote = note
		}
		d.answer(tool.Decision{Outcome: tool.Cancel})
		return nil
	case "ctrl+c":
		m.cancelTurn()
		return nil
	}
	var cmd tea.Cmd
	*d.note, cmd = d.note.Update(k)
	return cmd
}

type editorDoneMsg struct {
	path string
	err  error
}

// openEditor lets the user change the proposed content in $EDITOR (VISUAL
// first), pausing the program while it runs.
func (m *model) openEditor() tea.Cmd {
	det := m.dialog.call.Confirmation.Details
	f, err := os.CreateTemp("", "castor-edit-*-"+sanitizeName(det.FileName))
	if err != nil {
		m.printNotice(noticeError, err.Error())
		return nil
	}
	_, err = f.WriteString(det.NewContent)
	f.Close()
	if err != nil {
		m.printNotice(noticeError, err.Error())
		return nil
	}
	args := m.editorArgv() // keys.go
	cmd := exec.Command(args[0], append(args[1:], f.Name())...)
	path := f.Name()
	return tea.ExecProcess(cmd, func(err error) tea.Msg { return editorDoneMsg{path: path, err: err} })
}

func (m *model) onEditorDone(msg editorDoneMsg) tea.Cmd {
	defer os.Remove(msg.path)
	if m.dialog == nil {
		return nil
	}
	if msg.err != nil {
		m.printNotice(noticeError, "editor: "+msg.err.Error())
		return nil
	}
	data, err := os.ReadFile(msg.path)
	if err != nil {
		m.printNotice(noticeError, err.Error())
		return nil
	}
	s := string(data)
	d := m.dialog
	m.dialog = nil
	d.answer(tool.Decision{Outcome: tool.ProceedOnce, NewContent: &s})
	return nil
}

func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == '*' || r < ' ' {
			return '_'
		}
		return r
	}, s)
}

func (m *model) renderDialog() string {
	d := m.dialog
	if d.ask != nil {
		return m.renderAsk()
	}
	c := d.call
	det := &tool.ConfirmationDetails{}
	if c.Confirmation != nil && c.Confirmation.Details != nil {
		det = c.Confirmation.Details
	}
	inner := max(m.width-4, 20)
	var lines []string
	lines = append(lines, ansi.Truncate(m.renderCall(c, false), inner, "…"))
	switch det.Type {
	case tool.ConfirmEdit:
		// The diff gives way to the terminal's height: taller than the
		// screen, the dialog lost its top rows, which say what is edited.
		// Around it: two borders, the title, a blank row, the question,
		// the options and the footer under the dialog.
		limit := min(maxDiffLines, max(m.height-6-len(d.options)-1, 3))
		lines = append(lines, m.renderDiff(det.FileDiff, limit)...)
	case tool.ConfirmExec:
		for _, l := range headLines(termtext.Visible(det.Command), maxResultLines) {
			lines = append(lines, m.theme.accent.Render("$ "+l))
		}
	case tool.ConfirmInfo:
		if det.Prompt != "" {
			lines = append(lines, headLines(termtext.Visible(det.Prompt), maxResultLines)...)
		}
		for _, u := range det.URLs {
			lines = append(lines, " - "+termtext.Visible(u))
		}
	}
	if d.note != nil {
		lines = append(lines, "", m.theme.title.Render("Rejected. What should the model do instead?"), d.note.View(),
			m.theme.dim.Render("Enter sends the note with the rejection; Enter alone or Esc just rejects."))
		for i, l := range lines {
			lines[i] = ansi.Truncate(l, inner, "…")
		}
		return m.theme.dialog.Width(m.width).Render(strings.Join(lines, "\n"))
	}
	lines = append(lines, "", m.theme.title.Render(termtext.Visible(confirmQuestion(det))))
	for i, o := range d.options {
		label := fmt.Sprintf("%d. %s", i+1, termtext.Visible(o.label))
		hint := ""
		if o.hint != "" {
			hint = " " + m.theme.dim.Render(termtext.String(o.hint))
		}
		if i == d.sel {
			lines = append(lines, m.theme.selected.Render("● "+label)+hint)
		} else {
			lines = append(lines, "  "+label+hint)
		}
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	return m.theme.dialog.Width(m.width).Render(strings.Join(lines, "\n"))
}

func displayName(c *agent.ToolCall) string {
	if c.Tool != nil && c.Tool.DisplayName() != "" {
		return c.Tool.DisplayName()
	}
	return c.Name
}
