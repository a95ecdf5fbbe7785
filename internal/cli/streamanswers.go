package cli

// Answers to ask_user and exit_plan_mode in a stream-json input session.
// Their permission_request carries the questions (details.questions) or
// the plan (details.plan, details.planPath); the permission_response
// answers with the decision proceed_once and, for questions, "answers"
// (question index to answer, as Gemini CLI's payload), for a plan,
// "approved" (false with "feedback" sends the plan back) and optionally
// "approval_mode" (default or auto_edit) to implement it in. A cancel
// dismisses either.

import (
	"fmt"

	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// permissionLine reads the answer parts of a permission_response beyond
// its decision.
func permissionLine(raw rawInput, o tool.Outcome) (*inputLine, error) {
	in := &inputLine{kind: inputPermission, toolID: raw.ToolID, outcome: o, answers: raw.Answers}
	if raw.Approved != nil || raw.Feedback != "" || raw.ApprovalMode != "" {
		v := &tool.PlanVerdict{Approved: raw.Approved == nil || *raw.Approved, Feedback: raw.Feedback}
		if raw.ApprovalMode != "" {
			m, err := policy.ParseMode(raw.ApprovalMode)
			if err != nil || m == policy.ModePlan {
				return nil, fmt.Errorf("permission_response: unknown approval_mode %q: use default, auto_edit or yolo", raw.ApprovalMode)
			}
			v.Mode = string(m)
		}
		in.plan = v
	}
	return in, nil
}

// questionOptions are the answers offered for an ask_user or
// exit_plan_mode request: there is no "always" for a question.
func questionOptions(d *tool.ConfirmationDetails) ([]permissionOption, bool) {
	if d == nil {
		return nil, false
	}
	switch d.Type {
	case tool.ConfirmAskUser:
		return []permissionOption{{string(tool.ProceedOnce), "Answer (send \"answers\": {\"0\": …})"}, {string(tool.Cancel), "Dismiss the questions"}}, true
	case tool.ConfirmExitPlanMode:
		return []permissionOption{{string(tool.ProceedOnce), "Approve the plan, or send \"approved\": false with \"feedback\""}, {string(tool.Cancel), "Dismiss; stay in plan mode"}}, true
	}
	return nil, false
}
