package a2a

// Answers to ask_user and exit_plan_mode. A task stops in input-required
// on them as on any confirmation; the confirmation's data part may carry,
// beside the outcome, Gemini CLI's payloads: "answers" (question index to
// answer) for questions, "approved", "approvalMode" and "feedback" for a
// plan. Gemini CLI's own server passes neither, so a client sending only
// an outcome gets what it gets there: no answers, a plan approved in
// default mode.

import (
	"fmt"
	"strings"

	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// questionAnswers reads the payload fields of a confirmation data part.
func questionAnswers(m map[string]any) (map[string]string, *tool.PlanVerdict) {
	var answers map[string]string
	if raw, ok := field[map[string]any](m, "answers"); ok {
		answers = map[string]string{}
		for k, v := range raw {
			if s, ok := v.(string); ok {
				answers[k] = s
			}
		}
	}
	approved, hasApproved := field[bool](m, "approved")
	feedback, _ := str(m, "feedback")
	mode, _ := str(m, "approvalMode", "approval_mode")
	if !hasApproved && feedback == "" && mode == "" {
		return answers, nil
	}
	v := &tool.PlanVerdict{Approved: approved || !hasApproved, Feedback: feedback}
	if m, err := policy.ParseMode(mode); err == nil && mode != "" && m != policy.ModePlan {
		v.Mode = string(m)
	}
	return answers, v
}

// questionText is what a generic confirmation shows of questions or a
// plan: the client has no other place for them.
func questionText(d *tool.ConfirmationDetails) string {
	var sb strings.Builder
	for i, q := range d.Questions {
		fmt.Fprintf(&sb, "\n%d. [%s] %s", i, q.Header, q.Question)
		for _, o := range q.Options {
			fmt.Fprintf(&sb, "\n   - %s: %s", o.Label, o.Description)
		}
	}
	if d.Plan != "" {
		fmt.Fprintf(&sb, "\nPlan %s:\n%s", d.PlanPath, d.Plan)
	}
	return sb.String()
}
