package builtin

// Plan mode's two tools, enter_plan_mode and exit_plan_mode, as Gemini
// CLI 0.61 declares and answers them (enter-plan-mode.ts,
// exit-plan-mode.ts): the model switches itself into the read-only mode,
// writes its plan as a Markdown file in the plans directory, and asks the
// user to approve it; the approval switches the session back to a mode
// that may edit.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// Plan is plan mode's state as the tools see it.
type Plan struct {
	// Dir is the plans directory (general.plan.directory, or the
	// session's folder under the project's temporary directory).
	Dir string
	// Root is the project root, against which plan file names may be
	// given too.
	Root string
	// Modes is the session's approval mode (the policy engine).
	Modes Modes

	mu       sync.Mutex
	approved string
}

// Approved returns the path of the plan the user approved last, or "".
func (p *Plan) Approved() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.approved
}

// Modes reads and switches a session's approval mode.
type Modes interface {
	Mode() policy.Mode
	SetMode(policy.Mode)
	Interactive() bool
}

// inPlanMode reports whether the session is in plan mode.
func (e *Env) inPlanMode() bool {
	return e != nil && e.Plan != nil && e.Plan.Modes != nil && e.Plan.Modes.Mode() == policy.ModePlan
}

// resolveWritePath is resolvePath for the tools that write: in plan mode
// a file name resolves into the plans directory, as Gemini CLI's edit
// tools resolve it there (the policy allows nothing else to be written).
func (e *Env) resolveWritePath(p string) (string, *tool.Error) {
	if e.inPlanMode() {
		if abs, err := tool.ResolvePlanPath(p, e.Plan.Dir, e.Plan.Root); err == nil {
			return abs, nil
		}
	}
	return e.resolvePath(p)
}

type enterPlanModeTool struct{ env *Env }

// NewEnterPlanMode returns enter_plan_mode.
func NewEnterPlanMode(env *Env) tool.Tool { return &enterPlanModeTool{env: env} }

func (t *enterPlanModeTool) Name() string        { return "enter_plan_mode" }
func (t *enterPlanModeTool) DisplayName() string { return "Enter Plan Mode" }
func (t *enterPlanModeTool) Kind() tool.Kind     { return tool.KindPlan }
func (t *enterPlanModeTool) Description() string {
	return "Switch to Plan Mode to safely research, design, and plan complex changes using read-only tools."
}

func (t *enterPlanModeTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"reason": map[string]any{
				"type":        "string",
				"description": "Short reason explaining why you are entering plan mode.",
			},
		},
	}
}

func (t *enterPlanModeTool) Build(args map[string]any) (tool.Call, error) {
	reason, _ := argString(args, "reason")
	return &enterPlanModeCall{env: t.env, reason: reason}, nil
}

type enterPlanModeCall struct {
	env    *Env
	reason string
}

func (c *enterPlanModeCall) Describe() string {
	if c.reason != "" {
		return c.reason
	}
	return "Initiating Plan Mode"
}

func (c *enterPlanModeCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return &tool.ConfirmationDetails{Type: tool.ConfirmInfo, Title: "Enter Plan Mode",
		Prompt: "This will restrict the agent to read-only tools to allow for safe planning."}, nil
}

func (c *enterPlanModeCall) Execute(context.Context, func(string)) *tool.Result {
	if c.env == nil || c.env.Plan == nil || c.env.Plan.Modes == nil {
		return tool.Fail(tool.ErrExecutionFailed, "Plan Mode is not available in this session.")
	}
	c.env.Plan.Modes.SetMode(policy.ModePlan)
	// The folder exists before the model writes its plan into it.
	_ = os.MkdirAll(c.env.Plan.Dir, 0o700)
	display := "Switching to Plan mode"
	if c.reason != "" {
		display += ": " + c.reason
	}
	return &tool.Result{LLMText: "Switching to Plan mode.", Display: display}
}

type exitPlanModeTool struct{ env *Env }

// NewExitPlanMode returns exit_plan_mode.
func NewExitPlanMode(env *Env) tool.Tool { return &exitPlanModeTool{env: env} }

func (t *exitPlanModeTool) Name() string        { return "exit_plan_mode" }
func (t *exitPlanModeTool) DisplayName() string { return "Exit Plan Mode" }
func (t *exitPlanModeTool) Kind() tool.Kind     { return tool.KindPlan }
func (t *exitPlanModeTool) Description() string {
	return "Finalizes the planning phase and transitions to implementation by presenting the plan for formal user approval. You MUST reach an informal agreement with the user in the chat regarding the proposed strategy BEFORE calling this tool. This tool MUST be used to exit Plan Mode before any source code edits can be performed."
}

func (t *exitPlanModeTool) Schema() map[string]any {
	return map[string]any{
		"type":     "object",
		"required": []any{"plan_filename"},
		"properties": map[string]any{
			"plan_filename": map[string]any{
				"type":        "string",
				"description": `The filename of the finalized plan (e.g., "feature-x.md"). Do not provide an absolute path.`,
			},
		},
	}
}

func (t *exitPlanModeTool) Build(args map[string]any) (tool.Call, error) {
	name, _ := argString(args, "plan_filename")
	if t.env == nil || t.env.Plan == nil {
		return nil, tool.Errorf(tool.ErrExecutionFailed, "Plan Mode is not available in this session.")
	}
	if name == "" || len(filepath.Clean(name)) == 0 {
		return nil, tool.Errorf(tool.ErrInvalidParams, "plan_filename is required.")
	}
	path, err := tool.ResolvePlanPath(name, t.env.Plan.Dir, t.env.Plan.Root)
	if err != nil {
		return nil, tool.Errorf(tool.ErrInvalidParams, "%s", err.Error())
	}
	return &exitPlanModeCall{env: t.env, name: name, path: path}, nil
}

type exitPlanModeCall struct {
	env        *Env
	name, path string
	verdict    *tool.PlanVerdict
	// invalid is why the plan file cannot be approved: the model is told
	// instead of the user being asked.
	invalid string
}

func (c *exitPlanModeCall) Describe() string {
	return "Requesting plan approval for: " + filepath.Join(c.env.Plan.Dir, c.name)
}

// Confirmation shows the plan; a missing or empty plan file is not
// asked about, the model is told to write it first.
func (c *exitPlanModeCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	if c.invalid = tool.PlanFileOK(c.name, c.path); c.invalid != "" {
		return nil, nil
	}
	data, err := os.ReadFile(c.path)
	if err != nil {
		c.invalid = "Failed to read plan file: " + err.Error()
		return nil, nil
	}
	return &tool.ConfirmationDetails{Type: tool.ConfirmExitPlanMode, Title: "Plan Approval", PlanPath: c.path, Plan: string(data)}, nil
}

// ApplyDecision implements tool.Answerable.
func (c *exitPlanModeCall) ApplyDecision(d tool.Decision) { c.verdict = d.Plan }

func (c *exitPlanModeCall) Execute(context.Context, func(string)) *tool.Result {
	if c.invalid == "" {
		c.invalid = tool.PlanFileOK(c.name, c.path)
	}
	if c.invalid != "" {
		return &tool.Result{LLMText: c.invalid, Display: "Error: Invalid plan"}
	}
	v := c.verdict
	if v == nil {
		// Approved without a dialog (a policy allowed the call): a
		// headless run implements in yolo, an interactive one in default,
		// as Gemini CLI's getAllowApprovalMode decides.
		v = &tool.PlanVerdict{Approved: true}
		if c.env.Plan.Modes != nil && !c.env.Plan.Modes.Interactive() {
			v.Mode = string(policy.ModeYolo)
		}
	}
	if !v.Approved {
		if v.Feedback != "" {
			return &tool.Result{LLMText: fmt.Sprintf("Plan rejected. User feedback: %s\n\nThe plan is stored at: %s\nRevise the plan based on the feedback.", v.Feedback, c.path),
				Display: "Feedback: " + v.Feedback}
		}
		return &tool.Result{LLMText: fmt.Sprintf("Plan rejected. No feedback provided.\n\nThe plan is stored at: %s\nAsk the user for specific feedback on how to improve the plan.", c.path),
			Display: "Rejected (no feedback)"}
	}
	mode := policy.ModeDefault
	if v.Mode != "" {
		m, err := policy.ParseMode(v.Mode)
		if err != nil || m == policy.ModePlan {
			return tool.Fail(tool.ErrInvalidParams, fmt.Sprintf("Unexpected approval mode: %s", v.Mode))
		}
		mode = m
	}
	c.env.Plan.Modes.SetMode(mode)
	c.env.Plan.mu.Lock()
	c.env.Plan.approved = c.path
	c.env.Plan.mu.Unlock()
	return &tool.Result{LLMText: fmt.Sprintf("%s\n\nThe approved implementation plan is stored at: %s\nRead and follow the plan strictly during implementation.", planExitMessage(mode), c.path),
		Display: "Plan approved: " + c.path}
}

// planExitMessage is Gemini CLI's getPlanModeExitMessage for an approved
// plan.
func planExitMessage(m policy.Mode) string {
	desc := "Default mode (edits will require confirmation)"
	switch m {
	case policy.ModeAutoEdit:
		desc = "Auto-Edit mode (edits will be applied automatically)"
	case policy.ModeYolo:
		desc = "YOLO mode (all tool calls auto-approved)"
	}
	return "Plan approved. Switching to " + desc + "."
}
