package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/internal/oauth"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/mcp"
)

// An MCP server's question (elicitation) is shown as a small form in the
// live area, in place of the input: one row per field of the requested
// schema (text, number, yes/no, or a choice), or the URL the server wants
// opened. Enter accepts, Esc declines, Ctrl-C cancels. The MCP manager
// calls elicit on the tool call's goroutine; the form is answered on the
// program's, through the reply channel.

// openURL opens a URL-mode request's page; tests replace it.
var openURL = oauth.OpenURL

// elicitMsg shows a form; elicitGoneMsg takes it away when the server
// stopped waiting (the call was cancelled or timed out).
type (
	elicitMsg     struct{ form *elicitForm }
	elicitGoneMsg struct{ form *elicitForm }
)

// elicitForm is one question being answered.
type elicitForm struct {
	req    mcp.ElicitRequest
	fields []mcp.ElicitField
	// values are the fields' texts: what was typed for text and
	// numbers, "true"/"false" for yes/no, a choice's value for a choice;
	// "" leaves the field out (its default applies).
	values []string
	sel    int
	err    string
	reply  chan<- mcp.ElicitResult
	done   bool
}

func newElicitForm(req mcp.ElicitRequest, reply chan<- mcp.ElicitResult) *elicitForm {
	f := &elicitForm{req: req, reply: reply}
	if req.Mode != mcp.ElicitURL {
		f.fields = mcp.ElicitFields(req.Schema)
	}
	f.values = make([]string, len(f.fields))
	for i, fl := range f.fields {
		f.values[i] = fl.FormatValue(fl.Default)
	}
	return f
}

// answer sends the result once.
func (f *elicitForm) answer(r mcp.ElicitResult) {
	if f.done {
		return
	}
	f.done = true
	f.reply <- r
}

// elicit is the session's mcp.ElicitFunc: it shows the form and waits for
// the answer, or for the server to give up.
func (m *model) elicit(ctx context.Context, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
	reply := make(chan mcp.ElicitResult, 1)
	f := newElicitForm(req, reply)
	m.send(elicitMsg{form: f})
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		m.send(elicitGoneMsg{form: f})
		return mcp.ElicitResult{Action: mcp.ElicitCancel}, ctx.Err()
	}
}

// onElicit handles the form's messages; it reports whether msg was one.
func (m *model) onElicit(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case elicitMsg:
		m.flushStream()
		m.elicits = append(m.elicits, msg.form)
	case elicitGoneMsg:
		for i, f := range m.elicits {
			if f == msg.form {
				m.elicits = append(m.elicits[:i:i], m.elicits[i+1:]...)
				if !f.done {
					f.done = true
					m.printNotice(noticeInfo, fmt.Sprintf("MCP server '%s' stopped waiting for an answer.", f.req.Server))
				}
				break
			}
		}
	case tea.PasteMsg:
		if len(m.elicits) == 0 {
			return false
		}
		m.elicitType(msg.Content)
	default:
		return false
	}
	return true
}

// elicitKey handles a key while a form is shown.
func (m *model) elicitKey(k tea.KeyPressMsg) tea.Cmd {
	f := m.elicits[0]
	ks := k.String()
	switch ks {
	case "esc":
		m.closeElicit(mcp.ElicitResult{Action: mcp.ElicitDecline}, "Declined.")
		return nil
	case "ctrl+c":
		m.closeElicit(mcp.ElicitResult{Action: mcp.ElicitCancel}, "Cancelled.")
		return nil
	case "enter":
		m.submitElicit()
		return nil
	}
	if len(f.fields) == 0 {
		return nil
	}
	fl := f.fields[f.sel]
	switch ks {
	case "tab", "down":
		f.sel = (f.sel + 1) % len(f.fields)
	case "shift+tab", "up":
		f.sel = (f.sel + len(f.fields) - 1) % len(f.fields)
	case "left", "right", "space":
		step := 1
		if ks == "left" {
			step = -1
		}
		switch fl.Type {
		case "boolean":
			f.values[f.sel] = map[string]string{"true": "false", "false": "true", "": "true"}[f.values[f.sel]]
		case "enum":
			f.values[f.sel] = cycle(fl.Choices, f.values[f.sel], step)
		default:
			if ks == "space" {
				m.elicitType(" ")
			}
		}
	case "backspace":
		if r := []rune(f.values[f.sel]); len(r) > 0 && fl.Type != "enum" && fl.Type != "boolean" {
			f.values[f.sel] = string(r[:len(r)-1])
		} else {
			f.values[f.sel] = ""
		}
	case "ctrl+u":
		f.values[f.sel] = ""
	default:
		switch {
		case fl.Type == "boolean" && (ks == "y" || ks == "n"):
			f.values[f.sel] = map[string]string{"y": "true", "n": "false"}[ks]
		case k.Text != "":
			m.elicitType(k.Text)
		}
	}
	return nil
}

// elicitType adds typed or pasted text to the focused text field.
func (m *model) elicitType(s string) {
	f := m.elicits[0]
	if len(f.fields) == 0 {
		return
	}
	switch f.fields[f.sel].Type {
	case "boolean", "enum":
		return
	}
	f.values[f.sel] += strings.ReplaceAll(s, "\n", " ")
	f.err = ""
}

// cycle returns the choice step places from cur ("" is before the first).
func cycle(choices []string, cur string, step int) string {
	if len(choices) == 0 {
		return ""
	}
	i := -1
	for j, c := range choices {
		if c == cur {
			i = j
		}
	}
	if i < 0 {
		// Nothing chosen yet: right goes to the first, left to the last.
		if step > 0 {
			return choices[0]
		}
		return choices[len(choices)-1]
	}
	return choices[((i+step)%len(choices)+len(choices))%len(choices)]
}

// submitElicit accepts the form if its values fit the schema; otherwise
// it shows why and keeps the form.
func (m *model) submitElicit() {
	f := m.elicits[0]
	if f.req.Mode == mcp.ElicitURL {
		u, err := url.Parse(f.req.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
			f.err = "not a web address; declining is the only choice"
			return
		}
		if err := openURL(f.req.URL); err != nil {
			m.printNotice(noticeWarn, "Could not open a browser: "+err.Error())
		}
		m.closeElicit(mcp.ElicitResult{Action: mcp.ElicitAccept}, "Opened "+f.req.URL+" (open it yourself if no browser appeared).")
		return
	}
	content := map[string]any{}
	for i, fl := range f.fields {
		v, err := fl.ParseValue(f.values[i])
		if err != nil {
			f.err, f.sel = err.Error(), i
			return
		}
		if v != nil {
			content[fl.Name] = v
		}
	}
	data, _ := json.Marshal(content)
	if _, err := mcp.DecodeElicitContent(f.req.Schema, data); err != nil {
		// The validator's words, without the parts that say nothing to
		// the person filling the form.
		msg := strings.TrimPrefix(err.Error(), "elicitation content does not match the requested schema: ")
		f.err = strings.TrimPrefix(msg, "validating root: ")
		return
	}
	m.closeElicit(mcp.ElicitResult{Action: mcp.ElicitAccept, Content: content}, "Sent.")
}

// closeElicit answers the shown form and notes the answer above.
func (m *model) closeElicit(r mcp.ElicitResult, note string) {
	f := m.elicits[0]
	m.elicits = m.elicits[1:]
	f.answer(r)
	m.print(m.theme.dim.Render(termtext.String(mcp.DescribeElicit(f.req) + " " + note)))
}

// renderElicit draws the shown form and the footer, which replace the
// input while a server waits for an answer.
func (m *model) renderElicit() string {
	f := m.elicits[0]
	inner := max(m.width-4, 20)
	var lines []string
	lines = append(lines, m.theme.title.Render(termtext.String(fmt.Sprintf("MCP server '%s' asks:", f.req.Server))))
	lines = append(lines, headLines(termtext.String(f.req.Message), maxResultLines)...)
	lines = append(lines, "")
	if f.req.Mode == mcp.ElicitURL {
		host := ""
		if u, err := url.Parse(f.req.URL); err == nil {
			host = u.Host
		}
		lines = append(lines, m.theme.accent.Render(termtext.String(f.req.URL)), m.theme.dim.Render("on "+termtext.String(host)), "")
		lines = append(lines, m.theme.dim.Render("Enter opens it in your browser · Esc declines · Ctrl-C cancels"))
	} else {
		for i, fl := range f.fields {
			lines = append(lines, m.renderField(f, i))
			if i == f.sel && fl.Description != "" {
				lines = append(lines, m.theme.dim.Render("    "+termtext.String(fl.Description)))
			}
		}
		if f.err != "" {
			lines = append(lines, "")
			for _, l := range strings.Split(ansi.Wordwrap(termtext.String(f.err), inner, " "), "\n") {
				lines = append(lines, m.theme.bad.Render(l))
			}
		}
		lines = append(lines, "", m.theme.dim.Render("Enter sends · Esc declines · Tab next field · ←/→ change a choice · Ctrl-C cancels"))
	}
	if len(m.elicits) > 1 {
		lines = append(lines, m.theme.dim.Render(fmt.Sprintf("%d more questions waiting", len(m.elicits)-1)))
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	return m.theme.dialog.Width(m.width).Render(strings.Join(lines, "\n")) + "\n" + m.footer()
}

// renderField is one row of the form: a marker on the focused field, the
// label (with * when required), and the value.
func (m *model) renderField(f *elicitForm, i int) string {
	fl := f.fields[i]
	label := termtext.String(fl.Title)
	if fl.Required {
		label += "*"
	}
	v := f.values[i]
	var shown string
	switch fl.Type {
	case "boolean":
		shown = map[string]string{"true": "[x] yes", "false": "[ ] no", "": "[ ] (unset)"}[v]
	case "enum":
		var opts []string
		for j, c := range fl.Choices {
			t := termtext.String(fl.ChoiceTitles[j])
			if c == v {
				t = "(" + t + ")"
			}
			opts = append(opts, t)
		}
		shown = strings.Join(opts, " ")
	default:
		shown = termtext.String(v)
		if i == f.sel {
			shown += "▏"
		}
		if fl.Type == "multi" {
			shown += m.theme.dim.Render("  (any of " + termtext.String(strings.Join(fl.ChoiceTitles, ", ")) + "; separate with commas)")
		} else if fl.Format != "" {
			shown += m.theme.dim.Render("  (" + fl.Format + ")")
		} else if fl.Type != "string" {
			shown += m.theme.dim.Render("  (" + fl.Type + ")")
		}
	}
	if i == f.sel {
		return m.theme.selected.Render("› "+label+": ") + shown
	}
	return "  " + label + ": " + shown
}
