package castor

import (
	"context"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// WithAskUser lets the model ask the user questions (Gemini CLI's
// ask_user tool): f gets the questions and returns the answers by
// question index ("0", "1", …). An error dismisses the questions, which
// ends the turn as a refused call does. Without it (and without
// WithConfirm) ask_user is not offered to the model, as in a headless
// Gemini CLI run. Other confirmations still go to WithConfirm, or are
// refused without it.
func WithAskUser(f func(ctx context.Context, questions []tool.Question) (map[string]string, error)) Option {
	return func(o *options) {
		o.askUser = f
		o.Questions = o.answerQuestions
	}
}

// PlanReview is a plan the model submits for approval with exit_plan_mode.
type PlanReview struct {
	// Path is the plan file, in the plans directory; Text its content.
	Path, Text string
}

// WithPlanApproval lets the model plan before it changes anything
// (Gemini CLI's plan mode: enter_plan_mode, then exit_plan_mode with a
// plan file): f reviews each plan and returns the verdict, an approval
// with the approval mode to implement it in (default or auto_edit), or a
// rejection with feedback, which sends the model back to planning. An
// error dismisses the review. Without it a plan is approved at once and
// implemented in yolo mode, as in a headless Gemini CLI run.
func WithPlanApproval(f func(ctx context.Context, plan PlanReview) (tool.PlanVerdict, error)) Option {
	return func(o *options) {
		o.planApproval = f
		o.Questions = o.answerQuestions
	}
}

// answerQuestions is setup.Options.Questions for the two options above.
func (o *options) answerQuestions(ctx context.Context, c *agent.ToolCall) (tool.Decision, error) {
	det := c.Confirmation.Details
	switch {
	case det.Type == tool.ConfirmAskUser && o.askUser != nil:
		answers, err := o.askUser(ctx, det.Questions)
		if err != nil {
			return tool.Decision{Outcome: tool.Cancel, Reason: "The user dismissed the questions."}, nil
		}
		return tool.Decision{Outcome: tool.ProceedOnce, Answers: answers}, nil
	case det.Type == tool.ConfirmExitPlanMode && o.planApproval != nil:
		v, err := o.planApproval(ctx, PlanReview{Path: det.PlanPath, Text: det.Plan})
		if err != nil {
			return tool.Decision{Outcome: tool.Cancel, Reason: "The user dismissed the plan review."}, nil
		}
		return tool.Decision{Outcome: tool.ProceedOnce, Plan: &v}, nil
	case o.Confirm != nil:
		return o.Confirm(ctx, c)
	case det.Type == tool.ConfirmExitPlanMode:
		return tool.Decision{Outcome: tool.ProceedOnce}, nil
	}
	return tool.Decision{Outcome: tool.Cancel, Reason: "This program does not answer questions: ask in your reply instead."}, nil
}

// Prompts lists the prompts of this conversation Rewind can go back to,
// oldest first (agent.Prompt: its id, text and time): every prompt of the
// session's recording, those from before a resume (WithResume) or a
// compression included; without recording, those still in the history.
func (a *Agent) Prompts() []agent.Prompt { return a.a.Prompts() }

// Rewind takes the conversation back to just before the prompt id (one
// of Prompts): the prompt and everything after it leave the history and
// the session's recording, so that a resumed session shows the rewound
// history, as Gemini CLI's /rewind does. With general.checkpointing on,
// the workspace's files go back too, to the first checkpoint taken from
// that prompt on. It returns the prompt taken back; it fails while a
// turn runs (agent.ErrBusy) and for an unknown prompt
// (agent.ErrNoSuchPrompt).
func (a *Agent) Rewind(ctx context.Context, id string) (agent.Prompt, error) {
	r, err := a.a.Rewind(ctx, id, true)
	return r.Prompt, err
}
