package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// Errors that end a turn.
var (
	// ErrMaxSessionTurns: model.maxSessionTurns was reached (exit 53).
	ErrMaxSessionTurns = errors.New("reached max session turns for this session; increase the number of turns by specifying maxSessionTurns in settings.json")
	// ErrLoopDetected: the model was repeating itself and was stopped.
	ErrLoopDetected = errors.New("loop detected: the model was stopped because it kept repeating itself")
	// ErrBusy: a turn is already running on this session.
	ErrBusy = errors.New("session is busy with another turn")
	// ErrNothingPending: Resume was called with no paused turn.
	ErrNothingPending = errors.New("no tool calls are waiting for confirmation")
	// ErrUnanswered: Resume was called before every pending confirmation
	// was answered.
	ErrUnanswered = errors.New("some tool calls are still waiting for confirmation")
)

// FatalToolError ends a headless run because a tool hit a condition that
// makes going on pointless (no space left on the device; exit 54).
type FatalToolError struct{ Call *ToolCall }

func (e *FatalToolError) Error() string {
	return fmt.Sprintf("fatal tool error in %s: %s", e.Call.Name, e.Call.Result.Error.Message)
}

// Recorder persists a conversation as it happens (chat recording).
type Recorder interface {
	// RecordUser records a user prompt (without the environment context).
	RecordUser(promptID string, parts []*genai.Part)
	// RecordModel records one model response with the tool calls it made
	// and their results. A response that made calls is recorded twice
	// under the same ModelTurn.ID: as its stream ends, without calls, and
	// once its calls ended, with them; the recorder keeps the last.
	RecordModel(turn *ModelTurn)
	// RecordError records a failure that ended a turn.
	RecordError(msg string)
}

// ModelTurn is one model response as recorded.
type ModelTurn struct {
	ID       string
	Time     time.Time
	Text     string
	Thoughts []Thought
	Calls    []*ToolCall
	Usage    *genai.GenerateContentResponseUsageMetadata
	Model    string
	// Content is the curated content added to history.
	Content *genai.Content
}

// Config configures a Session.
type Config struct {
	// Model is the transport; ModelName the model to ask.
	Model     model.Model
	ModelName string
	// SessionID identifies the session (generated when empty).
	SessionID string
	// SystemInstruction returns the system prompt for the next call.
	SystemInstruction func() string
	// GenerationConfig holds temperature, thinking and similar settings;
	// the session adds the system instruction and tools to a copy.
	GenerationConfig *genai.GenerateContentConfig
	// GenerationConfigFor, when set, gives the settings for a model and
	// is asked at each call for the model in use, in place of
	// GenerationConfig: after SetModel or a fallback the new model gets
	// its own thinking config (a 2.5 model's budget, a 3.x model's
	// level), not the first model's, which the other family refuses.
	GenerationConfigFor func(model string) *genai.GenerateContentConfig
	// Tools are the tools the model may call; Policy decides approvals.
	Tools  *tool.Registry
	Policy *policy.Engine
	// EnvContext is the environment context given with the first prompt.
	EnvContext func() string
	// PromptContext, when set, is asked at each prompt for context to send
	// before it (an IDE's open files and cursor); non-empty parts are added
	// as a user content of their own ahead of the prompt, as Gemini CLI
	// adds IDE context.
	PromptContext func(first bool) []*genai.Part
	// History resumes an earlier conversation; calls in it that have no
	// response are answered as cancelled (RepairHistory).
	History []*genai.Content
	// MaxSessionTurns bounds model calls in the session (≤0: unlimited).
	MaxSessionTurns int
	// DisableLoopDetection turns loop detection off, the model-assisted
	// check included.
	DisableLoopDetection bool
	// LoopCheck, when set, has a model check long prompts for loops
	// (loopcheck.go).
	LoopCheck *LoopCheck
	// Debug, when set, receives debug lines: what the engine chose to
	// ignore (a loop check without a verdict).
	Debug func(string)
	// CompressionThreshold is the fraction of TokenLimit past which history
	// is compressed before the next call (0 means 0.5).
	CompressionThreshold float64
	// TokenLimit is the model's context window (0: known per model).
	TokenLimit int
	// TokenLimitFor, when TokenLimit is 0, gives the window of the
	// session's current model (a provider model's from its settings);
	// 0 from it means Gemini's known windows.
	TokenLimitFor func(model string) int
	// Recorder, when set, persists the conversation.
	Recorder Recorder
	// Confirm, when set, is asked synchronously for every call that needs
	// approval and was not answered while handling its event.
	Confirm func(ctx context.Context, call *ToolCall) (tool.Decision, error)
	// Now is the clock (tests).
	Now func() time.Time
	// Hooks, when set, runs hooks at Gemini CLI's hook points (agent/hooks.go).
	Hooks Hooks
	// OutputSchema, when set, constrains and validates each turn's final
	// answer (outputschema.go).
	OutputSchema *OutputSchema
	// OnStats, when set, is given the counts of each model request and
	// tool call as the session records it (a Stats holding that one
	// event), so a session that runs this one, as a subagent, counts its
	// usage as it happens (statslive.go).
	OnStats func(Stats)
	// Observer, when set, is told of each turn, model request and tool
	// call as they happen (observer.go): telemetry's one hook.
	Observer Observer
}

// Session is one conversation with the model. Its methods are safe for
// concurrent use, but only one turn runs at a time.
type Session struct {
	cfg   Config
	turn  sync.Mutex
	mu    sync.Mutex // guards the fields below
	hist  []*genai.Content
	model string

	turns      int
	prompts    int
	lastCallMs int64 // keeps generated call ids unique within the session
	lastPrompt int32
	answeredBy string // LastModel
	started    bool
	pending    *pendingBatch
	loops      *loopDetector
	loopsOff   atomic.Bool // DisableLoopDetection (loopoff.go)
	stats      *statsRecorder
	// startContext is SessionStart hook context for the next prompt;
	// notices are hook events produced outside a turn.
	startContext []string
	notices      []*Event
	// marks are where this session's prompts start in history (rewind.go).
	marks []promptMark
}

// New returns a session.
func New(cfg Config) *Session {
	if cfg.SessionID == "" {
		cfg.SessionID = newID()
	}
	if cfg.Tools == nil {
		cfg.Tools = tool.NewRegistry()
	}
	if cfg.Policy == nil {
		cfg.Policy = policy.New(policy.Options{})
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Session{
		cfg:   cfg,
		hist:  joinUserContents(RepairHistory(cfg.History, "")),
		model: cfg.ModelName,
		loops: newLoopDetector(cfg.DisableLoopDetection),
		stats: newStatsRecorder(),
	}
	s.stats.forward = cfg.OnStats
	s.started = len(s.hist) > 0
	s.markHistory() // rewind.go
	return s
}

// ID returns the session id.
func (s *Session) ID() string { return s.cfg.SessionID }

// Model returns the model in use (it changes after a quota fallback).
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// SetModel switches the model asked from the next model call on.
func (s *Session) SetModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.model = name
	s.answeredBy = ""
}

// LastModel returns the model that gave the latest response, as the
// response names it (its modelVersion; the model asked when it names
// none), or "" when none has answered since the session began or the
// model was switched. It differs from Model when Model is an alias, such
// as auto, that the transport resolves per prompt.
func (s *Session) LastModel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answeredBy
}

// History returns a copy of the curated history.
func (s *Session) History() []*genai.Content {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneContents(s.hist)
}

// SetHistory replaces the conversation, as a checkpoint restore does.
// Calls still waiting for confirmation are dropped, and calls in h without
// a response (a checkpoint is taken while its edit runs) are answered as
// cancelled (RepairHistory), so the history stays valid for the API. It
// fails while a turn is running.
func (s *Session) SetHistory(h []*genai.Content) error {
	return s.ReplaceHistory(h, nil)
}

// ReplaceHistory is SetHistory with first, when set, run once no turn
// can start and before the history is replaced: a rewind restores the
// files and records itself there, and its failure leaves the conversation
// as it was (its error is returned).
func (s *Session) ReplaceHistory(h []*genai.Content, first func() error) error {
	if !s.turn.TryLock() {
		return ErrBusy
	}
	defer s.turn.Unlock()
	if first != nil {
		if err := first(); err != nil {
			return err
		}
	}
	h = joinUserContents(RepairHistory(h, reasonRestored))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hist = h
	s.pending = nil
	s.lastPrompt = 0
	s.started = len(h) > 0
	return nil
}

// Stats returns the session's metrics so far.
func (s *Session) Stats() Stats { return s.stats.snapshot() }

// Tools returns the session's tool registry, for faces that list the
// tools a session offers (the A2A server's task metadata).
func (s *Session) Tools() *tool.Registry { return s.cfg.Tools }

// Pending returns the tool calls waiting for confirmation after a turn
// paused with EventInputRequired.
func (s *Session) Pending() []*ToolCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		return nil
	}
	var out []*ToolCall
	for _, c := range s.pending.calls {
		if c.Status == StatusAwaitingApproval {
			out = append(out, c.snapshot())
		}
	}
	return out
}

// Answer records a decision for the pending call callID. An unknown
// outcome is refused, so that a face relaying a client's answer leaves the
// call waiting rather than guessing.
func (s *Session) Answer(callID string, d tool.Decision) error {
	if !d.Outcome.Valid() {
		return fmt.Errorf("unknown confirmation outcome %q for tool call %q", d.Outcome, callID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		return ErrNothingPending
	}
	for _, c := range s.pending.calls {
		if c.ID == callID && c.Confirmation != nil {
			c.Confirmation.Answer(d)
			return nil
		}
	}
	return fmt.Errorf("no tool call %q is waiting for confirmation", callID)
}

func (s *Session) appendHistory(c *genai.Content) {
	s.mu.Lock()
	s.hist = append(s.hist, c)
	s.mu.Unlock()
}

// Send runs one user prompt to completion: model calls and tool calls
// alternate until the model answers without calling tools, or until the
// user cancels every call of a batch. The sequence yields events and ends
// with a non-nil error if the turn failed, with EventInputRequired if it
// paused for confirmations, and otherwise with EventTurnEnd, which holds
// the final answer and why the turn ended. Each batch of tool calls is
// framed by EventToolBatchStart and EventToolBatchEnd.
//
// If the previous turn paused and its confirmations were never answered,
// those calls are cancelled and the new prompt goes with their responses
// (RepairHistory), without events for them.
func (s *Session) Send(ctx context.Context, parts ...*genai.Part) iter.Seq2[*Event, error] {
	return s.checkOutput(ctx, func(yield func(*Event, error) bool) {
		if !s.turn.TryLock() {
			yield(nil, ErrBusy)
			return
		}
		defer s.turn.Unlock()
		r := s.newRun(ctx, yield)
		s.mu.Lock()
		s.prompts++
		r.promptID = s.promptID(s.prompts)
		pending := s.pending
		s.pending = nil
		first := !s.started
		s.started = true
		s.mu.Unlock()
		s.loops.reset()
		r.flushNotices()
		// SessionStart's context is part of the prompt, before its text,
		// as Gemini CLI 0.61 prepends it to the input: BeforeAgent sees
		// it in "prompt".
		s.mu.Lock()
		parts = withStartContext(s.startContext, parts)
		s.startContext = nil
		s.mu.Unlock()
		r.hk.prompt = promptText(parts)
		s.loops.check.prompt = r.hk.prompt // loopcheck.go
		defer r.observeTurn(r.hk.prompt, false)()
		parts, goOn, keep := r.beforeAgent(parts)
		if !keep {
			if pending != nil {
				s.mu.Lock()
				s.hist = RepairHistory(s.hist, reasonUnanswered)
				s.mu.Unlock()
			}
			return
		}

		// The prompt's first content joins user content a turn that
		// ended early left at the end of history (ending.go).
		s.mu.Lock()
		markAt := len(s.hist)
		s.mu.Unlock()
		var add func(*genai.Content)
		add = func(c *genai.Content) {
			s.appendPrompt(c)
			add = s.appendHistory
		}
		var userParts []*genai.Part
		if first && s.cfg.EnvContext != nil {
			if env := s.cfg.EnvContext(); env != "" {
				userParts = append(userParts, &genai.Part{Text: env})
			}
		}
		if s.cfg.PromptContext != nil {
			if extra := s.cfg.PromptContext(first); len(extra) > 0 {
				if len(userParts) > 0 {
					add(&genai.Content{Role: genai.RoleUser, Parts: userParts})
					userParts = nil
				}
				add(&genai.Content{Role: genai.RoleUser, Parts: extra})
			}
		}
		userParts = append(userParts, parts...)
		add(&genai.Content{Role: genai.RoleUser, Parts: userParts})
		if pending != nil {
			s.mu.Lock()
			s.hist = RepairHistory(s.hist, reasonUnanswered)
			s.mu.Unlock()
		}
		s.markPrompt(markAt, r.promptID, parts, s.cfg.Now())
		if s.cfg.Recorder != nil {
			s.cfg.Recorder.RecordUser(r.promptID, parts)
		}
		if !goOn {
			return
		}
		r.loop()
	})
}

// Resume continues a turn that paused with EventInputRequired, once every
// pending confirmation has been answered (Answer, or Confirmation.Answer);
// its events end as Send's do. Cancelling every pending call ends the
// turn without another model call (EventTurnEnd with TurnCancelled).
func (s *Session) Resume(ctx context.Context) iter.Seq2[*Event, error] {
	return s.checkOutput(ctx, func(yield func(*Event, error) bool) {
		if !s.turn.TryLock() {
			yield(nil, ErrBusy)
			return
		}
		defer s.turn.Unlock()
		s.mu.Lock()
		p := s.pending
		if p == nil {
			s.mu.Unlock()
			yield(nil, ErrNothingPending)
			return
		}
		for _, c := range p.calls {
			if c.Status == StatusAwaitingApproval {
				if _, ok := c.Confirmation.Decision(); !ok {
					s.mu.Unlock()
					yield(nil, ErrUnanswered)
					return
				}
			}
		}
		s.pending = nil
		s.mu.Unlock()
		r := s.newRun(ctx, yield)
		r.promptID = p.promptID
		defer r.observeTurn("", true)()
		if !r.finishBatch(p) {
			return
		}
		r.loop()
	})
}

// run is the state of one Send or Resume.
type run struct {
	s        *Session
	ctx      context.Context
	yield    func(*Event, error) bool
	stopped  bool
	promptID string
	// thoughts and usage of the latest model response, for the recorder.
	thoughts []Thought
	usage    *genai.GenerateContentResponseUsageMetadata
	// answeredBy is the model version that gave the latest response.
	answeredBy string
	hk         runHooks
}

func (s *Session) newRun(ctx context.Context, yield func(*Event, error) bool) *run {
	if s.loopsOff.Load() {
		s.loops.disabled = true // the run goroutine owns loops; set here, not by the caller
	}
	return &run{s: s, ctx: ctx, yield: yield}
}

// emit yields an event unless the consumer has stopped listening; it
// reports whether to go on.
func (r *run) emit(ev *Event) bool {
	if r.stopped {
		return false
	}
	ev.Time = r.s.cfg.Now()
	ev.PromptID = r.promptID
	if !r.yield(ev, nil) {
		r.stopped = true
	}
	return !r.stopped
}

func (r *run) fail(err error) {
	if r.s.cfg.Recorder != nil {
		msg := err.Error()
		if errors.Is(err, context.Canceled) {
			msg = "Request cancelled." // Gemini CLI's words, not Go's
		}
		r.s.cfg.Recorder.RecordError(msg)
	}
	if !r.stopped {
		r.stopped = true
		r.yield(nil, err)
	}
}

// aborted reports whether the run must stop: the consumer left or the
// context was cancelled.
func (r *run) aborted() bool { return r.stopped || r.ctx.Err() != nil }

// loop alternates model calls and tool batches until the model stops
// calling tools.
func (r *run) loop() {
	s := r.s
	for {
		if r.aborted() {
			if err := r.ctx.Err(); err != nil {
				r.fail(err)
			}
			return
		}
		s.mu.Lock()
		s.turns++
		over := s.cfg.MaxSessionTurns > 0 && s.turns > s.cfg.MaxSessionTurns
		s.mu.Unlock()
		if over {
			r.emit(&Event{Type: EventMaxSessionTurns})
			r.fail(ErrMaxSessionTurns)
			return
		}
		r.maybeCompress()
		switch r.checkLoop() { // loopcheck.go
		case checkStopped:
			return
		case checkFeedback:
			continue
		}
		content, calls, err := r.callModel()
		if err != nil {
			var retold *loopRetold
			if errors.As(err, &retold) {
				r.retell(retold) // loopcheck.go
				continue
			}
			if r.halted(err) {
				return
			}
			r.fail(err)
			return
		}
		turn := &ModelTurn{ID: newID(), Time: s.cfg.Now(), Content: content, Model: orDefault(r.answeredBy, s.Model()), Thoughts: r.thoughts, Usage: r.usage, Text: answerText(content)}
		if len(calls) == 0 {
			if s.cfg.Recorder != nil && content != nil {
				s.cfg.Recorder.RecordModel(turn)
			}
			again, stopped := r.afterAgent(turn.Text)
			if again {
				continue
			}
			reason := TurnCompleted
			if stopped {
				reason = TurnStopped
			}
			r.emit(&Event{Type: EventTurnEnd, Reason: reason, Text: turn.Text})
			return
		}
		if found, stopped := r.callsLoop(calls, turn); stopped { // loopcheck.go
			return
		} else if found {
			continue
		}
		if s.cfg.Recorder != nil && content != nil {
			// Recorded as the stream ends, before any call runs, as Gemini
			// CLI records it: a process killed during a long tool keeps
			// the model's words. recordTurn records it again, under the
			// same id, with the calls and their results.
			s.cfg.Recorder.RecordModel(turn)
		}
		batch := &pendingBatch{promptID: r.promptID, calls: calls, turn: turn}
		if !r.runBatch(batch) {
			return
		}
		if r.hk.halt != nil {
			r.stop(r.hk.halt)
			return
		}
	}
}

// callModel streams one model response, emitting content, thoughts and
// the finish; it adds the curated response to history and returns it with
// the tool calls it requested.
func (r *run) callModel() (*genai.Content, []*ToolCall, error) {
	s := r.s
	// The config is built outside the lock: a dynamic system instruction
	// may read the session (its history) while it is computed.
	cfg := r.requestConfig()
	s.mu.Lock()
	req := &model.Request{
		Model:     s.model,
		Contents:  cloneContents(s.hist),
		Config:    cfg,
		PromptID:  r.promptID,
		SessionID: s.cfg.SessionID,
	}
	s.mu.Unlock()
	req.Observe = func(n model.Notice) {
		switch n.Kind {
		case model.NoticeRetry:
			if n.Model != "" {
				// A failed attempt counts as a request with an error of
				// its own, as in Gemini CLI 0.61.
				r.request(&ObservedModelCall{Role: "main", Model: req.Model, ResponseModel: n.Model, Start: time.Now().Add(-n.Latency), Duration: n.Latency, Err: n.Err})
			}
			r.emit(&Event{Type: EventRetry, Notice: &n})
		case model.NoticeFallback:
			s.mu.Lock()
			s.model = n.To
			s.answeredBy = ""
			s.mu.Unlock()
			r.emit(&Event{Type: EventFallback, Notice: &n, Model: n.To})
		case model.NoticeUtility:
			r.request(&ObservedModelCall{Role: n.Role, ResponseModel: n.Model, Start: time.Now().Add(-n.Latency), Duration: n.Latency, Usage: n.Usage, Err: n.Err})
		case model.NoticeRouted:
			r.routed(n)
		}
	}
	if err := r.beforeModel(req); err != nil {
		return nil, nil, err
	}
	start := time.Now()
	r.thoughts, r.usage = nil, nil
	var (
		parts      []*genai.Part
		usage      *genai.GenerateContentResponseUsageMetadata
		version    string
		responseID string
		finish     genai.FinishReason
		citations  []string
	)
	for resp, err := range r.stream(req) {
		if err != nil {
			r.request(&ObservedModelCall{Role: "main", Model: req.Model, ResponseModel: orDefault(version, model.FailedModel(err, req.Model)), Start: start, Duration: time.Since(start), Err: err, Request: req})
			r.keepPartial(parts, orDefault(version, req.Model))
			return nil, nil, err
		}
		if resp == nil {
			continue
		}
		if resp.ModelVersion != "" {
			version = resp.ModelVersion
		}
		if resp.ResponseID != "" {
			responseID = resp.ResponseID
		}
		if resp.UsageMetadata != nil {
			usage = resp.UsageMetadata
		}
		if len(resp.Candidates) == 0 {
			continue
		}
		cand := resp.Candidates[0]
		if cand.Content != nil {
			for _, p := range cand.Content.Parts {
				if p == nil {
					continue
				}
				parts = append(parts, p)
				switch {
				case p.Thought && p.Text != "":
					th := parseThought(p.Text)
					r.thoughts = append(r.thoughts, th)
					if !r.emit(&Event{Type: EventThought, Thought: &th, Text: p.Text, ResponseID: responseID}) {
						r.keepPartial(parts, orDefault(version, req.Model))
						return nil, nil, context.Canceled
					}
				case p.Text != "" && !p.Thought:
					if !r.emit(&Event{Type: EventContent, Text: p.Text, ResponseID: responseID}) {
						r.keepPartial(parts, orDefault(version, req.Model))
						return nil, nil, context.Canceled
					}
					if msg, loop := s.loops.content(p.Text); loop {
						// The chanting is not kept: the model does not
						// read its loop back, and the next request (a
						// retelling, or the next prompt, which joins this
						// one: appendPrompt) follows the user content.
						if !r.strike(&ObservedLoop{Type: LoopChanting}) {
							return nil, nil, &loopRetold{detail: s.loops.detail}
						}
						r.emit(&Event{Type: EventLoopDetected, Text: msg})
						return nil, nil, ErrLoopDetected
					}
				}
			}
		}
		if cand.CitationMetadata != nil {
			for _, c := range cand.CitationMetadata.Citations {
				if c != nil && c.URI != "" {
					citations = append(citations, fmt.Sprintf("(%s) %s", c.Title, c.URI))
				}
			}
		}
		if cand.FinishReason != "" {
			finish = cand.FinishReason
		}
	}
	if version == "" {
		version = req.Model
	}
	r.answeredBy = version
	s.mu.Lock()
	s.answeredBy = version
	s.mu.Unlock()
	elapsed := time.Since(start)
	r.usage = usage
	// A model that reports no usage (some OpenAI-compatible servers)
	// leaves the size unknown, so that compression estimates it, rather
	// than keeping the figure of the last compression forever.
	var prompt int32
	if usage != nil {
		prompt = usage.PromptTokenCount
	}
	s.mu.Lock()
	s.lastPrompt = prompt
	s.mu.Unlock()
	content := curateModelContent(parts)
	r.request(&ObservedModelCall{Role: "main", Model: req.Model, ResponseModel: version, Start: start, Duration: elapsed, Usage: usage,
		ResponseID: responseID, FinishReason: finish, Request: req, ResponseText: answerText(content)})
	var calls []*ToolCall
	if content != nil {
		ensureThoughtSignature(req.Model, content)
		s.mu.Lock()
		now := max(time.Now().UnixMilli(), s.lastCallMs+1)
		s.lastCallMs = now
		s.mu.Unlock()
		for i, p := range content.Parts {
			if p.FunctionCall == nil {
				continue
			}
			fc := *p.FunctionCall
			if fc.ID == "" {
				// Gemini CLI's form: name, epoch milliseconds, position of the
				// call in the response.
				fc.ID = fmt.Sprintf("%s_%d_%d", fc.Name, now, len(calls))
			}
			content.Parts[i] = withCall(p, &fc)
			calls = append(calls, &ToolCall{ID: fc.ID, Name: fc.Name, Args: fc.Args, PromptID: r.promptID, Status: StatusValidating})
		}
		s.appendHistory(content)
	}
	if len(citations) > 0 {
		r.emit(&Event{Type: EventCitation, Text: "Citations:\n" + strings.Join(citations, "\n")})
	}
	r.emit(&Event{Type: EventFinished, FinishReason: finish, Usage: usage, Model: version, ResponseID: responseID})
	return content, calls, nil
}

func withCall(p *genai.Part, fc *genai.FunctionCall) *genai.Part {
	cp := *p
	cp.FunctionCall = fc
	return &cp
}

// requestConfig builds the per-call config: generation settings, system
// instruction and the declarations of the tools the policy lets the model
// see. It must be called without s.mu held.
func (r *run) requestConfig() *genai.GenerateContentConfig {
	s := r.s
	var cfg genai.GenerateContentConfig
	gen := s.cfg.GenerationConfig
	if s.cfg.GenerationConfigFor != nil {
		if g := s.cfg.GenerationConfigFor(s.Model()); g != nil {
			gen = g
		}
	}
	if gen != nil {
		cfg = *gen
	}
	if s.cfg.SystemInstruction != nil {
		if si := s.cfg.SystemInstruction(); si != "" {
			cfg.SystemInstruction = &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: si}}}
		}
	}
	decls := s.cfg.Tools.Declarations(s.cfg.Policy.Visible)
	if len(decls) > 0 {
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	s.applyOutputSchema(&cfg) // outputschema.go
	return &cfg
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func errorTypeName(err error) string {
	var ae *model.APIError
	if errors.As(err, &ae) {
		return "ApiError" // Gemini CLI 0.61's name for any service error
	}
	t := reflect.TypeOf(err)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "Error"
	}
	return t.Name()
}
