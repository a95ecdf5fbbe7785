package tui

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/internal/termtext"
)

// A picker is the one list dialog of the terminal's commands (/theme,
// /model, /resume, /auth, /editor, /settings …), in the place of the input
// as Gemini CLI's radio-button dialogs are: Up and Down (or k and j) move,
// a number picks, Enter chooses, Esc closes. A picker may instead ask for
// one line of text (an API key, a setting's value).

// pickItem is one row of a picker.
type pickItem struct {
	label, desc string
	// value is what the choice hands back; label when empty.
	value string
}

// picker is a dialog on screen.
type picker struct {
	title string
	// note is a dim line under the title (what the choice does).
	note  string
	items []pickItem
	sel   int
	// choose runs on Enter with the chosen item; it may open another
	// picker (m.pick) and returns the command to run next.
	choose func(m *model, it pickItem) tea.Cmd
	// cancel runs on Esc; nil closes the picker silently.
	cancel func(m *model) tea.Cmd
	// text, when set, makes the picker a one-line question: Enter hands
	// its value to submit.
	text   *textinput.Model
	submit func(m *model, value string) tea.Cmd
	// digits is a number being typed to pick an item past 9.
	digits string
	// tab, when set, is what Tab does (the settings dialog's scope)
	// instead of moving down.
	tab func(m *model)
	// search, when set, makes letters typed narrow the list to the items
	// whose label or description holds them (the settings dialog's
	// search, as Gemini CLI's); all is the whole list, query the text.
	search bool
	all    []pickItem
	query  string
}

// narrow shows the items that hold the query, the first selected.
func (p *picker) narrow() {
	if p.all == nil {
		p.all = p.items
	}
	q := strings.ToLower(p.query)
	p.items = p.items[:0:0]
	for _, it := range p.all {
		if q == "" || strings.Contains(strings.ToLower(it.label+" "+it.value+" "+it.desc), q) {
			p.items = append(p.items, it)
		}
	}
	p.sel, p.digits = 0, ""
}

// maxPickRows is how many items a picker shows at a time.
const maxPickRows = 10

// pick opens p in place of the input.
func (m *model) pick(p *picker) {
	if p.text != nil {
		p.text.Focus()
	}
	m.picker = p
	m.comp = completion{}
}

// askText opens a one-line question; secret hides what is typed.
func (m *model) askText(title, note, initial string, secret bool, submit func(m *model, value string) tea.Cmd) {
	in := textinput.New()
	in.Prompt = "> "
	in.SetValue(initial)
	in.CharLimit = 0
	in.SetWidth(max(m.width-8, 10))
	if secret {
		in.EchoMode = textinput.EchoPassword
		in.EchoCharacter = '•'
	}
	m.pick(&picker{title: title, note: note, text: &in, submit: submit})
}

// pickerKey handles a key while a picker is shown.
func (m *model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	switch k.String() {
	case "esc", "ctrl+c":
		m.picker = nil
		if p.cancel != nil {
			return p.cancel(m)
		}
		return nil
	case "enter":
		m.picker = nil
		if p.text != nil {
			return p.submit(m, p.text.Value())
		}
		if len(p.items) == 0 {
			return nil
		}
		return p.choose(m, p.items[p.sel])
	}
	if p.text != nil {
		var cmd tea.Cmd
		*p.text, cmd = p.text.Update(k)
		return cmd
	}
	if k.String() == "tab" && p.tab != nil {
		p.tab(m)
		return nil
	}
	if p.search {
		switch t := k.Text; {
		case k.String() == "backspace" && p.query != "":
			_, n := utf8.DecodeLastRuneInString(p.query)
			p.query = p.query[:len(p.query)-n]
			p.narrow()
			return nil
		case t != "" && (len(t) > 1 || t[0] < '0' || t[0] > '9') && k.Key().Mod&(tea.ModCtrl|tea.ModAlt) == 0:
			p.query += t
			p.narrow()
			return nil
		}
	}
	switch k.String() {
	case "up", "k", "shift+tab":
		p.sel = (p.sel - 1 + len(p.items)) % max(len(p.items), 1)
		p.digits = ""
	case "down", "j", "tab":
		p.sel = (p.sel + 1) % max(len(p.items), 1)
		p.digits = ""
	case "home":
		p.sel = 0
	case "end":
		p.sel = max(len(p.items)-1, 0)
	case "pgup":
		p.sel = max(p.sel-maxPickRows, 0)
	case "pgdown":
		p.sel = min(p.sel+maxPickRows, max(len(p.items)-1, 0))
	default:
		if r := k.Text; len(r) == 1 && r[0] >= '0' && r[0] <= '9' {
			// Numbers pick as in Gemini CLI's radio buttons; a number
			// that could go on (1 of 12) waits for the next digit.
			p.digits += r
			n, _ := strconv.Atoi(p.digits)
			if n < 1 || n > len(p.items) {
				p.digits = r
				n, _ = strconv.Atoi(r)
			}
			if n >= 1 && n <= len(p.items) {
				p.sel = n - 1
				if n*10 > len(p.items) {
					m.picker = nil
					return p.choose(m, p.items[p.sel])
				}
			}
		}
	}
	return nil
}

// pickerPaste puts pasted text into a picker's line.
func (m *model) pickerPaste(msg tea.PasteMsg) {
	if p := m.picker; p != nil && p.text != nil {
		*p.text, _ = p.text.Update(msg)
	}
}

// renderPicker draws the picker in a box.
func (m *model) renderPicker() string {
	p := m.picker
	var b strings.Builder
	b.WriteString(m.theme.title.Render(p.title))
	if p.note != "" {
		b.WriteString("\n" + m.theme.dim.Render(wrapWords(termtext.String(p.note), max(m.width-6, 20), "")))
	}
	if p.search {
		q := m.theme.dim.Render("Type to search")
		if p.query != "" {
			q = "Search: " + termtext.String(p.query)
		}
		b.WriteString("\n" + q)
	}
	b.WriteString("\n")
	if p.text != nil {
		b.WriteString("\n" + p.text.View() + "\n\n")
		b.WriteString(m.theme.dim.Render("Enter to save, Esc to cancel"))
		return m.theme.dialog.Width(m.width).Render(b.String())
	}
	start := 0
	if p.sel >= maxPickRows {
		start = p.sel - maxPickRows + 1
	}
	end := min(start+maxPickRows, len(p.items))
	numW := len(strconv.Itoa(len(p.items)))
	labelW := 0
	for _, it := range p.items[start:end] {
		labelW = max(labelW, ansi.StringWidth(it.label))
	}
	if start > 0 {
		b.WriteString(m.theme.dim.Render(fmt.Sprintf("  ↑ %d more", start)) + "\n")
	}
	for i := start; i < end; i++ {
		it := p.items[i]
		mark := "  "
		if i == p.sel {
			mark = "● "
		}
		label := fmt.Sprintf("%s%*d. %-*s", mark, numW, i+1, labelW, termtext.String(it.label))
		row := label
		if i == p.sel {
			row = m.theme.selected.Render(label)
		}
		if it.desc != "" {
			row += "  " + m.theme.dim.Render(termtext.String(it.desc))
		}
		b.WriteString(ansi.Truncate(row, max(m.width-4, 10), "…") + "\n")
	}
	if end < len(p.items) {
		b.WriteString(m.theme.dim.Render(fmt.Sprintf("  ↓ %d more", len(p.items)-end)) + "\n")
	}
	b.WriteString("\n" + m.theme.dim.Render("(Use Enter to select, Esc to close)"))
	return m.theme.dialog.Width(m.width).Render(b.String())
}
