package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// The model-assisted loop check, as Gemini CLI 0.61 makes it
// (loopDetectionService.ts): after loopCheckAfterTurns model turns within
// one prompt, a model reads the recent history and says how sure it is
// that the conversation is stuck; the check comes back every interval
// turns, an interval that shortens as that confidence grows.
const (
	loopCheckAfterTurns     = 30
	loopCheckHistory        = 20
	loopCheckDefaultEvery   = 10
	loopCheckMinEvery       = 5
	loopCheckMaxEvery       = 15
	loopCheckConfidence     = 0.9
	loopCheckAttempts       = 2 // per model asked, as 0.61's generateJson is told
	loopCheckRecentHeading  = "Recent conversation history:"
	loopCheckDefaultDetails = "Repetitive patterns identified"
)

// LoopCheckRole is the stats role of the loop check's model calls
// (Gemini CLI's LlmRole.UTILITY_LOOP_DETECTOR).
const LoopCheckRole = "utility_loop_detector"

// DefaultLoopCheckModel is the model Gemini CLI 0.61 asks first (its
// "loop-detection" model config).
const DefaultLoopCheckModel = "gemini-3-flash-preview"

// DefaultLoopCheckConfig returns the generation settings of the first
// check when LoopCheck.Config is nil: temperature 0 and top-p 1, Gemini
// CLI's settings for utility calls.
func DefaultLoopCheckConfig() *genai.GenerateContentConfig {
	return &genai.GenerateContentConfig{Temperature: genai.Ptr[float32](0), TopP: genai.Ptr[float32](1)}
}

// LoopCheck configures the model-assisted loop check. A session without
// one (Config.LoopCheck nil) makes no such check; model.disableLoopDetection
// (Config.DisableLoopDetection) turns it off with the other rules.
type LoopCheck struct {
	// Model is asked first; Config holds its generation settings (nil:
	// temperature 0, top-p 1, Gemini CLI's utility settings). The check
	// adds the system instruction and the JSON answer's schema.
	Model  string
	Config *genai.GenerateContentConfig
	// DoubleCheckModel, when set, is asked again when Model is confident
	// of a loop, and its answer decides, as Gemini CLI asks its
	// "loop-detection-double-check" model; DoubleCheckConfig holds its
	// settings. Without one, Model's answer decides.
	DoubleCheckModel  string
	DoubleCheckConfig *genai.GenerateContentConfig
}

// loopCheckInstruction is the system instruction of the check, Gemini CLI
// 0.61's word for word: what the checking model answers depends on it.
const loopCheckInstruction = `You are a diagnostic agent that determines whether a conversational AI assistant is stuck in an unproductive loop. Analyze the conversation history (and, if provided, the original user request) to make this determination.

## What constitutes an unproductive state

An unproductive state requires BOTH of the following to be true:
1. The assistant has exhibited a repetitive pattern over at least 5 consecutive model actions (tool calls or text responses, counting only model-role turns).
2. The repetition produces NO net change or forward progress toward the user's goal.

Specific patterns to look for:
- **Alternating cycles with no net effect:** The assistant cycles between the same actions (e.g., edit_file → run_build → edit_file → run_build) where each iteration applies the same edit and encounters the same error, making zero progress. Note: alternating between actions is only a loop if the arguments and outcomes are substantively identical each cycle. If the assistant is modifying different code or getting different errors, that is debugging progress, not a loop.
- **Semantic repetition with identical outcomes:** The assistant calls the same tool with semantically equivalent arguments (same file, same line range, same content) multiple times consecutively, and each call produces the same outcome. This does NOT include build/test commands that are re-run after making code changes between invocations — re-running a build to verify a fix is normal workflow.
- **Stuck reasoning:** The assistant produces multiple consecutive text responses that restate the same plan, question, or analysis without taking any new action or making a decision. This does NOT include command output that happens to contain repeated status lines or warnings.

## What is NOT an unproductive state

You MUST distinguish repetitive-looking but productive work from true loops. The following are examples of forward progress and must NOT be flagged:

- **Cross-file batch operations:** A series of tool calls with the same tool name but targeting different files (different file paths in the arguments). For example, adding license headers to 20 files, or running the same refactoring across multiple modules.
- **Incremental same-file edits:** Multiple edits to the same file that target different line ranges, different functions, or different text content (e.g., adding docstrings to functions one by one).
- **Sequential processing:** A series of read or search operations on different files/paths to gather information.
- **Retry with variation:** Re-attempting a failed operation with modified arguments or a different approach.

## Argument analysis (critical)

When evaluating tool calls, you MUST compare the **arguments** of each call, not just the tool name. Pay close attention to:
- **File paths:** Different file paths mean different targets — this is distinct work, not repetition.
- **Line numbers and text content:** Different line ranges or different old_string/new_string values indicate distinct edits.
- **Search queries and patterns:** Different search terms indicate information gathering, not looping.

A loop exists only when the same tool is called with semantically equivalent arguments repeatedly, indicating no forward progress.

## Using the original user request

If the original user request is provided, use it to contextualize the assistant's behavior. If the request implies a batch or multi-step operation (e.g., "update all files", "refactor every module", "add tests for each function"), then repetitive tool calls with varying arguments are expected and should weigh heavily against flagging a loop.`

// loopCheckTask is the last user content of the check.
const loopCheckTask = `Please analyze the conversation history to determine the possibility that the conversation is stuck in a repetitive, non-productive state. Consider the original user request when evaluating whether repeated tool calls represent legitimate batch work or an actual loop. Provide your response in the requested JSON format.`

// loopCheckSchema is the answer's JSON schema, sent as
// responseJsonSchema.
func loopCheckSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"unproductive_state_analysis": map[string]any{
				"type":        "string",
				"description": "Your reasoning on if the conversation is looping without forward progress.",
			},
			"unproductive_state_confidence": map[string]any{
				"type":        "number",
				"description": "A number between 0.0 and 1.0 representing your confidence that the conversation is in an unproductive state.",
			},
		},
		"required": []any{"unproductive_state_analysis", "unproductive_state_confidence"},
	}
}

// loopFeedback is the user text that follows the first loop a check
// finds, Gemini CLI 0.61's words: the model gets one chance to change
// course before a second finding stops the prompt.
func loopFeedback(details string) string {
	if details == "" {
		details = loopCheckDefaultDetails
	}
	return "System: Potential loop detected. Details: " + details + ". Please take a step back and confirm you're making forward progress. If not, take a step back, analyze your previous actions and rethink how you're approaching the problem. Avoid repeating the same tool calls or responses without new results."
}

// loopCheckState is the check's bookkeeping within one prompt.
type loopCheckState struct {
	prompt    string // the text of the prompt, the check's original request
	turns     int    // model turns of the prompt so far
	every     int    // turns between checks
	lastCheck int    // the turn of the last check
}

func (c *loopCheckState) reset() { *c = loopCheckState{every: loopCheckDefaultEvery} }

// due counts a model turn and reports whether the check is due before it.
func (c *loopCheckState) due() bool {
	c.turns++
	if c.turns < loopCheckAfterTurns || c.turns-c.lastCheck < c.every {
		return false
	}
	c.lastCheck = c.turns
	return true
}

// adapt sets the interval from the confidence of the last answer: the
// surer the model that the conversation is stuck, the sooner it is asked
// again.
func (c *loopCheckState) adapt(confidence float64) {
	confidence = min(max(confidence, 0), 1)
	c.every = int(math.Round(loopCheckMinEvery + (loopCheckMaxEvery-loopCheckMinEvery)*(1-confidence)))
}

// loopVerdict is one model's answer to the check.
type loopVerdict struct {
	analysis   string
	confidence float64
}

// checkOutcome is what the loop check decided before a model turn.
type checkOutcome int

const (
	checkGoOn     checkOutcome = iota // no check, or no loop found
	checkFeedback                     // a first loop: feedback added, a new turn takes it
	checkStopped                      // a second loop: the prompt was stopped
)

// checkLoop runs the model-assisted check when it is due before this
// model turn. As for the other rules, a first loop found in the prompt
// adds Gemini CLI's feedback to the pending request, which a new turn
// sends, as 0.61 answers it with a turn of its own; a second one stops
// the prompt (EventLoopDetected, ErrLoopDetected). A failed or malformed answer
// never stops a turn: it is logged (Config.Debug) and the turn goes on.
func (r *run) checkLoop() checkOutcome {
	s := r.s
	lc := s.cfg.LoopCheck
	if lc == nil || s.loops.disabled || !s.loops.check.due() {
		return checkGoOn
	}
	contents := r.loopCheckContents()
	by := orDefault(lc.Model, DefaultLoopCheckModel)
	verdict, ok := r.askLoopModel(by, lc.Config, contents)
	if !ok {
		return checkGoOn
	}
	if verdict.confidence < loopCheckConfidence {
		r.loopChecked(&ObservedLoopCheck{FirstConfidence: verdict.confidence, DoubleCheckModel: lc.DoubleCheckModel, DoubleCheckConfidence: -1})
	} else if lc.DoubleCheckModel != "" {
		first := verdict.confidence
		by = lc.DoubleCheckModel
		verdict, ok = r.askLoopModel(by, lc.DoubleCheckConfig, contents)
		r.loopChecked(&ObservedLoopCheck{FirstConfidence: first, DoubleCheckModel: by, DoubleCheckConfidence: verdict.confidence})
		if !ok {
			return checkGoOn
		}
	}
	if verdict.confidence < loopCheckConfidence {
		s.loops.check.adapt(verdict.confidence)
		return checkGoOn
	}
	if !r.strike(&ObservedLoop{Type: LoopModelDetected, ConfirmedBy: by, Analysis: verdict.analysis, Confidence: loopCheckConfidence}) {
		r.debugf("loop check: %s found a loop (confidence %.2f); the model is asked to change course", by, verdict.confidence)
		r.addFeedback(loopFeedback(verdict.analysis))
		return checkFeedback
	}
	msg := "The loop check found the conversation stuck in an unproductive loop"
	if a := strings.TrimSpace(verdict.analysis); a != "" {
		msg += ": " + a
	} else {
		msg += "."
	}
	r.emit(&Event{Type: EventLoopDetected, Text: msg})
	r.fail(ErrLoopDetected)
	return checkStopped
}

// loopCheckContents are what the check sends: the prompt's text as the
// original request, the last loopCheckHistory contents before the
// pending request, trimmed so no call lacks its response, and the task.
func (r *run) loopCheckContents() []*genai.Content {
	s := r.s
	s.mu.Lock()
	hist := s.hist
	if n := len(hist); n > 0 && hist[n-1].Role == genai.RoleUser {
		hist = hist[:n-1] // the request about to be sent, as 0.61's history lacks it
	}
	recent := cloneContents(hist[max(0, len(hist)-loopCheckHistory):])
	s.mu.Unlock()
	for len(recent) > 0 && onlyCalls(recent[len(recent)-1]) {
		recent = recent[:len(recent)-1]
	}
	for len(recent) > 0 && hasResponse(recent[0]) {
		recent = recent[1:]
	}
	var out []*genai.Content
	// The prompt is kept by the session: a turn resumed after
	// confirmations has no prompt of its own.
	if p := s.loops.check.prompt; strings.TrimSpace(p) != "" {
		out = append(out, userText("<original_user_request>\n"+p+"\n</original_user_request>"))
	}
	out = append(out, recent...)
	out = append(out, userText(loopCheckTask))
	if onlyCalls(out[0]) {
		out = append([]*genai.Content{userText(loopCheckRecentHeading)}, out...)
	}
	return out
}

func userText(s string) *genai.Content {
	return &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: s}}}
}

// onlyCalls reports a model content made of function calls alone.
func onlyCalls(c *genai.Content) bool {
	if c == nil || c.Role != genai.RoleModel || len(c.Parts) == 0 {
		return false
	}
	for _, p := range c.Parts {
		if p == nil || p.FunctionCall == nil {
			return false
		}
	}
	return true
}

// hasResponse reports a user content holding a function response.
func hasResponse(c *genai.Content) bool {
	if c == nil || c.Role != genai.RoleUser {
		return false
	}
	for _, p := range c.Parts {
		if p != nil && p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// addFeedback adds text to the request about to be sent. The pending
// function responses stay: the API refuses a call without its response.
func (r *run) addFeedback(text string) {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.hist)
	if n == 0 || s.hist[n-1].Role != genai.RoleUser {
		s.hist = append(s.hist, userText(text))
		return
	}
	// A new content: the old one may be held by requests already made.
	last := s.hist[n-1]
	parts := append(append([]*genai.Part(nil), last.Parts...), &genai.Part{Text: text})
	s.hist[n-1] = &genai.Content{Role: last.Role, Parts: parts}
}

// askLoopModel asks one model for its verdict, counted in the stats under
// LoopCheckRole. An answer that is not the JSON asked for is asked for
// again once, as Gemini CLI does; ok is false when no verdict came.
func (r *run) askLoopModel(name string, gen *genai.GenerateContentConfig, contents []*genai.Content) (v loopVerdict, ok bool) {
	if gen == nil {
		gen = DefaultLoopCheckConfig()
	}
	cfg := *gen
	cfg.Tools, cfg.ToolConfig = nil, nil
	cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: loopCheckInstruction}}}
	cfg.ResponseMIMEType = "application/json"
	cfg.ResponseSchema = nil
	cfg.ResponseJsonSchema = loopCheckSchema()
	var err error
	for attempts := 0; attempts < loopCheckAttempts; {
		attempts++
		var resp *genai.GenerateContentResponse
		resp, err = r.loopModelCall(name, &cfg, contents, &attempts)
		if err != nil {
			break
		}
		if v, err = parseLoopVerdict(resp); err == nil {
			return v, true
		}
		if !errors.Is(err, errNotJSON) {
			break // JSON without a confidence is not asked for again
		}
	}
	if r.ctx.Err() == nil {
		r.debugf("loop check: %s gave no verdict, ignored: %v", name, err)
	}
	return loopVerdict{}, false
}

// loopModelCall makes one call of the check. The transport's retries
// count among the check's attempts: past them the call is given up.
func (r *run) loopModelCall(name string, cfg *genai.GenerateContentConfig, contents []*genai.Content, attempts *int) (*genai.GenerateContentResponse, error) {
	s := r.s
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	req := &model.Request{
		Model:     name,
		Contents:  contents,
		Config:    cfg,
		PromptID:  r.promptID,
		SessionID: s.cfg.SessionID,
	}
	req.Observe = func(n model.Notice) {
		switch n.Kind {
		case model.NoticeRetry:
			r.request(&ObservedModelCall{Role: LoopCheckRole, Model: name, ResponseModel: orDefault(n.Model, name), Start: time.Now().Add(-n.Latency), Duration: n.Latency, Err: n.Err})
			if *attempts++; *attempts >= loopCheckAttempts {
				cancel()
			}
		case model.NoticeUtility:
			r.request(&ObservedModelCall{Role: n.Role, ResponseModel: n.Model, Start: time.Now().Add(-n.Latency), Duration: n.Latency, Usage: n.Usage, Err: n.Err})
		}
	}
	start := time.Now()
	resp, err := s.cfg.Model.GenerateContent(ctx, req)
	call := &ObservedModelCall{Role: LoopCheckRole, Model: name, ResponseModel: name, Start: start, Duration: time.Since(start), Err: err}
	if resp != nil {
		call.Usage = resp.UsageMetadata
		call.ResponseModel = orDefault(resp.ModelVersion, name)
		call.ResponseText = responseText(resp)
	}
	if err != nil {
		call.ResponseModel = model.FailedModel(err, name)
	}
	if err == nil || !errors.Is(err, context.Canceled) || r.ctx.Err() != nil {
		// A call given up after its last retry was counted as it failed.
		r.request(call)
	}
	return resp, err
}

// errNotJSON marks an answer that is not JSON at all, which is asked for
// again.
var errNotJSON = errors.New("the answer is not JSON")

// parseLoopVerdict reads the check's JSON answer: a confidence is needed,
// the analysis may be missing.
func parseLoopVerdict(resp *genai.GenerateContentResponse) (loopVerdict, error) {
	text := strings.TrimSpace(responseText(resp))
	if text == "" {
		return loopVerdict{}, fmt.Errorf("%w: it is empty", errNotJSON)
	}
	// Models sometimes fence JSON although asked for JSON alone.
	if strings.HasPrefix(text, "```json") && strings.HasSuffix(text, "```") {
		text = strings.TrimSpace(text[len("```json") : len(text)-len("```")])
	}
	if !json.Valid([]byte(text)) {
		return loopVerdict{}, fmt.Errorf("%w: %.80q", errNotJSON, text)
	}
	var v struct {
		Analysis   any `json:"unproductive_state_analysis"`
		Confidence any `json:"unproductive_state_confidence"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return loopVerdict{}, fmt.Errorf("the answer is not a JSON object: %.80q", text)
	}
	c, ok := v.Confidence.(float64)
	if !ok {
		return loopVerdict{}, fmt.Errorf("unproductive_state_confidence is %v, not a number", v.Confidence)
	}
	a, _ := v.Analysis.(string)
	return loopVerdict{analysis: a, confidence: c}, nil
}

// debugf writes a debug line through Config.Debug, if set.
func (r *run) debugf(format string, args ...any) {
	if d := r.s.cfg.Debug; d != nil {
		d(fmt.Sprintf(format, args...))
	}
}

// callsLoop applies the tool-call rule to the calls of a response. On a
// loop the calls are answered as cancelled, never run, so history stays
// valid; a first loop of the prompt adds Gemini CLI's feedback after the
// answers and the prompt goes on, a second stops it. It reports whether
// a loop was found and whether it stopped the prompt.
func (r *run) callsLoop(calls []*ToolCall, turn *ModelTurn) (found, stopped bool) {
	s := r.s
	for _, c := range calls {
		msg, loop := s.loops.toolCall(c.Name, c.Args)
		if !loop {
			continue
		}
		stop := r.strike(&ObservedLoop{Type: LoopToolCalls})
		if stop {
			r.emit(&Event{Type: EventLoopDetected, Text: msg})
		}
		b := &pendingBatch{promptID: r.promptID, calls: calls, turn: turn}
		parts := r.cancelPending(b, "Loop detected.")
		if !stop {
			r.debugf("loop: %s; the model is asked to change course", s.loops.detail)
			parts = append(parts, &genai.Part{Text: loopFeedback(s.loops.detail)})
		}
		s.appendHistory(&genai.Content{Role: genai.RoleUser, Parts: parts})
		r.recordTurn(b)
		if stop {
			r.fail(ErrLoopDetected)
		}
		return true, stop
	}
	return false, false
}

// loopRetold ends a response whose text a rule found chanting, the first
// loop of its prompt: the chanting is dropped, the model told, and the
// prompt goes on.
type loopRetold struct{ detail string }

func (e *loopRetold) Error() string { return "loop detected: " + e.detail }

// retell adds the feedback of a chanting response that loopRetold ended
// to the request it answered; the next response is judged afresh.
func (r *run) retell(e *loopRetold) {
	r.debugf("loop: %s; the model is asked to change course", e.detail)
	r.addFeedback(loopFeedback(e.detail))
	r.s.loops.resetText()
}
