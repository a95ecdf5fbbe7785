package acp

// Plan mode and ask_user over ACP. A plan submitted with exit_plan_mode
// is sent as a plan update (one entry per step of the plan's lists, else
// the plan as one entry) before the permission request, which shows the
// plan's text and offers Allow and Reject only, as Gemini CLI 0.61 does.
// Questions of ask_user go to the client as an elicitation form when it
// answers forms (clientCapabilities.elicitation); a client that does not
// gets nothing to answer, and the model is told why. The mode a tool
// switches to (enter_plan_mode, an approved plan) is announced with a
// current_mode_update.

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/mcp"
	"github.com/castor-dev/castor/tool"
)

// planStep matches a list item of a plan: "1. …", "- …", "* …", "- [ ] …".
var planStep = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:\d+[.)]|[-*+])\s+(?:\[[ xX]\]\s+)?(.+)$`)
}}

// planEntries are the steps of a plan's Markdown.
func planEntries(plan string) []sdk.PlanEntry {
	var out []sdk.PlanEntry
	for _, l := range strings.Split(plan, "\n") {
		if m := planStep.Get().FindStringSubmatch(l); m != nil {
			out = append(out, sdk.PlanEntry{Content: strings.TrimSpace(m[1]), Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending})
		}
	}
	if len(out) == 0 && strings.TrimSpace(plan) != "" {
		out = append(out, sdk.PlanEntry{Content: strings.TrimSpace(plan), Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending})
	}
	return out
}

// questionDetails returns the details of a confirmation that is a
// question (ask_user, exit_plan_mode), or nil.
func questionDetails(c *agent.ToolCall) *tool.ConfirmationDetails {
	if c.Confirmation == nil || c.Confirmation.Details == nil {
		return nil
	}
	switch d := c.Confirmation.Details; d.Type {
	case tool.ConfirmAskUser, tool.ConfirmExitPlanMode:
		return d
	}
	return nil
}

// askUser answers ask_user through an elicitation form: one field per
// question, a choice's options as an enum.
func (ss *session) askUser(ctx context.Context, d *tool.ConfirmationDetails) tool.Decision {
	props := map[string]any{}
	var required []any
	var msg []string
	for i, q := range d.Questions {
		key := strconv.Itoa(i)
		field := map[string]any{"type": "string", "title": q.Header, "description": q.Question}
		switch q.Type {
		case tool.QuestionYesNo:
			field["enum"] = []any{"Yes", "No"}
		case tool.QuestionText:
		default:
			var enum []any
			for _, o := range q.Options {
				enum = append(enum, o.Label)
			}
			if !q.MultiSelect && len(enum) > 0 {
				field["enum"] = enum
			}
		}
		props[key] = field
		required = append(required, key)
		msg = append(msg, q.Question)
	}
	schema := map[string]any{"type": "object", "properties": props, "required": required}
	res, err := ss.elicit(ctx, mcp.ElicitRequest{Server: "castor", Mode: mcp.ElicitForm, Message: strings.Join(msg, "\n"), Schema: schema})
	if err != nil {
		return tool.Decision{Outcome: tool.Cancel}
	}
	if res.Action == mcp.ElicitCancel {
		return tool.Decision{Outcome: tool.Cancel, GoOn: true}
	}
	if res.Action == mcp.ElicitDecline {
		return tool.Decision{Outcome: tool.Cancel, GoOn: true, Reason: "The user could not answer: this editor's ACP client does not answer questions (clientCapabilities.elicitation). Ask in your reply instead."}
	}
	answers := map[string]string{}
	for k, v := range res.Content {
		switch v := v.(type) {
		case string:
			answers[k] = v
		case []any:
			var parts []string
			for _, p := range v {
				if s, ok := p.(string); ok {
					parts = append(parts, s)
				}
			}
			answers[k] = strings.Join(parts, ", ")
		}
	}
	return tool.Decision{Outcome: tool.ProceedOnce, Answers: answers}
}

// questionOptions are the answers a question offers: no "always".
func questionOptions() []sdk.PermissionOption {
	return []sdk.PermissionOption{
		{OptionId: sdk.PermissionOptionId(tool.ProceedOnce), Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: sdk.PermissionOptionId(tool.Cancel), Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
	}
}

// modeWatch announces the session's mode when a turn's tool changed it.
type modeWatch struct {
	ss   *session
	last string
}

func (w *modeWatch) check(ctx context.Context) {
	if cur := w.ss.currentMode(); cur != w.last {
		w.last = cur
		w.ss.send(ctx, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(cur)}})
	}
}
