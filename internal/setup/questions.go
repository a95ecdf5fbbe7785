package setup

import (
	"context"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// questionKinds are the kinds of the tools whose confirmations are
// questions to the user: ask_user (communicate) and plan mode's tools.
var questionKinds = []tool.Kind{tool.KindCommunicate, tool.KindPlan}

// questionsFirst routes the confirmations that are questions to
// questions and the rest to confirm; enter_plan_mode's plain permission
// is granted when nothing else answers (the program asked to hear about
// plans, so plan mode is welcome), other calls without confirm are
// refused, as a headless session would refuse them.
func questionsFirst(questions, confirm func(context.Context, *agent.ToolCall) (tool.Decision, error)) func(context.Context, *agent.ToolCall) (tool.Decision, error) {
	return func(ctx context.Context, c *agent.ToolCall) (tool.Decision, error) {
		var det *tool.ConfirmationDetails
		if c.Confirmation != nil {
			det = c.Confirmation.Details
		}
		if det != nil && (det.Type == tool.ConfirmAskUser || det.Type == tool.ConfirmExitPlanMode) {
			return questions(ctx, c)
		}
		if confirm != nil {
			return confirm(ctx, c)
		}
		if c.Tool != nil && c.Tool.Kind() == tool.KindPlan {
			return tool.Decision{Outcome: tool.ProceedOnce}, nil
		}
		return tool.Decision{Outcome: tool.Cancel, Reason: "Tool execution denied by policy."}, nil
	}
}
