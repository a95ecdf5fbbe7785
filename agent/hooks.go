package agent

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// HookEvent names a point of the agent loop where hooks run, with Gemini
// CLI's names.
type HookEvent string

// The hook events, as Gemini CLI fires them.
const (
	HookSessionStart        HookEvent = "SessionStart"
	HookSessionEnd          HookEvent = "SessionEnd"
	HookBeforeAgent         HookEvent = "BeforeAgent"
	HookAfterAgent          HookEvent = "AfterAgent"
	HookBeforeModel         HookEvent = "BeforeModel"
	HookAfterModel          HookEvent = "AfterModel"
	HookBeforeToolSelection HookEvent = "BeforeToolSelection"
	HookBeforeTool          HookEvent = "BeforeTool"
	HookAfterTool           HookEvent = "AfterTool"
	HookPreCompress         HookEvent = "PreCompress"
	HookNotification        HookEvent = "Notification"
)

// HookEvents lists every hook event.
var HookEvents = []HookEvent{
	HookSessionStart, HookSessionEnd, HookBeforeAgent, HookAfterAgent,
	HookBeforeModel, HookAfterModel, HookBeforeToolSelection,
	HookBeforeTool, HookAfterTool, HookPreCompress, HookNotification,
}

// Hooks runs the hooks of a session (Config.Hooks). The engine fills the
// input's event-specific fields, its session id, event name and
// timestamp; the implementation fills what only it knows (transcript
// path, working directory) and merges the outputs of every hook that ran
// as Gemini CLI merges them.
type Hooks interface {
	// Handles reports whether any hook is registered for event, so that
	// the engine builds no input for events nobody listens to.
	Handles(event HookEvent) bool
	// Fire runs the matching hooks and returns their merged output, nil
	// when none ran or none said anything. A non-nil error reports hooks
	// that could not run or failed; it is shown as a warning and never
	// stops the session by itself.
	Fire(ctx context.Context, in *HookInput) (*HookOutput, error)
}

// HookInput is what a hook receives (a command hook reads it as JSON on
// stdin). The first five fields are common to every event; the rest are
// set for the events named beside them.
type HookInput struct {
	SessionID      string    `json:"session_id"`
	TranscriptPath string    `json:"transcript_path"`
	Cwd            string    `json:"cwd"`
	HookEventName  HookEvent `json:"hook_event_name"`
	Timestamp      string    `json:"timestamp"`

	// BeforeTool, AfterTool.
	ToolName            string         `json:"tool_name,omitempty"`
	ToolInput           map[string]any `json:"tool_input,omitempty"`
	MCPContext          map[string]any `json:"mcp_context,omitempty"`
	OriginalRequestName string         `json:"original_request_name,omitempty"`
	// AfterTool: llmContent, returnDisplay and error of the result.
	ToolResponse map[string]any `json:"tool_response,omitempty"`

	// BeforeAgent, AfterAgent.
	Prompt *string `json:"prompt,omitempty"`
	// AfterAgent.
	PromptResponse *string `json:"prompt_response,omitempty"`
	StopHookActive *bool   `json:"stop_hook_active,omitempty"`

	// BeforeModel, AfterModel, BeforeToolSelection.
	LLMRequest *LLMRequest `json:"llm_request,omitempty"`
	// AfterModel: the response chunk.
	LLMResponse *LLMResponse `json:"llm_response,omitempty"`

	// SessionStart: startup, resume or clear.
	Source string `json:"source,omitempty"`
	// SessionEnd: exit, clear, logout, prompt_input_exit or other.
	Reason string `json:"reason,omitempty"`
	// PreCompress: auto or manual.
	Trigger string `json:"trigger,omitempty"`

	// Notification.
	NotificationType string         `json:"notification_type,omitempty"`
	Message          string         `json:"message,omitempty"`
	Details          map[string]any `json:"details,omitempty"`
}

// MatchTarget is what a hook's matcher is compared with: the tool name
// for tool events, the source, reason, trigger or notification type for
// lifecycle events, "" when the event has nothing to match.
func (in *HookInput) MatchTarget() string {
	switch in.HookEventName {
	case HookBeforeTool, HookAfterTool:
		return in.ToolName
	case HookSessionStart:
		return in.Source
	case HookSessionEnd:
		return in.Reason
	case HookPreCompress:
		return in.Trigger
	case HookNotification:
		return in.NotificationType
	}
	return ""
}

// Clone returns a deep enough copy for hooks run one after another to
// chain their changes without touching the caller's input.
func (in *HookInput) Clone() *HookInput {
	cp := *in
	cp.ToolInput = maps.Clone(in.ToolInput)
	if in.Prompt != nil {
		p := *in.Prompt
		cp.Prompt = &p
	}
	if in.LLMRequest != nil {
		r := *in.LLMRequest
		cp.LLMRequest = &r
	}
	return &cp
}

// HookOutput is what a hook answers (a command hook prints it as JSON on
// stdout). Which fields count depends on the event.
type HookOutput struct {
	// Continue false stops the whole agent loop; StopReason says why.
	Continue   *bool  `json:"continue,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	// SuppressOutput hides the hook's messages.
	SuppressOutput bool `json:"suppressOutput,omitempty"`
	// SystemMessage is shown to the user.
	SystemMessage string `json:"systemMessage,omitempty"`
	// Decision is allow, deny (or its alias block), ask or approve.
	Decision string `json:"decision,omitempty"`
	// Reason explains a deny; for tools it is what the model is told.
	Reason string `json:"reason,omitempty"`
	// HookSpecificOutput holds the event's own fields.
	HookSpecificOutput *HookSpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// HookSpecificOutput is the event-specific part of a hook's output.
type HookSpecificOutput struct {
	HookEventName string `json:"hookEventName,omitempty"`
	// AdditionalContext (SessionStart, BeforeAgent, AfterTool) reaches the
	// model inside <hook_context>.
	AdditionalContext string `json:"additionalContext,omitempty"`
	// ToolInput (BeforeTool) is merged over the model's arguments.
	ToolInput map[string]any `json:"tool_input,omitempty"`
	// ToolOutput (AfterTool) replaces the tool's output for the model.
	ToolOutput *string `json:"tool_output,omitempty"`
	// TailToolCallRequest (AfterTool) runs another tool whose result
	// replaces the original one.
	TailToolCallRequest *TailToolCall `json:"tailToolCallRequest,omitempty"`
	// ClearContext (AfterAgent) clears the model's memory of the session.
	ClearContext bool `json:"clearContext,omitempty"`
	// LLMRequest (BeforeModel) overrides parts of the request.
	LLMRequest *LLMRequest `json:"llm_request,omitempty"`
	// LLMResponse is a synthetic response (BeforeModel: the model is not
	// called) or a replacement chunk (AfterModel).
	LLMResponse *LLMResponse `json:"llm_response,omitempty"`
	// ToolConfig (BeforeToolSelection) restricts the tools offered.
	ToolConfig *HookToolConfig `json:"toolConfig,omitempty"`
}

// TailToolCall is a tool call requested by an AfterTool hook.
type TailToolCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args,omitempty"`
}

// LLMRequest is Gemini CLI's stable, SDK-independent view of a model
// request given to model hooks: text only.
type LLMRequest struct {
	Model      string          `json:"model,omitempty"`
	Messages   []LLMMessage    `json:"messages,omitempty"`
	Config     map[string]any  `json:"config,omitempty"`
	ToolConfig *HookToolConfig `json:"toolConfig,omitempty"`
}

// LLMMessage is one message of an LLMRequest; role is user, model or
// system.
type LLMMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// HookToolConfig is the function-calling mode (AUTO, ANY or NONE) and the
// allowed function names.
type HookToolConfig struct {
	Mode                 string   `json:"mode,omitempty"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

// LLMResponse is the stable view of a model response (or chunk).
type LLMResponse struct {
	Text          string            `json:"text,omitempty"`
	Candidates    []LLMCandidate    `json:"candidates"`
	UsageMetadata *LLMUsageMetadata `json:"usageMetadata,omitempty"`
}

// LLMCandidate is one candidate of an LLMResponse; its parts are texts.
type LLMCandidate struct {
	Content      LLMContent `json:"content"`
	FinishReason string     `json:"finishReason,omitempty"`
}

// LLMContent is a candidate's content.
type LLMContent struct {
	Role  string   `json:"role"`
	Parts []string `json:"parts"`
}

// LLMUsageMetadata is a response's token counts.
type LLMUsageMetadata struct {
	PromptTokenCount     int32 `json:"promptTokenCount,omitempty"`
	CandidatesTokenCount int32 `json:"candidatesTokenCount,omitempty"`
	TotalTokenCount      int32 `json:"totalTokenCount,omitempty"`
}

// Blocks reports whether the output denies (deny or block).
func (o *HookOutput) Blocks() bool {
	return o != nil && (o.Decision == "deny" || o.Decision == "block")
}

// Stops reports whether the output halts the agent (continue: false).
func (o *HookOutput) Stops() bool {
	return o != nil && o.Continue != nil && !*o.Continue
}

// EffectiveReason is the stop reason, else the reason, as Gemini CLI
// reports a block or a stop.
func (o *HookOutput) EffectiveReason() string {
	if o == nil {
		return ""
	}
	if o.StopReason != "" {
		return o.StopReason
	}
	if o.Reason != "" {
		return o.Reason
	}
	return "No reason provided"
}

// Specific returns the event-specific output, never nil.
func (o *HookOutput) Specific() *HookSpecificOutput {
	if o == nil || o.HookSpecificOutput == nil {
		return &HookSpecificOutput{}
	}
	return o.HookSpecificOutput
}

// HookContext wraps hook-supplied context as the model sees it: inside
// <hook_context>, with angle brackets escaped so that the text cannot
// close the tag (Gemini CLI's sanitising).
func HookContext(text string) string {
	text = strings.ReplaceAll(text, "<", "&lt;")
	text = strings.ReplaceAll(text, ">", "&gt;")
	return "<hook_context>" + text + "</hook_context>"
}

// Hook-related events and turn ends.
const (
	// EventHookMessage carries a hook's systemMessage for the user in Text.
	EventHookMessage EventType = "hook_message"
	// TurnStopped: a hook answered continue: false; the event's Text is
	// the stop reason.
	TurnStopped TurnEndReason = "stopped"
	// TurnBlocked: a BeforeAgent, BeforeModel or AfterModel hook denied;
	// Text is its reason.
	TurnBlocked TurnEndReason = "blocked"
)

// fireHook runs the hooks of in's event, reporting failures and system
// messages as events. It never holds s.mu while hooks run.
func (s *Session) fireHook(ctx context.Context, emit func(*Event) bool, in *HookInput) *HookOutput {
	h := s.cfg.Hooks
	if h == nil || !h.Handles(in.HookEventName) {
		return nil
	}
	in.SessionID = s.cfg.SessionID
	in.Timestamp = s.cfg.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	out, err := h.Fire(ctx, in)
	if emit == nil {
		emit = func(ev *Event) bool {
			s.mu.Lock()
			s.notices = append(s.notices, ev)
			s.mu.Unlock()
			return true
		}
	}
	if err != nil {
		emit(&Event{Type: EventWarning, Text: err.Error()})
	}
	if out != nil && out.SystemMessage != "" && !out.SuppressOutput {
		emit(&Event{Type: EventHookMessage, Text: out.SystemMessage})
	}
	return out
}

// hook runs hooks within a turn.
func (r *run) hook(in *HookInput) *HookOutput {
	return r.s.fireHook(r.ctx, r.emit, in)
}

// hooked reports whether a hook is registered for event.
func (s *Session) hooked(event HookEvent) bool {
	return s.cfg.Hooks != nil && s.cfg.Hooks.Handles(event)
}

// StartHooks fires SessionStart (source: startup, resume or clear). The
// context it returns goes with the next prompt and its messages are
// emitted at the start of the next turn, as a headless Gemini CLI adds
// SessionStart context to the first prompt.
func (s *Session) StartHooks(ctx context.Context, source string) {
	out := s.fireHook(ctx, nil, &HookInput{HookEventName: HookSessionStart, Source: source})
	if c := out.Specific().AdditionalContext; c != "" {
		s.mu.Lock()
		s.startContext = append(s.startContext, HookContext(c))
		s.mu.Unlock()
	}
}

// EndHooks fires SessionEnd (reason: exit, clear, logout,
// prompt_input_exit or other) and returns the messages and warnings the
// hooks produced, for the face to show as the session closes.
func (s *Session) EndHooks(ctx context.Context, reason string) []*Event {
	var evs []*Event
	s.fireHook(ctx, func(ev *Event) bool { evs = append(evs, ev); return true }, &HookInput{HookEventName: HookSessionEnd, Reason: reason})
	return evs
}

// flushNotices emits the events hooks produced outside a turn.
func (r *run) flushNotices() {
	r.s.mu.Lock()
	evs := r.s.notices
	r.s.notices = nil
	r.s.mu.Unlock()
	for _, ev := range evs {
		r.emit(ev)
	}
}

// promptText is the text of a prompt's parts, for hooks.
func promptText(parts []*genai.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p != nil && p.Text != "" && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// beforeAgent fires BeforeAgent for a new prompt. It returns the parts to
// send (the prompt, then hook context), whether the turn goes on (when
// not, it has ended with EventTurnEnd) and whether the prompt is kept in
// history: a deny drops it, a stop keeps it.
func (r *run) beforeAgent(parts []*genai.Part) (_ []*genai.Part, goOn, keep bool) {
	if !r.s.hooked(HookBeforeAgent) {
		return parts, true, true
	}
	p := promptText(parts)
	out := r.hook(&HookInput{HookEventName: HookBeforeAgent, Prompt: &p})
	switch {
	case out.Stops():
		r.emit(&Event{Type: EventWarning, Text: "Agent execution stopped: " + out.EffectiveReason()})
		r.emit(&Event{Type: EventTurnEnd, Reason: TurnStopped, Text: out.EffectiveReason()})
		return parts, false, true
	case out.Blocks():
		r.emit(&Event{Type: EventWarning, Text: "Agent execution blocked: " + out.EffectiveReason()})
		r.emit(&Event{Type: EventTurnEnd, Reason: TurnBlocked, Text: out.EffectiveReason()})
		return nil, false, false
	}
	if c := out.Specific().AdditionalContext; c != "" {
		parts = append(parts[:len(parts):len(parts)], &genai.Part{Text: HookContext(c)})
	}
	return parts, true, true
}

// stop ends the turn because a hook halted the agent.
func (r *run) stop(out *HookOutput) {
	reason := out.EffectiveReason()
	r.emit(&Event{Type: EventWarning, Text: "Agent execution stopped: " + reason})
	r.emit(&Event{Type: EventTurnEnd, Reason: TurnStopped, Text: reason})
}

// block ends the turn because a hook denied it.
func (r *run) block(out *HookOutput) {
	reason := out.EffectiveReason()
	r.emit(&Event{Type: EventWarning, Text: "Agent execution blocked: " + reason})
	r.emit(&Event{Type: EventTurnEnd, Reason: TurnBlocked, Text: reason})
}

// llmRequest is the hooks' view of req.
func llmRequest(req *model.Request) *LLMRequest {
	lr := &LLMRequest{Model: req.Model}
	for _, c := range req.Contents {
		if c == nil {
			continue
		}
		text := promptText(c.Parts)
		if text == "" {
			continue
		}
		role := c.Role
		if role == "" {
			role = genai.RoleUser
		}
		lr.Messages = append(lr.Messages, LLMMessage{Role: role, Content: text})
	}
	if cfg := req.Config; cfg != nil {
		m := map[string]any{}
		if cfg.Temperature != nil {
			m["temperature"] = *cfg.Temperature
		}
		if cfg.TopP != nil {
			m["topP"] = *cfg.TopP
		}
		if cfg.TopK != nil {
			m["topK"] = *cfg.TopK
		}
		if cfg.MaxOutputTokens != 0 {
			m["maxOutputTokens"] = cfg.MaxOutputTokens
		}
		if len(cfg.StopSequences) > 0 {
			m["stopSequences"] = cfg.StopSequences
		}
		if len(m) > 0 {
			lr.Config = m
		}
		tc := &HookToolConfig{Mode: "AUTO"}
		if cfg.ToolConfig != nil && cfg.ToolConfig.FunctionCallingConfig != nil {
			fc := cfg.ToolConfig.FunctionCallingConfig
			if fc.Mode != "" {
				tc.Mode = string(fc.Mode)
			}
			tc.AllowedFunctionNames = fc.AllowedFunctionNames
		}
		if tc.AllowedFunctionNames == nil {
			for _, t := range cfg.Tools {
				for _, d := range t.FunctionDeclarations {
					tc.AllowedFunctionNames = append(tc.AllowedFunctionNames, d.Name)
				}
			}
		}
		lr.ToolConfig = tc
	}
	return lr
}

// applyLLMRequest overrides req with what a BeforeModel hook returned:
// the model, generation settings, tool config and, when messages are
// given, the contents (text only, as Gemini CLI's translator does).
func applyLLMRequest(model *string, contents *[]*genai.Content, cfg *genai.GenerateContentConfig, o *LLMRequest) {
	if o == nil {
		return
	}
	if o.Model != "" {
		*model = o.Model
	}
	if o.Messages != nil {
		var cs []*genai.Content
		for _, m := range o.Messages {
			switch m.Role {
			case "system":
				// A system message joins the system instruction.
				si := &genai.Content{Role: genai.RoleUser}
				if cfg.SystemInstruction != nil {
					si.Parts = append(si.Parts, cfg.SystemInstruction.Parts...)
				}
				si.Parts = append(si.Parts, &genai.Part{Text: m.Content})
				cfg.SystemInstruction = si
				continue
			case genai.RoleModel:
			default:
				m.Role = genai.RoleUser
			}
			cs = append(cs, &genai.Content{Role: m.Role, Parts: []*genai.Part{{Text: m.Content}}})
		}
		*contents = cs
	}
	if len(o.Config) > 0 {
		applyGenerationConfig(cfg, o.Config)
	}
	if o.ToolConfig != nil {
		applyToolConfig(cfg, o.ToolConfig)
	}
}

// applyGenerationConfig sets the generation settings a hook named.
func applyGenerationConfig(cfg *genai.GenerateContentConfig, m map[string]any) {
	raw, err := json.Marshal(m)
	if err != nil {
		return
	}
	var over genai.GenerateContentConfig
	if json.Unmarshal(raw, &over) != nil {
		return
	}
	if over.Temperature != nil {
		cfg.Temperature = over.Temperature
	}
	if over.TopP != nil {
		cfg.TopP = over.TopP
	}
	if over.TopK != nil {
		cfg.TopK = over.TopK
	}
	if over.MaxOutputTokens != 0 {
		cfg.MaxOutputTokens = over.MaxOutputTokens
	}
	if len(over.StopSequences) > 0 {
		cfg.StopSequences = over.StopSequences
	}
	if over.CandidateCount != 0 {
		cfg.CandidateCount = over.CandidateCount
	}
}

// applyToolConfig sets the function-calling mode and allowed names.
func applyToolConfig(cfg *genai.GenerateContentConfig, tc *HookToolConfig) {
	fc := &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigMode(strings.ToUpper(tc.Mode))}
	if fc.Mode == "" {
		fc.Mode = genai.FunctionCallingConfigModeAuto
	}
	if fc.Mode == genai.FunctionCallingConfigModeAny && len(tc.AllowedFunctionNames) > 0 {
		fc.AllowedFunctionNames = tc.AllowedFunctionNames
	}
	if fc.Mode != genai.FunctionCallingConfigModeNone && len(tc.AllowedFunctionNames) > 0 {
		// AUTO cannot carry names on the API, so the declarations are cut
		// to the allowed ones instead.
		allowed := map[string]bool{}
		for _, n := range tc.AllowedFunctionNames {
			allowed[n] = true
		}
		var tools []*genai.Tool
		for _, t := range cfg.Tools {
			if t == nil {
				continue
			}
			cp := *t
			cp.FunctionDeclarations = nil
			for _, d := range t.FunctionDeclarations {
				if allowed[d.Name] {
					cp.FunctionDeclarations = append(cp.FunctionDeclarations, d)
				}
			}
			if len(cp.FunctionDeclarations) > 0 || len(t.FunctionDeclarations) == 0 {
				tools = append(tools, &cp)
			}
		}
		cfg.Tools = tools
	}
	cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: fc}
}

// genaiResponse turns a hook's response into the SDK's form.
func genaiResponse(lr *LLMResponse) *genai.GenerateContentResponse {
	resp := &genai.GenerateContentResponse{}
	for _, c := range lr.Candidates {
		content := &genai.Content{Role: genai.RoleModel}
		for _, t := range c.Content.Parts {
			content.Parts = append(content.Parts, &genai.Part{Text: t})
		}
		resp.Candidates = append(resp.Candidates, &genai.Candidate{Content: content, FinishReason: genai.FinishReason(c.FinishReason)})
	}
	if len(resp.Candidates) == 0 && lr.Text != "" {
		resp.Candidates = []*genai.Candidate{{Content: genai.NewContentFromText(lr.Text, genai.RoleModel), FinishReason: genai.FinishReasonStop}}
	}
	if u := lr.UsageMetadata; u != nil {
		resp.UsageMetadata = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: u.PromptTokenCount, CandidatesTokenCount: u.CandidatesTokenCount, TotalTokenCount: u.TotalTokenCount}
	}
	return resp
}

// hookResponse is the hooks' view of a response chunk.
func hookResponse(resp *genai.GenerateContentResponse) *LLMResponse {
	lr := &LLMResponse{Candidates: []LLMCandidate{}}
	var text strings.Builder
	for _, c := range resp.Candidates {
		if c == nil {
			continue
		}
		lc := LLMCandidate{Content: LLMContent{Role: genai.RoleModel, Parts: []string{}}, FinishReason: string(c.FinishReason)}
		if c.Content != nil {
			for _, p := range c.Content.Parts {
				if p != nil && p.Text != "" && !p.Thought {
					lc.Content.Parts = append(lc.Content.Parts, p.Text)
				}
			}
			text.WriteString(answerText(c.Content))
		}
		lr.Candidates = append(lr.Candidates, lc)
	}
	if u := resp.UsageMetadata; u != nil {
		lr.UsageMetadata = &LLMUsageMetadata{PromptTokenCount: u.PromptTokenCount, CandidatesTokenCount: u.CandidatesTokenCount, TotalTokenCount: u.TotalTokenCount}
	}
	lr.Text = text.String()
	return lr
}

// replaceChunk applies an AfterModel hook's replacement to a chunk: its
// text parts are replaced, function calls and thoughts kept.
func replaceChunk(resp *genai.GenerateContentResponse, lr *LLMResponse) *genai.GenerateContentResponse {
	if lr == nil || len(lr.Candidates) == 0 || len(lr.Candidates[0].Content.Parts) == 0 {
		return resp
	}
	repl := genaiResponse(lr)
	cp := *resp
	cp.Candidates = nil
	for i, c := range repl.Candidates {
		nc := *c
		if i < len(resp.Candidates) && resp.Candidates[i] != nil {
			orig := resp.Candidates[i]
			if nc.FinishReason == "" {
				nc.FinishReason = orig.FinishReason
			}
			if orig.Content != nil {
				for _, p := range orig.Content.Parts {
					if p != nil && (p.FunctionCall != nil || p.Thought) {
						nc.Content.Parts = append(nc.Content.Parts, p)
					}
				}
			}
			nc.CitationMetadata = orig.CitationMetadata
		}
		cp.Candidates = append(cp.Candidates, &nc)
	}
	return &cp
}

// withStartContext puts SessionStart's contexts before the prompt's text,
// "<hook_context>…</hook_context>\n\n" ahead of its first text part as
// Gemini CLI 0.61 builds the input (a part of their own when the prompt
// starts with something else).
func withStartContext(contexts []string, parts []*genai.Part) []*genai.Part {
	if len(contexts) == 0 {
		return parts
	}
	prefix := strings.Join(contexts, "\n\n")
	out := slices.Clone(parts)
	if len(out) > 0 && out[0] != nil && out[0].Text != "" && !out[0].Thought {
		first := *out[0]
		first.Text = prefix + "\n\n" + first.Text
		out[0] = &first
		return out
	}
	return append([]*genai.Part{{Text: prefix}}, out...)
}
