package tui

// The dialogs of the confirmations that are questions rather than
// permissions: ask_user's questions, one at a time (choices with an
// "Other" line, free text, yes or no), and exit_plan_mode's plan
// approval, the plan shown above the choice of how to implement it or a
// line of feedback. Both answer the engine's confirmation like any
// dialog; Esc dismisses them.

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// askState is the state of an ask_user or exit_plan_mode dialog.
type askState struct {
	det *tool.ConfirmationDetails
	// q is the question shown (ask_user); answers those answered.
	q       int
	answers map[string]string
	// sel is the highlighted choice, picked the choices ticked of a
	// multi-select question.
	sel    int
	picked map[int]bool
	// in is open for free text: a text question, "Other", or a plan's
	// feedback.
	in *textinput.Model
}

// newAsk returns the question state for a confirmation that is a
// question, nil for a permission.
func newAsk(det *tool.ConfirmationDetails) *askState {
	if det == nil || det.Type != tool.ConfirmAskUser && det.Type != tool.ConfirmExitPlanMode {
		return nil
	}
	a := &askState{det: det, answers: map[string]string{}, picked: map[int]bool{}}
	if det.Type == tool.ConfirmAskUser && len(det.Questions) > 0 && det.Questions[0].Type == tool.QuestionText {
		a.openInput(det.Questions[0].Placeholder)
	}
	return a
}

func (a *askState) openInput(placeholder string) tea.Cmd {
	in := textinput.New()
	in.Prompt = "> "
	in.Placeholder = placeholder
	in.CharLimit = 4000
	in.SetWidth(60)
	a.in = &in
	return in.Focus()
}

// choices are the lines offered for the current question or the plan.
func (a *askState) choices() []string {
	if a.det.Type == tool.ConfirmExitPlanMode {
		return []string{"Yes, automatically accept edits", "Yes, manually accept edits", "No, tell the model what to change"}
	}
	q := a.det.Questions[a.q]
	switch q.Type {
	case tool.QuestionText:
		return nil
	case tool.QuestionYesNo:
		return []string{"Yes", "No", "Other…"}
	}
	out := make([]string, 0, len(q.Options)+1)
	for _, o := range q.Options {
		out = append(out, o.Label)
	}
	return append(out, "Other…")
}

// askKey handles a key in a question dialog.
func (m *model) askKey(k tea.KeyPressMsg) tea.Cmd {
	d := m.dialog
	a := d.ask
	ks := k.String()
	if ks == "ctrl+c" {
		m.cancelTurn()
		return nil
	}
	if a.in != nil {
		switch ks {
		case "esc":
			if a.det.Type == tool.ConfirmAskUser && a.det.Questions[a.q].Type == tool.QuestionText {
				return m.askDone(tool.Decision{Outcome: tool.Cancel})
			}
			a.in = nil // back to the choices
			return nil
		case "enter":
			text := strings.TrimSpace(a.in.Value())
			a.in = nil
			if a.det.Type == tool.ConfirmExitPlanMode {
				return m.askDone(tool.Decision{Outcome: tool.ProceedOnce, Plan: &tool.PlanVerdict{Approved: false, Feedback: text}})
			}
			return m.answerQuestion(text)
		}
		var cmd tea.Cmd
		*a.in, cmd = a.in.Update(k)
		return cmd
	}
	choices := a.choices()
	switch ks {
	case "up", "k":
		a.sel = (a.sel + len(choices) - 1) % len(choices)
	case "down", "j", "tab":
		a.sel = (a.sel + 1) % len(choices)
	case "esc":
		return m.askDone(tool.Decision{Outcome: tool.Cancel})
	case "space":
		if a.multi() && a.sel < len(choices)-1 {
			a.picked[a.sel] = !a.picked[a.sel]
		}
	case "enter":
		return m.askChoose(a.sel)
	default:
		if len(ks) == 1 && ks[0] >= '1' && int(ks[0]-'0') <= len(choices) {
			return m.askChoose(int(ks[0] - '1'))
		}
	}
	return nil
}

// multi reports whether the current question takes several choices.
func (a *askState) multi() bool {
	if a.det.Type != tool.ConfirmAskUser {
		return false
	}
	q := a.det.Questions[a.q]
	return q.MultiSelect && (q.Type == "" || q.Type == tool.QuestionChoice)
}

// askChoose takes choice i of the current question or plan.
func (m *model) askChoose(i int) tea.Cmd {
	a := m.dialog.ask
	choices := a.choices()
	if a.det.Type == tool.ConfirmExitPlanMode {
		switch i {
		case 0:
			return m.askDone(tool.Decision{Outcome: tool.ProceedOnce, Plan: &tool.PlanVerdict{Approved: true, Mode: string(policy.ModeAutoEdit)}})
		case 1:
			return m.askDone(tool.Decision{Outcome: tool.ProceedOnce, Plan: &tool.PlanVerdict{Approved: true, Mode: string(policy.ModeDefault)}})
		}
		return a.openInput("what should the plan change?")
	}
	if i == len(choices)-1 {
		return a.openInput(a.det.Questions[a.q].Placeholder)
	}
	if a.multi() {
		var labels []string
		for j, c := range choices[:len(choices)-1] {
			if a.picked[j] || j == i && len(a.picked) == 0 {
				labels = append(labels, c)
			}
		}
		return m.answerQuestion(strings.Join(labels, ", "))
	}
	return m.answerQuestion(choices[i])
}

// answerQuestion records the answer to the current question and shows
// the next, or answers the call after the last.
func (m *model) answerQuestion(text string) tea.Cmd {
	a := m.dialog.ask
	if text != "" {
		a.answers[strconv.Itoa(a.q)] = text
	}
	a.q++
	a.sel, a.picked = 0, map[int]bool{}
	if a.q >= len(a.det.Questions) {
		return m.askDone(tool.Decision{Outcome: tool.ProceedOnce, Answers: a.answers})
	}
	if a.det.Questions[a.q].Type == tool.QuestionText {
		return a.openInput(a.det.Questions[a.q].Placeholder)
	}
	return nil
}

func (m *model) askDone(dec tool.Decision) tea.Cmd {
	d := m.dialog
	m.dialog = nil
	d.answer(dec)
	return nil
}

// renderAsk draws a question dialog.
func (m *model) renderAsk() string {
	d := m.dialog
	a := d.ask
	var lines []string
	if a.det.Type == tool.ConfirmExitPlanMode {
		lines = append(lines, m.theme.title.Render("Plan Approval")+" "+m.theme.dim.Render(termtext.Visible(a.det.PlanPath)))
		// The plan gives way to the terminal's height, its head kept.
		limit := max(m.height-10, 3)
		lines = append(lines, headLines(termtext.Visible(a.det.Plan), limit)...)
		lines = append(lines, "", m.theme.title.Render("Ready to start implementation?"))
	} else {
		q := a.det.Questions[a.q]
		head := fmt.Sprintf("[%s]", termtext.Visible(q.Header))
		if n := len(a.det.Questions); n > 1 {
			head += m.theme.dim.Render(fmt.Sprintf(" question %d of %d", a.q+1, n))
		}
		lines = append(lines, m.theme.accent.Render(head), m.theme.title.Render(termtext.Visible(q.Question)))
		if a.multi() {
			lines = append(lines, m.theme.dim.Render("Space ticks a choice, Enter sends them."))
		}
	}
	if a.in != nil {
		lines = append(lines, a.in.View(), m.theme.dim.Render("Enter sends; Esc goes back."))
	} else {
		for i, c := range a.choices() {
			label := fmt.Sprintf("%d. %s", i+1, termtext.Visible(c))
			if a.multi() && i < len(a.choices())-1 {
				box := "[ ] "
				if a.picked[i] {
					box = "[x] "
				}
				label = box + label
			}
			if a.det.Type == tool.ConfirmAskUser && a.det.Questions[a.q].Type != tool.QuestionYesNo && i < len(a.det.Questions[a.q].Options) {
				if desc := a.det.Questions[a.q].Options[i].Description; desc != "" {
					label += " " + m.theme.dim.Render("— "+termtext.Visible(desc))
				}
			}
			lines = append(lines, m.choiceLine(label, i == a.sel))
		}
		lines = append(lines, m.theme.dim.Render("Esc dismisses."))
	}
	return m.boxed(lines)
}

// choiceLine is one line of a list to choose from, marked when selected.
func (m *model) choiceLine(label string, selected bool) string {
	if selected {
		return m.theme.selected.Render("● ") + label
	}
	return "  " + label
}

// boxed draws lines in the dialog's box, each cut to its width.
func (m *model) boxed(lines []string) string {
	inner := max(m.width-4, 20)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	return m.theme.dialog.Width(m.width).Render(strings.Join(lines, "\n"))
}
