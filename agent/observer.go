package agent

import (
	"context"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// Observer is told what the engine does as it does it: each turn, each
// model request and each finished tool call. It is the one point where
// telemetry (internal/telemetry) watches a session, so every face that
// runs turns through a Session is observed alike. Its methods are called
// on the turn's goroutine and must not block; they must not change what
// they are given.
type Observer interface {
	// TurnStarted is called as Send takes a prompt or Resume continues a
	// paused turn. The context it returns is the turn's: the model and
	// tool calls of the turn run under it (a span in it is their parent).
	// end is called once when the turn ends, with why, or the error that
	// ended it.
	TurnStarted(ctx context.Context, t *ObservedTurn) (_ context.Context, end func(reason TurnEndReason, err error))
	// ModelCalled is called when a model request ends: answered, failed,
	// or one failed attempt of a retried request.
	ModelCalled(ctx context.Context, m *ObservedModelCall)
	// ToolCalled is called when a tool call has ended (run, refused or
	// cancelled).
	ToolCalled(ctx context.Context, c *ObservedToolCall)
}

// CompressionObserver is an Observer also told when the history was
// summarised: Compressed is called with the token counts before and after
// (NewTokens equal to OriginalTokens when the summary was empty), whether
// or not the shorter history was kept (Status). A failed summary request
// is reported as a model call, not here.
type CompressionObserver interface {
	Compressed(ctx context.Context, sessionID string, info CompressionInfo)
}

// RoutingObserver is an Observer also told how the model router (the
// "auto" model) chose a prompt's model, once per prompt.
type RoutingObserver interface {
	Routed(ctx context.Context, r *ObservedRouting)
}

// ObservedRouting is one routing decision.
type ObservedRouting struct {
	SessionID, PromptID string
	// Model is the model chosen; Source the rule that chose it, named
	// as Gemini CLI 0.61 names its routing strategies
	// ("agent-router/Classifier", "agent-router/default", ...).
	Model, Source string
	// Reasoning is the classifier's explanation, when it gave one.
	Reasoning string
	Latency   time.Duration
	// Err is why the router could not decide (it then used its default).
	Err error
}

// LoopObserver is an Observer also told of each loop found in a prompt
// (the first is told to the model, the second stops the prompt) and of
// each model-assisted loop check that found one likely.
type LoopObserver interface {
	LoopFound(ctx context.Context, l *ObservedLoop)
	LoopChecked(ctx context.Context, c *ObservedLoopCheck)
}

// LoopDisableObserver is an Observer also told when loop detection is
// turned off for the session (DisableLoopDetection), with the id of the
// session's latest prompt, as Gemini CLI logs loop_detection_disabled.
type LoopDisableObserver interface {
	LoopDetectionDisabled(ctx context.Context, sessionID, promptID string)
}

// Loop types, as Gemini CLI 0.61 names them.
const (
	LoopToolCalls     = "consecutive_identical_tool_calls"
	LoopChanting      = "chanting_identical_sentences"
	LoopModelDetected = "llm_detected_loop"
)

// ObservedLoop is one loop found.
type ObservedLoop struct {
	SessionID, PromptID string
	// Type is LoopToolCalls, LoopChanting or LoopModelDetected; Count
	// the loops found in the prompt so far, this one included.
	Type  string
	Count int
	// For LoopModelDetected: the model that judged it, its analysis and
	// the confidence threshold it passed.
	ConfirmedBy, Analysis string
	Confidence            float64
}

// ObservedLoopCheck is one model loop check: the first model's
// confidence, and the double-checking model's (-1 when it was not asked).
type ObservedLoopCheck struct {
	SessionID, PromptID   string
	FirstConfidence       float64
	DoubleCheckModel      string
	DoubleCheckConfidence float64
}

// ObservedTurn is one turn as an Observer sees it start.
type ObservedTurn struct {
	SessionID, PromptID string
	// Model is the model the session asks for.
	Model string
	// Prompt is the prompt's text; Resumed is set for Resume, which has
	// none.
	Prompt  string
	Resumed bool
	// Subagent is set on the turns of a subagent's session by the
	// Observer the assembly gives it (the engine cannot tell).
	Subagent bool
	Start    time.Time
}

// ObservedModelCall is one ended model request.
type ObservedModelCall struct {
	SessionID, PromptID string
	// Role is "main" for the turn's own calls, else the utility role of
	// the call (model.NoticeUtility).
	Role string
	// Model is the model asked; ResponseModel the version that answered.
	Model, ResponseModel string
	Start                time.Time
	Duration             time.Duration
	Usage                *genai.GenerateContentResponseUsageMetadata
	// Err is the failure, nil when the model answered.
	Err          error
	ResponseID   string
	FinishReason genai.FinishReason
	// Request is what was sent (nil for utility calls and failed
	// attempts); ResponseText is the answer's text.
	Request      *model.Request
	ResponseText string
}

// ObservedToolCall is one ended tool call.
type ObservedToolCall struct {
	SessionID string
	// Call is the ended call (read only); Decision is how it was
	// approved: accept, reject, modify, auto_accept, or "" when it never
	// reached a decision.
	Call     *ToolCall
	Decision string
}

// observeTurn starts the turn's observation: r.ctx becomes the turn's
// context and r.yield notes how the turn ends. The returned function ends
// the observation; it is a no-op without an Observer.
func (r *run) observeTurn(prompt string, resumed bool) func() {
	obs := r.s.cfg.Observer
	if obs == nil {
		return func() {}
	}
	ctx, end := obs.TurnStarted(r.ctx, &ObservedTurn{
		SessionID: r.s.cfg.SessionID, PromptID: r.promptID, Model: r.s.Model(),
		Prompt: prompt, Resumed: resumed, Start: r.s.cfg.Now(),
	})
	r.ctx = ctx
	var (
		reason TurnEndReason
		failed error
	)
	inner := r.yield
	r.yield = func(ev *Event, err error) bool {
		switch {
		case err != nil:
			failed = err
		case ev.Type == EventTurnEnd:
			reason = ev.Reason
		case ev.Type == EventInputRequired:
			reason = "input_required"
		}
		return inner(ev, err)
	}
	return func() { end(reason, failed) }
}

// request counts one model request in the session's stats and tells the
// Observer.
func (r *run) request(m *ObservedModelCall) {
	r.s.stats.request(m.ResponseModel, m.Role, m.Duration, m.Usage, m.Err)
	if obs := r.s.cfg.Observer; obs != nil {
		m.SessionID, m.PromptID = r.s.cfg.SessionID, r.promptID
		if m.Model == "" {
			m.Model = m.ResponseModel
		}
		obs.ModelCalled(r.ctx, m)
	}
}

// toolCalled counts one ended tool call and tells the Observer.
func (r *run) toolCalled(c *ToolCall, decision string) {
	r.s.stats.toolCall(c, decision)
	if obs := r.s.cfg.Observer; obs != nil {
		obs.ToolCalled(r.ctx, &ObservedToolCall{SessionID: r.s.cfg.SessionID, Call: c, Decision: decision})
	}
}

// compressed tells an Observer that wants it of a summarised history;
// an empty summary changed nothing, as Gemini CLI counts it.
func (r *run) compressed(info *CompressionInfo) {
	if obs, ok := r.s.cfg.Observer.(CompressionObserver); ok {
		c := *info
		if c.Status == "COMPRESSION_FAILED_EMPTY_SUMMARY" {
			c.NewTokens = c.OriginalTokens
		}
		obs.Compressed(r.ctx, r.s.cfg.SessionID, c)
	}
}

// routed tells an Observer that wants it of the router's decision.
func (r *run) routed(n model.Notice) {
	if obs, ok := r.s.cfg.Observer.(RoutingObserver); ok {
		obs.Routed(r.ctx, &ObservedRouting{SessionID: r.s.cfg.SessionID, PromptID: r.promptID, Model: n.Model, Source: n.Source,
			Reasoning: n.Reasoning, Latency: n.Latency, Err: n.Err})
	}
}

// strike counts a loop found in the prompt, tells an Observer that wants
// it, and reports whether it stops the prompt (the second does).
func (r *run) strike(l *ObservedLoop) bool {
	stop := r.s.loops.strike()
	if obs, ok := r.s.cfg.Observer.(LoopObserver); ok {
		l.SessionID, l.PromptID, l.Count = r.s.cfg.SessionID, r.promptID, r.s.loops.found
		obs.LoopFound(r.ctx, l)
	}
	return stop
}

// loopChecked tells an Observer that wants it of a model loop check.
func (r *run) loopChecked(c *ObservedLoopCheck) {
	if obs, ok := r.s.cfg.Observer.(LoopObserver); ok {
		c.SessionID, c.PromptID = r.s.cfg.SessionID, r.promptID
		obs.LoopChecked(r.ctx, c)
	}
}
