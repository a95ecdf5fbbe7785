package agent

import (
	"context"
	"sync"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/stack"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// pendingBatch is the tool calls of one model response on their way to
// execution. It outlives a run when the turn pauses for confirmations.
type pendingBatch struct {
	promptID  string
	calls     []*ToolCall
	turn      *ModelTurn
	decisions map[string]string
	// refused is set when the user cancelled a call of the batch.
	refused bool
}

func (b *pendingBatch) ids() []string {
	ids := make([]string, len(b.calls))
	for i, c := range b.calls {
		ids[i] = c.ID
	}
	return ids
}

func (r *run) toolEvent(c *ToolCall) bool {
	return r.emit(&Event{Type: EventToolCall, Call: c.snapshot()})
}

func (r *run) finishCall(c *ToolCall, status Status, res *tool.Result) {
	c.Status = status
	c.Result = res
	c.Confirmation = nil
	if c.Started.IsZero() {
		c.Started = r.s.cfg.Now()
	}
	c.Ended = r.s.cfg.Now()
	c.Response = tool.FunctionResponseParts(c.ID, c.Name, res)
}

// visibleNames lists the tools the model was shown, for "did you mean".
func (r *run) visibleNames() []string {
	var names []string
	for _, t := range r.s.cfg.Tools.Tools() {
		if r.s.cfg.Policy.Visible(t) {
			names = append(names, t.Name())
		}
	}
	return names
}

// runBatch validates the calls, asks the policy and, where needed, the
// user, then executes them. It reports whether the turn goes on.
// prepare finds the call's tool and checks its arguments, ending the call
// with the error when either fails. Tools the policy hides answer like
// unknown ones, as the model was never told about them.
func (r *run) prepare(c *ToolCall, visible []string) (tool.Tool, tool.Call, bool) {
	s := r.s
	t, call, terr := s.cfg.Tools.Prepare(c.Name, c.Args, visible)
	if terr == nil && !s.cfg.Policy.Visible(t) {
		terr = tool.NotFound(c.Name, visible)
	}
	c.Tool = t
	if terr != nil {
		r.finishCall(c, StatusError, &tool.Result{LLMText: terr.Message, Display: terr.Message, Error: terr})
		return nil, nil, false
	}
	return t, call, true
}

func (r *run) runBatch(b *pendingBatch) bool {
	s := r.s
	b.decisions = map[string]string{}
	visible := r.visibleNames()
	r.emit(&Event{Type: EventToolBatchStart, CallIDs: b.ids()})
	for _, c := range b.calls {
		if !r.toolEvent(c) {
			break
		}
		t, call, ok := r.prepare(c, visible)
		if !ok {
			r.toolEvent(c)
			continue
		}
		if !r.beforeTool(c, &t, &call, visible) {
			continue
		}
		c.call = call
		c.Description = call.Describe()
		pc := policy.Call{Name: t.Name(), DisplayName: t.DisplayName(), Kind: t.Kind(), Args: c.Args}
		if sn, ok := t.(tool.ServerTool); ok {
			pc.ServerName = sn.ServerName()
		}
		decision, msg := s.cfg.Policy.Decide(pc)
		if c.hk.forceAsk && decision == policy.Allow {
			decision = policy.Ask
		}
		var details *tool.ConfirmationDetails
		if decision == policy.Ask {
			d, err := call.Confirmation(r.ctx)
			if err != nil {
				r.finishCall(c, StatusError, tool.Fail(tool.ErrUnhandledException, err.Error()))
				r.toolEvent(c)
				continue
			}
			details = d
			if details != nil && len(details.RootCommands) > 0 {
				pc.RootCommands = details.RootCommands
				decision, msg = s.cfg.Policy.Decide(pc)
				if c.hk.forceAsk && decision == policy.Allow {
					decision = policy.Ask
				}
			}
			if decision == policy.Ask && details != nil && !s.cfg.Policy.CanAsk(pc) {
				// A self-confirming tool asked, and nobody can answer.
				decision, msg = policy.Deny, "Tool execution denied by policy."
			}
		}
		switch {
		case decision == policy.Deny:
			r.finishCall(c, StatusError, tool.Fail(tool.ErrPolicyViolation, msg))
			b.decisions[c.ID] = "reject"
			r.toolEvent(c)
		case decision == policy.Allow || details == nil:
			c.Status = StatusScheduled
			b.decisions[c.ID] = "auto_accept"
			r.toolEvent(c)
		default:
			c.Status = StatusAwaitingApproval
			c.Confirmation = &Confirmation{CallID: c.ID, Details: details, OnceOnly: !s.cfg.Policy.OffersAlways()}
			r.notify(c, details)
			r.toolEvent(c)
			if _, answered := c.Confirmation.Decision(); !answered && s.cfg.Confirm != nil && !r.stopped {
				d, err := s.cfg.Confirm(r.ctx, c.snapshot())
				if err == nil {
					c.Confirmation.Answer(d)
				}
			}
		}
	}
	if r.aborted() {
		r.abandon(b, "User cancelled the operation.")
		return false
	}
	for _, c := range b.calls {
		if c.Status != StatusAwaitingApproval {
			continue
		}
		if _, ok := c.Confirmation.Decision(); !ok {
			s.mu.Lock()
			s.pending = b
			s.mu.Unlock()
			r.emit(&Event{Type: EventInputRequired, Text: b.turn.Text})
			return false
		}
	}
	return r.finishBatch(b)
}

// finishBatch applies the confirmation answers, executes what is approved,
// and adds the responses to history.
func (r *run) finishBatch(b *pendingBatch) bool {
	s := r.s
	if b.decisions == nil {
		b.decisions = map[string]string{}
	}
	cancelRest := false
	// reason is why the batch's calls are cancelled once one is: the
	// user's refusal, or the first cancel's own reason (tool.Decision.Reason:
	// no one refused), which the calls cancelled with it share.
	reason := "User denied execution."
	for _, c := range b.calls {
		if c.Status != StatusAwaitingApproval {
			continue
		}
		d, _ := c.Confirmation.Decision()
		c.Outcome = d.Outcome
		if !cancelRest && d.Outcome == tool.Cancel && d.GoOn {
			msg := d.Reason
			if msg == "" {
				msg = `Tool "` + c.Name + `" was canceled by the user.`
			}
			r.finishCall(c, StatusCancelled, tool.Fail(tool.ErrCancelled, msg))
			b.decisions[c.ID] = "reject"
			r.toolEvent(c)
			continue
		}
		if cancelRest || d.Outcome == tool.Cancel || !d.Outcome.Valid() {
			// Gemini CLI cancels every queued call once one is refused.
			if !cancelRest && d.Reason != "" {
				reason = d.Reason
			}
			cancelRest = true
			b.refused = true
			r.finishCall(c, StatusCancelled, tool.Fail(tool.ErrCancelled, "[Operation Cancelled] Reason: "+reason))
			b.decisions[c.ID] = "reject"
			r.toolEvent(c)
			continue
		}
		b.decisions[c.ID] = "accept"
		if a, ok := c.call.(tool.Answerable); ok {
			a.ApplyDecision(d)
		}
		if d.NewContent != nil {
			if m, ok := c.call.(tool.Modifiable); ok {
				m.ApplyUserContent(*d.NewContent)
				b.decisions[c.ID] = "modify"
			}
		}
		if d.Outcome != tool.ProceedOnce && d.Outcome != tool.ModifyWithEditor {
			pc := policy.Call{Name: c.Tool.Name(), DisplayName: c.Tool.DisplayName(), Kind: c.Tool.Kind(), Args: c.Args}
			if c.Confirmation != nil && c.Confirmation.Details != nil {
				pc.RootCommands = c.Confirmation.Details.RootCommands
				pc.ServerName = c.Confirmation.Details.ServerName
			}
			s.cfg.Policy.Remember(pc, d.Outcome)
		}
		c.Status = StatusScheduled
		c.Confirmation = nil
		r.toolEvent(c)
	}
	if cancelRest {
		for _, c := range b.calls {
			if c.Status == StatusScheduled {
				r.finishCall(c, StatusCancelled, tool.Fail(tool.ErrCancelled, "[Operation Cancelled] Reason: "+reason))
				r.toolEvent(c)
			}
		}
	}
	r.execute(b)
	return r.complete(b)
}

// execute runs the scheduled calls: contiguous non-edit calls together,
// edits one at a time, so that edits never race each other.
func (r *run) execute(b *pendingBatch) {
	var group []*ToolCall
	flush := func() {
		if len(group) > 0 {
			r.executeGroup(group)
			group = nil
		}
	}
	for _, c := range b.calls {
		if c.Status != StatusScheduled {
			continue
		}
		if c.Tool.Kind() == tool.KindEdit {
			flush()
			r.executeGroup([]*ToolCall{c})
			continue
		}
		group = append(group, c)
	}
	flush()
}

type callUpdate struct {
	c      *ToolCall
	output string
	res    *tool.Result
	done   bool
	// checkpoint is the one taken before the call's edit, if any.
	checkpoint string
}

func (r *run) executeGroup(calls []*ToolCall) {
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	updates := make(chan callUpdate, 16)
	var wg sync.WaitGroup
	for _, c := range calls {
		if r.aborted() {
			break
		}
		c.Status = StatusExecuting
		c.Started = r.s.cfg.Now()
		r.toolEvent(c)
		wg.Add(1)
		go func(c *ToolCall) {
			// Tools run deep code: grow the stack while it holds two
			// frames, not later under a dozen packages' (internal/stack).
			stack.Grow()
			defer wg.Done()
			var mu sync.Mutex
			var checkpoint string
			ectx := tool.WithCheckpointRecorder(ctx, func(name string) { mu.Lock(); checkpoint = name; mu.Unlock() })
			res := safeExecute(tool.WithPromptID(tool.WithCallID(ectx, c.ID), c.PromptID), c.call, func(s string) {
				select {
				case updates <- callUpdate{c: c, output: s}:
				case <-ctx.Done():
				}
			})
			mu.Lock()
			u := callUpdate{c: c, res: res, done: true, checkpoint: checkpoint}
			mu.Unlock()
			updates <- u
		}(c)
	}
	go func() { wg.Wait(); close(updates) }()
	for u := range updates {
		c := u.c
		if !u.done {
			c.LiveOutput = u.output
			if !r.emit(&Event{Type: EventToolOutput, Call: c.snapshot(), Text: u.output}) {
				cancel()
			}
			continue
		}
		c.Checkpoint = u.checkpoint
		switch {
		case ctx.Err() != nil && (u.res == nil || u.res.Error == nil || u.res.Error.Type == tool.ErrCancelled):
			res := u.res
			if res == nil {
				res = &tool.Result{}
			}
			msg := "[Operation Cancelled] Reason: User cancelled the operation."
			if out := res.ResponseText(); out != "" {
				msg += "\n" + out
			}
			r.finishCall(c, StatusCancelled, &tool.Result{LLMText: msg, Display: res.Display, Error: &tool.Error{Type: tool.ErrCancelled, Message: msg}})
		case u.res.Error != nil:
			r.finishCall(c, StatusError, u.res)
		default:
			r.finishCall(c, StatusSuccess, u.res)
		}
		if c.Status != StatusCancelled {
			r.afterTool(c)
		}
		if !r.stopped {
			r.toolEvent(c)
		}
	}
	for _, c := range calls {
		if c.Status == StatusScheduled || c.Status == StatusExecuting {
			r.finishCall(c, StatusCancelled, tool.Fail(tool.ErrCancelled, "[Operation Cancelled] Reason: User cancelled the operation."))
		}
	}
}

// safeExecute runs a call, turning a panic into a tool error so that one
// broken tool cannot take the session down.
func safeExecute(ctx context.Context, c tool.Call, out func(string)) (res *tool.Result) {
	defer func() {
		if p := recover(); p != nil {
			res = tool.Fail(tool.ErrUnhandledException, "tool panicked: "+toString(p))
		}
	}()
	res = c.Execute(ctx, out)
	if res == nil {
		res = tool.Text("")
	}
	return res
}

func toString(v any) string {
	if e, ok := v.(error); ok {
		return e.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "unknown panic"
}

// complete adds the batch's responses to history as one user content, in
// call order, records the turn, ends the batch and decides whether the
// loop goes on. When the user cancelled every call the turn ends here, as
// Gemini CLI's handleCompletedTools does: the responses stay in history
// for the next prompt, and the model is not called again.
func (r *run) complete(b *pendingBatch) bool {
	var parts []*genai.Part
	allCancelled := true
	for _, c := range b.calls {
		if !c.Status.Terminal() {
			r.finishCall(c, StatusCancelled, tool.Fail(tool.ErrCancelled, "[Operation Cancelled] Reason: User cancelled the operation."))
		}
		allCancelled = allCancelled && c.Status == StatusCancelled
		parts = append(parts, c.Response...)
		r.toolCalled(c, b.decisions[c.ID])
	}
	r.s.appendHistory(&genai.Content{Role: genai.RoleUser, Parts: parts})
	r.recordTurn(b)
	if b.refused && allCancelled && r.ctx.Err() == nil {
		r.emit(&Event{Type: EventToolBatchEnd, CallIDs: b.ids(), Reason: TurnCancelled})
		text := ""
		if b.turn != nil {
			text = b.turn.Text
		}
		r.emit(&Event{Type: EventTurnEnd, Reason: TurnCancelled, Text: text})
		return false
	}
	r.emit(&Event{Type: EventToolBatchEnd, CallIDs: b.ids()})
	if err := r.ctx.Err(); err != nil {
		r.fail(err)
		return false
	}
	if r.stopped {
		return false
	}
	for _, c := range b.calls {
		if c.Result != nil && c.Result.Error != nil && c.Result.Error.Type.Fatal() {
			r.fail(&FatalToolError{Call: c.snapshot()})
			return false
		}
	}
	return true
}

// abandon answers every unfinished call as cancelled so that the history
// never holds a function call without its response.
func (r *run) abandon(b *pendingBatch, reason string) {
	r.s.appendHistory(&genai.Content{Role: genai.RoleUser, Parts: r.cancelPending(b, reason)})
	r.recordTurn(b)
	if err := r.ctx.Err(); err != nil {
		r.fail(err)
	}
}

// cancelPending cancels the unfinished calls of b and returns the batch's
// response parts.
func (r *run) cancelPending(b *pendingBatch, reason string) []*genai.Part {
	var parts []*genai.Part
	for _, c := range b.calls {
		if !c.Status.Terminal() {
			r.finishCall(c, StatusCancelled, tool.Fail(tool.ErrCancelled, "[Operation Cancelled] Reason: "+reason))
		}
		parts = append(parts, c.Response...)
	}
	return parts
}

func (r *run) recordTurn(b *pendingBatch) {
	if r.s.cfg.Recorder == nil || b.turn == nil {
		return
	}
	t := *b.turn
	t.Calls = make([]*ToolCall, len(b.calls))
	for i, c := range b.calls {
		t.Calls[i] = c.snapshot()
	}
	r.s.cfg.Recorder.RecordModel(&t)
}
