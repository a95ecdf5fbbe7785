package agent

import (
	"errors"
	"iter"
	"maps"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/tool"
)

// runHooks is the hook state of one run.
type runHooks struct {
	// prompt is the text of the prompt being served (AfterAgent).
	prompt string
	// retries counts AfterAgent's retries (stop_hook_active once one ran).
	retries int
	// halt is set when a tool hook answered continue: false; the turn
	// stops once the batch is answered.
	halt *HookOutput
	// synthetic is a BeforeModel hook's response, used instead of calling
	// the model.
	synthetic *genai.GenerateContentResponse
}

// callHooks is the hook state of one tool call.
type callHooks struct {
	argsModified bool
	forceAsk     bool
}

// hookHalt ends a turn from inside a model call: a model hook denied or
// stopped it.
type hookHalt struct {
	out  *HookOutput
	stop bool
}

func (h *hookHalt) Error() string { return "hook ended the turn: " + h.out.EffectiveReason() }

// halted ends the turn if err is a hook's halt, reporting whether it was.
func (r *run) halted(err error) bool {
	var h *hookHalt
	if !errors.As(err, &h) {
		return false
	}
	if h.stop {
		r.stop(h.out)
	} else {
		r.block(h.out)
	}
	return true
}

// beforeModel fires BeforeModel and BeforeToolSelection for req, applying
// what they return. A synthetic response is kept for stream.
func (r *run) beforeModel(req *model.Request) error {
	r.hk.synthetic = nil
	s := r.s
	if s.hooked(HookBeforeModel) {
		out := r.hook(&HookInput{HookEventName: HookBeforeModel, LLMRequest: llmRequest(req)})
		switch {
		case out.Stops():
			return &hookHalt{out: out, stop: true}
		case out.Blocks():
			return &hookHalt{out: out}
		}
		sp := out.Specific()
		if sp.LLMRequest != nil {
			if req.Config == nil {
				req.Config = &genai.GenerateContentConfig{}
			}
			applyLLMRequest(&req.Model, &req.Contents, req.Config, sp.LLMRequest)
		}
		if sp.LLMResponse != nil {
			r.hk.synthetic = genaiResponse(sp.LLMResponse)
		}
	}
	if s.hooked(HookBeforeToolSelection) && r.hk.synthetic == nil {
		out := r.hook(&HookInput{HookEventName: HookBeforeToolSelection, LLMRequest: llmRequest(req)})
		if tc := out.Specific().ToolConfig; tc != nil {
			if req.Config == nil {
				req.Config = &genai.GenerateContentConfig{}
			}
			applyToolConfig(req.Config, tc)
		}
	}
	return nil
}

// stream is the model's response stream as hooks shape it: a BeforeModel
// hook's synthetic response instead of the model, and every chunk through
// AfterModel.
func (r *run) stream(req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	if syn := r.hk.synthetic; syn != nil {
		return func(yield func(*genai.GenerateContentResponse, error) bool) { yield(syn, nil) }
	}
	base := r.s.cfg.Model.GenerateContentStream(r.ctx, req)
	if !r.s.hooked(HookAfterModel) {
		return base
	}
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		lreq := llmRequest(req)
		for resp, err := range base {
			if err != nil || resp == nil {
				if !yield(resp, err) {
					return
				}
				continue
			}
			out := r.hook(&HookInput{HookEventName: HookAfterModel, LLMRequest: lreq, LLMResponse: hookResponse(resp)})
			switch {
			case out.Stops():
				yield(nil, &hookHalt{out: out, stop: true})
				return
			case out.Blocks():
				yield(nil, &hookHalt{out: out})
				return
			}
			if !yield(replaceChunk(resp, out.Specific().LLMResponse), nil) {
				return
			}
		}
	}
}

// beforeTool fires BeforeTool for a validated call. It reports whether
// the call goes on to the policy; when not, the call is finished (blocked
// or stopped). Rewritten arguments are validated again.
func (r *run) beforeTool(c *ToolCall, t *tool.Tool, call *tool.Call, visible []string) bool {
	if !r.s.hooked(HookBeforeTool) {
		return true
	}
	in := &HookInput{HookEventName: HookBeforeTool, ToolName: c.Name, ToolInput: maps.Clone(c.Args), MCPContext: mcpContext(*t)}
	if in.ToolInput == nil {
		in.ToolInput = map[string]any{}
	}
	out := r.hook(in)
	switch {
	case out.Stops():
		r.hk.halt = out
		r.finishCall(c, StatusError, tool.Fail(tool.ErrStopExecution, "Agent execution stopped by hook: "+out.EffectiveReason()))
		r.toolEvent(c)
		return false
	case out.Blocks():
		r.finishCall(c, StatusError, tool.Fail(tool.ErrExecutionFailed, "Tool execution blocked: "+out.EffectiveReason()))
		r.toolEvent(c)
		return false
	}
	if out != nil && out.Decision == "ask" {
		c.hk.forceAsk = true
	}
	if ti := out.Specific().ToolInput; ti != nil {
		args := maps.Clone(c.Args)
		if args == nil {
			args = map[string]any{}
		}
		maps.Copy(args, ti)
		nt, ncall, terr := r.s.cfg.Tools.Prepare(c.Name, args, visible)
		if terr != nil {
			r.finishCall(c, StatusError, &tool.Result{LLMText: terr.Message, Display: terr.Message, Error: terr})
			r.toolEvent(c)
			return false
		}
		c.Args, *t, *call = args, nt, ncall
		c.Tool = nt
		c.hk.argsModified = true
	}
	return true
}

// mcpContext describes an MCP tool's server for hooks, nil for others.
func mcpContext(t tool.Tool) map[string]any {
	sn, ok := t.(interface{ ServerName() string })
	if !ok {
		return nil
	}
	m := map[string]any{"server_name": sn.ServerName(), "tool_name": t.Name()}
	if on, ok := t.(interface{ ServerToolName() string }); ok {
		m["tool_name"] = on.ServerToolName()
	}
	return m
}

// notify fires Notification for a call that waits for the user's
// permission, as Gemini CLI does before showing a confirmation.
func (r *run) notify(c *ToolCall, d *tool.ConfirmationDetails) {
	if !r.s.hooked(HookNotification) {
		return
	}
	details := map[string]any{"tool_name": c.Name, "tool_input": c.Args}
	if d != nil {
		details["type"] = d.Type
		details["title"] = d.Title
	}
	r.hook(&HookInput{
		HookEventName:    HookNotification,
		NotificationType: "ToolPermission",
		Message:          "Tool " + c.Name + " requires permission",
		Details:          details,
	})
}

// afterTool fires AfterTool for an executed call and applies its output
// to the call's result: a deny replaces it, tool_output and
// additionalContext change what the model sees, tailToolCallRequest runs
// another tool in its place.
func (r *run) afterTool(c *ToolCall) {
	if c.hk.argsModified && c.Result != nil {
		addText(c.Result, "\n\n[System] Tool input parameters were modified by a hook before execution.")
		c.Response = tool.FunctionResponseParts(c.ID, c.Name, c.Result)
	}
	if !r.s.hooked(HookAfterTool) || c.Result == nil {
		return
	}
	res := c.Result
	resp := map[string]any{"llmContent": res.ResponseText(), "returnDisplay": res.Display}
	if res.Error != nil {
		resp["error"] = map[string]any{"message": res.Error.Message, "type": string(res.Error.Type)}
	}
	out := r.hook(&HookInput{HookEventName: HookAfterTool, ToolName: c.Name, ToolInput: c.Args, ToolResponse: resp, MCPContext: mcpContext(c.Tool)})
	if out == nil {
		return
	}
	sp := out.Specific()
	switch {
	case out.Stops():
		r.hk.halt = out
		c.Status, c.Result = StatusError, tool.Fail(tool.ErrStopExecution, "Agent execution stopped by hook: "+out.EffectiveReason())
	case out.Blocks():
		c.Status, c.Result = StatusError, tool.Fail(tool.ErrExecutionFailed, "Tool execution blocked: "+out.EffectiveReason())
	default:
		if tail := sp.TailToolCallRequest; tail != nil && tail.Name != "" {
			c.Result = r.runTail(c, tail)
			if c.Result.Error != nil {
				c.Status = StatusError
			} else {
				c.Status = StatusSuccess
			}
		}
		if sp.ToolOutput != nil {
			c.Result = &tool.Result{LLMText: *sp.ToolOutput, Display: c.Result.Display, Error: c.Result.Error}
			if c.Result.Error != nil {
				c.Result.Error = &tool.Error{Type: c.Result.Error.Type, Message: *sp.ToolOutput}
			}
		}
		if sp.AdditionalContext != "" {
			cp := *c.Result
			addText(&cp, "\n\n"+HookContext(sp.AdditionalContext))
			c.Result = &cp
		}
	}
	c.Response = tool.FunctionResponseParts(c.ID, c.Name, c.Result)
}

// runTail runs the tool an AfterTool hook asked for; the policy decides
// as for any call, and a call that would need the user's approval is
// refused, as no one was asked.
func (r *run) runTail(c *ToolCall, tail *TailToolCall) *tool.Result {
	t, call, terr := r.s.cfg.Tools.Prepare(tail.Name, tail.Args, r.visibleNames())
	if terr != nil {
		return &tool.Result{LLMText: terr.Message, Display: terr.Message, Error: terr}
	}
	if !r.s.cfg.Policy.Visible(t) {
		return tool.Fail(tool.ErrPolicyViolation, "Tool execution denied by policy.")
	}
	return safeExecute(tool.WithPromptID(tool.WithCallID(r.ctx, c.ID), c.PromptID), call, func(string) {})
}

// addText appends text to what the model sees of a result.
func addText(res *tool.Result, text string) {
	switch {
	case res.Error != nil:
		e := *res.Error
		e.Message += text
		res.Error = &e
		res.LLMText += text
	case res.LLMParts != nil || res.LLMPart != nil:
		parts := append([]*genai.Part(nil), res.LLMParts...)
		if res.LLMPart != nil && parts == nil {
			parts = []*genai.Part{res.LLMPart}
		}
		res.LLMParts = append(parts, &genai.Part{Text: text})
		res.LLMPart = nil
	default:
		res.LLMText += text
	}
}

// maxHookRetries bounds the retries AfterAgent hooks may ask for in one
// turn, as Gemini CLI bounds a prompt's turns, so that a hook that always
// denies cannot loop forever.
const maxHookRetries = 100

// afterAgent fires AfterAgent once the model has answered. It reports
// whether the loop goes on: a deny sends its reason to the model as a new
// prompt (once the hook knows it is a retry, through stop_hook_active).
func (r *run) afterAgent(answer string) (again bool, stopped bool) {
	if !r.s.hooked(HookAfterAgent) {
		return false, false
	}
	active := r.hk.retries > 0
	out := r.hook(&HookInput{HookEventName: HookAfterAgent, Prompt: &r.hk.prompt, PromptResponse: &answer, StopHookActive: &active})
	if out == nil {
		return false, false
	}
	if out.Specific().ClearContext {
		r.s.mu.Lock()
		r.s.hist = nil
		r.s.mu.Unlock()
	}
	switch {
	case out.Stops():
		return false, true
	case out.Blocks() && r.hk.retries < maxHookRetries:
		r.hk.retries++
		r.s.appendHistory(&genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: out.EffectiveReason()}}})
		return true, false
	}
	return false, false
}

// preCompress fires PreCompress before a compression (trigger: auto or
// manual).
func (r *run) preCompress(trigger string) {
	if r.s.hooked(HookPreCompress) {
		r.hook(&HookInput{HookEventName: HookPreCompress, Trigger: trigger})
	}
}
