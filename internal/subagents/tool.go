package subagents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// ToolName is the tool the model invokes subagents with.
const ToolName = "invoke_agent"

// CompleteTaskName is the tool a subagent finishes with.
const CompleteTaskName = "complete_task"

// gracePeriod is how long a subagent that ran out of turns or time, or
// stopped without complete_task, is given to call it.
const gracePeriod = time.Minute

// Terminate reasons, as Gemini CLI reports them to the parent model.
const (
	reasonGoal       = "GOAL"
	reasonError      = "ERROR"
	reasonTimeout    = "TIMEOUT"
	reasonMaxTurns   = "MAX_TURNS"
	reasonAborted    = "ABORTED"
	reasonNoComplete = "ERROR_NO_COMPLETE_TASK_CALL"
	// reasonRejected is not a terminate reason: the user refused every
	// call of a batch and the subagent must be told.
	reasonRejected = "rejected"
)

// rejected is what a subagent is told when the user refuses its calls.
const rejected = "User rejected this operation. Please acknowledge this, rethink your strategy, and try a different approach. If you cannot proceed without the rejected operation, summarize the issue and use `complete_task` to report your findings and the blocker."

// Recording is a subagent's session record.
type Recording interface {
	agent.Recorder
	// Finish records the result summary and closes the record.
	Finish(summary string)
}

// Runner is what subagents share with their parent session.
type Runner struct {
	// Model is the parent's transport; ModelName the parent's model now.
	Model     model.Model
	ModelName func() string
	// Tools is the parent's registry, which subagents pick from.
	Tools *tool.Registry
	// Policy and Confirm are the parent's: approvals apply inside
	// subagents as outside.
	Policy  *policy.Engine
	Confirm func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error)
	// Dirs returns the workspace directories; Tree draws one of them.
	Dirs func() []string
	Tree func(dir string) string
	// SkillsSection is the skills part of the system instruction, given
	// to subagents that may call activate_skill.
	SkillsSection string
	// Record, when set, starts the record of a subagent run.
	Record func(agentID string) Recording
	// Version and Now fill the prompt placeholders and clocks.
	Version string
	Now     func() time.Time
	// GenerationConfig returns the defaults for a model (thinking and
	// sampling), which the definition's temperature overrides; nil means
	// only the temperature and top-p are sent.
	GenerationConfig func(model string) *genai.GenerateContentConfig
	// Configure, when set, completes each run's engine configuration with
	// what the parent's has beyond the fields above (loop detection,
	// compression, hooks…).
	Configure func(*agent.Config)
	// GracePeriod is the time a subagent is given to finish after running
	// out of turns or time (0: one minute, as Gemini CLI).
	GracePeriod time.Duration
	// AddStats, when set, is given a run's counts (model calls, tool
	// calls, changed lines) one model call or tool call at a time, as they
	// happen, for the invoking session's stats, where Gemini CLI counts
	// them: /stats shows a running subagent's usage.
	AddStats func(agent.Stats)
}

// NewTool returns invoke_agent over defs.
func NewTool(defs []*Definition, r *Runner) tool.Tool {
	m := map[string]*Definition{}
	for _, d := range defs {
		m[d.Name] = d.withDefaults()
	}
	return &invokeTool{defs: m, r: r}
}

type invokeTool struct {
	defs map[string]*Definition
	r    *Runner
}

func (t *invokeTool) Name() string        { return ToolName }
func (t *invokeTool) DisplayName() string { return "Invoke Subagent" }
func (t *invokeTool) Kind() tool.Kind     { return tool.KindAgent }
func (t *invokeTool) Description() string {
	return "Invoke a subagent to perform a specific task or investigation."
}

func (t *invokeTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"agent_name": map[string]any{"type": "string", "description": "Name of the subagent to invoke"},
			"prompt":     map[string]any{"type": "string", "description": "The COMPLETE query to send the subagent. MUST be comprehensive and detailed. Include all context, background, questions, and expected output format. Do NOT send brief or incomplete instructions."},
		},
		"required": []any{"agent_name", "prompt"},
	}
}

func (t *invokeTool) Build(args map[string]any) (tool.Call, error) {
	name, _ := args["agent_name"].(string)
	prompt, _ := args["prompt"].(string)
	d, ok := t.defs[name]
	if !ok {
		return nil, tool.Errorf(tool.ErrInvalidParams, "Subagent '%s' not found.", name)
	}
	return &invokeCall{t: t, def: d, prompt: prompt}, nil
}

type invokeCall struct {
	t      *invokeTool
	def    *Definition
	prompt string
}

func (c *invokeCall) Describe() string { return fmt.Sprintf("Delegating to agent '%s'", c.def.Name) }

// Confirmation is nil: invoking a subagent is allowed, and the
// subagent's own calls are confirmed one by one.
func (c *invokeCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}

func (c *invokeCall) Execute(ctx context.Context, out func(string)) *tool.Result {
	if out == nil {
		out = func(string) {}
	}
	if c.def.Run != nil {
		text, err := c.def.Run(ctx, c.prompt)
		return c.finish(ctx, outcome{reason: reasonGoal, result: text}, err)
	}
	o, err := c.t.r.run(ctx, c.def, c.prompt, out)
	return c.finish(ctx, o, err)
}

func (c *invokeCall) finish(ctx context.Context, o outcome, err error) *tool.Result {
	name := c.def.Name
	if ctx.Err() != nil || o.reason == reasonAborted {
		return tool.Fail(tool.ErrCancelled, "Operation cancelled by user")
	}
	if err != nil {
		// As Gemini CLI: the model learns of the failure, the call itself
		// succeeds.
		return tool.Text(fmt.Sprintf("Subagent '%s' failed. Error: %s", name, err.Error()))
	}
	return tool.Text(fmt.Sprintf("Subagent '%s' finished.\nTermination Reason: %s\nResult:\n%s", name, o.reason, o.result))
}

type outcome struct {
	reason string
	result string
}

// completion is the complete_task tool of one run; it keeps what the
// subagent submitted.
type completion struct {
	mu     sync.Mutex
	done   bool
	result string
}

func (c *completion) get() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.result, c.done
}

func (c *completion) Name() string        { return CompleteTaskName }
func (c *completion) DisplayName() string { return "Complete Task" }

// Kind is "think", not Gemini CLI's "other": Castor's policy would ask
// about (and a headless run refuse) any other kind, and finishing the
// task must always be possible.
func (c *completion) Kind() tool.Kind { return tool.KindThink }
func (c *completion) Description() string {
	return "Call this tool to submit your final findings and complete the task. This is the ONLY way to finish."
}

func (c *completion) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"result": map[string]any{"type": "string", "description": "Your final results or findings to return to the orchestrator. Ensure this is comprehensive and follows any formatting requested in your instructions."},
		},
		"required": []any{"result"},
	}
}

func (c *completion) Build(args map[string]any) (tool.Call, error) {
	r, ok := args["result"].(string)
	if !ok || strings.TrimSpace(r) == "" {
		return nil, tool.Errorf(tool.ErrInvalidParams, `Missing required "result" argument. You must provide your findings when calling complete_task.`)
	}
	return &completeCall{c: c, result: r}, nil
}

type completeCall struct {
	c      *completion
	result string
}

func (k *completeCall) Describe() string { return "Completing task and submitting results." }
func (k *completeCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}

func (k *completeCall) Execute(context.Context, func(string)) *tool.Result {
	k.c.mu.Lock()
	k.c.done, k.c.result = true, k.result
	k.c.mu.Unlock()
	return tool.Text("Result submitted and task completed.")
}

// registry picks the subagent's tools from the parent's: never another
// subagent (no agent-kind tool) nor update_topic, then complete_task.
func (r *Runner) registry(d *Definition, done *completion) *tool.Registry {
	reg := tool.NewRegistry()
	add := func(t tool.Tool) {
		if t.Kind() == tool.KindAgent || t.Name() == "update_topic" || t.Name() == CompleteTaskName {
			return
		}
		reg.Register(t)
	}
	all := r.Tools.Tools()
	if d.Tools == nil {
		for _, t := range all {
			add(t)
		}
	}
	for _, ref := range d.Tools {
		switch {
		case ref == "*":
			for _, t := range all {
				add(t)
			}
		case strings.HasPrefix(ref, "mcp_") && strings.HasSuffix(ref, "*"):
			prefix := strings.TrimSuffix(ref, "*")
			for _, t := range all {
				if strings.HasPrefix(t.Name(), prefix) {
					add(t)
				}
			}
		default:
			if t, ok := r.Tools.Get(ref); ok {
				add(t)
			}
		}
	}
	reg.Register(done)
	return reg
}

// systemPrompt is Gemini CLI's subagent system prompt: the definition's,
// the skills section when the subagent may activate skills, the
// environment, and the rules of a non-interactive run.
func (r *Runner) systemPrompt(base string, reg *tool.Registry) string {
	var b strings.Builder
	b.WriteString(base)
	if _, ok := reg.Get("activate_skill"); ok && r.SkillsSection != "" {
		b.WriteString("\n\n" + r.SkillsSection)
	}
	var dirs []string
	if r.Dirs != nil {
		dirs = r.Dirs()
	}
	b.WriteString("\n\n# Environment Context\n- **Workspace Directories:**\n")
	for i, d := range dirs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("  - " + d)
	}
	b.WriteString("\n- **Directory Structure:**\n\n")
	var trees []string
	for _, d := range dirs {
		if r.Tree != nil {
			trees = append(trees, r.Tree(d))
		}
	}
	b.WriteString(strings.Join(trees, "\n"))
	b.WriteString(`
Important Rules:
* You are running in a non-interactive mode. You CANNOT ask the user for input or clarification.
* Work systematically using available tools to complete your task.
* Always use absolute paths for file operations. Construct them using the provided "Environment Context".
* If a tool call is rejected by the user, acknowledge the rejection, rethink your strategy, and try a different approach. Do not repeatedly attempt the same rejected operation.
* When you have completed your task, you MUST call the ` + "`complete_task`" + ` tool.
* You MUST include your final findings in the "result" parameter. This is how you return the necessary results for the task to be marked complete.
* Ensure your findings are comprehensive and follow any specific formatting requirements provided in your instructions.
* Do not call any other tools in the same turn as ` + "`complete_task`" + `.
* This is the ONLY way to complete your mission. If you stop calling tools without calling this, you have failed.`)
	return b.String()
}

// fill replaces the placeholders Gemini CLI fills in a subagent's prompt.
func fill(s string, vars map[string]string) string {
	for k, v := range vars {
		s = strings.ReplaceAll(s, "${"+k+"}", v)
	}
	return s
}

// run is one invocation: the subagent's own session on the engine, until
// it calls complete_task, with one grace turn when it runs out of turns or
// time or stops without finishing.
func (r *Runner) run(ctx context.Context, d *Definition, prompt string, out func(string)) (outcome, error) {
	now := r.Now
	if now == nil {
		now = time.Now
	}
	id := uuid.NewString()
	done := &completion{}
	reg := r.registry(d, done)
	modelName := r.ModelName()
	if d.Model != "" && d.Model != "inherit" {
		modelName = d.Model
	}
	vars := map[string]string{"query": prompt, "cliVersion": r.Version, "activeModel": modelName, "today": now().Format("1/2/2006")}
	base := fill(d.SystemPrompt, vars)
	var sess *agent.Session
	instruction := func() string {
		if d.Instructions != nil {
			wd := ""
			if r.Dirs != nil && len(r.Dirs()) > 0 {
				wd = r.Dirs()[0]
			}
			return r.systemPrompt(d.Instructions(Info{Prompt: prompt, SessionID: id, WorkDir: wd, Timestamp: now(), Transcript: sess.History()}), reg)
		}
		return r.systemPrompt(base, reg)
	}
	gen := &genai.GenerateContentConfig{}
	if r.GenerationConfig != nil {
		if g := r.GenerationConfig(modelName); g != nil {
			c := *g
			gen = &c
		}
	}
	temp := float32(DefaultTemperature)
	if d.Temperature != nil {
		temp = float32(*d.Temperature)
	}
	topP := float32(0.95)
	gen.Temperature, gen.TopP = &temp, &topP
	cfg := agent.Config{
		Model:             r.Model,
		ModelName:         modelName,
		SessionID:         id,
		SystemInstruction: instruction,
		GenerationConfig:  gen,
		Tools:             reg,
		Policy:            r.Policy,
	}
	var rec Recording
	if r.Record != nil {
		rec = r.Record(id)
		if rec != nil {
			cfg.Recorder = rec
		}
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	dl := newDeadline(d.Timeout, func() { cancel(errTimedOut) })
	defer dl.stop()
	cfg.Confirm = confirmPaused(r.Confirm, dl)
	if r.Configure != nil {
		r.Configure(&cfg)
	}
	if r.AddStats != nil {
		cfg.OnStats = r.AddStats // live, and never again at the end
	}
	sess = agent.New(cfg)

	query := prompt
	if strings.TrimSpace(query) == "" {
		query = "Get Started!"
	}
	turns := 0
	reason, err := r.drain(runCtx, sess, sess.Send(runCtx, genai.NewPartFromText(query)), done, &turns, d.MaxTurns, out)
	// A refused call ends the engine's turn; the subagent is told and goes
	// on, as Gemini CLI answers it with the rejection.
	for reason == reasonRejected && err == nil {
		if turns >= d.MaxTurns {
			reason = reasonMaxTurns
			break
		}
		reason, err = r.drain(runCtx, sess, sess.Send(runCtx, genai.NewPartFromText(rejected)), done, &turns, d.MaxTurns, out)
	}
	switch {
	case ctx.Err() != nil:
		reason = reasonAborted
	case reason == "" && errors.Is(context.Cause(runCtx), errTimedOut):
		reason, err = reasonTimeout, nil
	}
	if reason == reasonTimeout || reason == reasonMaxTurns || reason == reasonNoComplete {
		grace := r.GracePeriod
		if grace <= 0 {
			grace = gracePeriod
		}
		graceCtx, cancelGrace := context.WithTimeout(ctx, grace)
		warning := finalWarning(reason)
		out(fmt.Sprintf("Execution limit reached (%s). Attempting one final recovery turn with a grace period.\n", reason))
		graceTurns := 0
		r.drain(graceCtx, sess, sess.Send(graceCtx, genai.NewPartFromText(warning)), done, &graceTurns, 1, out)
		cancelGrace()
		if res, ok := done.get(); ok {
			return r.close(rec, outcome{reason: reasonGoal, result: res}), nil
		}
		if ctx.Err() != nil {
			return r.close(rec, outcome{reason: reasonAborted}), nil
		}
		switch reason {
		case reasonTimeout:
			return r.close(rec, outcome{reason: reason, result: fmt.Sprintf("Agent timed out after %d minutes.", int(d.Timeout/time.Minute))}), nil
		case reasonMaxTurns:
			return r.close(rec, outcome{reason: reason, result: fmt.Sprintf("Agent reached max turns limit (%d).", d.MaxTurns)}), nil
		default:
			return r.close(rec, outcome{reason: reason, result: "Agent stopped calling tools but did not call 'complete_task' to finalize the session."}), nil
		}
	}
	if err != nil {
		r.close(rec, outcome{})
		return outcome{reason: reasonError}, err
	}
	res, _ := done.get()
	switch {
	case reason == reasonGoal && res == "":
		res = "Task completed."
	case reason != reasonGoal && reason != reasonAborted:
		// The run ended without saying why.
		reason, res = reasonError, "Agent execution was terminated before completion."
	}
	return r.close(rec, outcome{reason: reason, result: res}), nil
}

func (r *Runner) close(rec Recording, o outcome) outcome {
	if rec != nil {
		summary := ""
		if o.reason == reasonGoal {
			summary = truncateSummary(o.result)
		}
		rec.Finish(summary)
	}
	return o
}

// truncateSummary keeps 200 characters, as Gemini CLI's session summary.
func truncateSummary(s string) string {
	rs := []rune(s)
	if len(rs) <= 200 {
		return s
	}
	return string(rs[:197]) + "..."
}

func finalWarning(reason string) string {
	var why string
	switch reason {
	case reasonTimeout:
		why = "You have exceeded the time limit."
	case reasonMaxTurns:
		why = "You have exceeded the maximum number of turns."
	default:
		why = "You have stopped calling tools without finishing."
	}
	return why + " You have one final chance to complete the task with a short grace period. You MUST call `complete_task` immediately with your best answer and explain that your investigation was interrupted. Do not call any other tools."
}

// drain follows one Send (or Resume) of the subagent's session. It stops
// after the tool batch in which complete_task ran (GOAL) or the one that
// used the last turn (MAX_TURNS), and reports a turn that ended without
// complete_task. Calls that wait for an answer nobody can give here (a
// face that pauses turns) are cancelled, and the subagent told so.
func (r *Runner) drain(ctx context.Context, sess *agent.Session, seq func(func(*agent.Event, error) bool), done *completion, turns *int, maxTurns int, out func(string)) (string, error) {
	for {
		paused := false
		reason := ""
		var failure error
		for ev, err := range seq {
			if err != nil {
				failure = err
				break
			}
			switch ev.Type {
			case agent.EventFinished:
				*turns++
			case agent.EventToolCall:
				if c := ev.Call; c != nil && c.Status.Terminal() && c.Name != CompleteTaskName {
					out(fmt.Sprintf("%s: %s (%s)\n", c.Name, c.Description, c.Status))
				}
			case agent.EventToolBatchEnd:
				if _, ok := done.get(); ok {
					reason = reasonGoal
				} else if *turns >= maxTurns {
					reason = reasonMaxTurns
				}
			case agent.EventInputRequired:
				paused = true
			case agent.EventTurnEnd:
				switch _, ok := done.get(); {
				case ok:
					reason = reasonGoal
				case ev.Reason == agent.TurnCancelled:
					reason = reasonRejected
				default:
					reason = reasonNoComplete
				}
			}
			if reason != "" {
				break
			}
		}
		if failure != nil {
			if ctx.Err() != nil {
				return "", nil
			}
			if errors.Is(failure, agent.ErrLoopDetected) {
				return reasonNoComplete, nil
			}
			return reasonError, failure
		}
		if !paused {
			return reason, nil
		}
		for _, c := range sess.Pending() {
			sess.Answer(c.ID, tool.Decision{Outcome: tool.Cancel})
		}
		seq = sess.Resume(ctx)
	}
}
