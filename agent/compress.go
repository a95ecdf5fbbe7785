package agent

import (
	"strings"

	"github.com/google/uuid"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

func newID() string { return uuid.NewString() }

// compressionKeepFraction is the share of history (by characters) kept
// verbatim after a compression, as Gemini CLI keeps its latest 30%.
const compressionKeepFraction = 0.3

// compressionAck is the model turn that follows the summary.
const compressionAck = "Got it. Thanks for the additional context!"

// compressionPrompt is the system instruction of the summarising call.
const compressionPrompt = `You are the component that summarizes an agent's conversation history when it grows too large.

Distill the conversation into a structured XML snapshot. This snapshot is the agent's only memory of the past: everything essential (the user's goal, constraints, what was learned, which files were read or changed, what was done and what is left) must be in it. Omit pleasantries and anything no longer relevant.

First, reason in your scratchpad about what matters. Then write the snapshot in exactly this structure:

<state_snapshot>
    <overall_goal>The user's high-level objective, in one sentence.</overall_goal>
    <active_constraints>Rules and preferences the user stated or the work revealed.</active_constraints>
    <key_knowledge>Facts, conventions, commands and decisions to remember.</key_knowledge>
    <artifact_trail>Files and resources created, read or changed, and why.</artifact_trail>
    <file_system_state>The relevant state of the workspace now.</file_system_state>
    <recent_actions>The last actions taken and their results.</recent_actions>
    <task_state>The plan, with each step marked done, in progress or to do.</task_state>
</state_snapshot>`

// tokenLimit returns the context window of a model.
func tokenLimit(modelName string) int {
	switch {
	case strings.HasPrefix(modelName, "gemini-1.5-pro"):
		return 2_097_152
	case strings.HasPrefix(modelName, "gemini-2.0-flash-preview-image"):
		return 32_000
	}
	return 1_048_576
}

// estimateTokens approximates the token count of contents (4 characters a
// token), for when the service has not told us.
func estimateTokens(cs []*genai.Content) int32 {
	n := 0
	for _, c := range cs {
		n += contentChars(c)
	}
	return int32(n / 4)
}

func contentChars(c *genai.Content) int {
	if c == nil {
		return 0
	}
	n := 0
	for _, p := range c.Parts {
		if p == nil {
			continue
		}
		n += len(p.Text)
		if p.FunctionCall != nil {
			n += len(p.FunctionCall.Name) + 64
			for k, v := range p.FunctionCall.Args {
				n += len(k) + len(toJSONish(v))
			}
		}
		if p.FunctionResponse != nil {
			for k, v := range p.FunctionResponse.Response {
				n += len(k) + len(toJSONish(v))
			}
		}
		if p.InlineData != nil {
			n += 1000
		}
	}
	return n
}

func toJSONish(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return "0000000000000000"
}

// splitPoint returns the index of the first history entry to keep: the
// start of a user prompt (not a function response) such that about the
// latest 30% of the history's characters are kept.
func splitPoint(hist []*genai.Content) int {
	total := 0
	for _, c := range hist {
		total += contentChars(c)
	}
	target := float64(total) * (1 - compressionKeepFraction)
	acc := 0
	for i, c := range hist {
		if float64(acc) >= target && isUserPrompt(c) {
			return i
		}
		acc += contentChars(c)
	}
	// No clean split in the tail: compress everything but the last prompt.
	for i := len(hist) - 1; i > 0; i-- {
		if isUserPrompt(hist[i]) {
			return i
		}
	}
	return len(hist)
}

func isUserPrompt(c *genai.Content) bool {
	if c == nil || c.Role != genai.RoleUser {
		return false
	}
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return false
		}
	}
	return true
}

// maybeCompress replaces the older part of history with a model-written
// summary once the last prompt used more than the threshold of the window.
func (r *run) maybeCompress() {
	s := r.s
	s.mu.Lock()
	limit := s.cfg.TokenLimit
	if limit <= 0 && s.cfg.TokenLimitFor != nil {
		limit = s.cfg.TokenLimitFor(s.model)
	}
	if limit <= 0 {
		limit = tokenLimit(s.model)
	}
	threshold := s.cfg.CompressionThreshold
	if threshold <= 0 {
		threshold = 0.5
	}
	used := s.lastPrompt
	if used == 0 {
		used = estimateTokens(s.hist)
	}
	empty := len(s.hist) == 0
	s.mu.Unlock()
	// Gemini CLI 0.61 fires PreCompress (auto) on every compression
	// attempt, that is before every main-loop model call whose history
	// is not empty, and only then compares the size with the threshold.
	if empty {
		return
	}
	r.preCompress("auto")
	if float64(used) < threshold*float64(limit) {
		return
	}
	r.compress(used)
}

// compress summarises the older part of history (used is its size in
// tokens) and emits the outcome; the caller fired PreCompress. It
// returns nil when there is nothing to compress, and the model's error
// when the summary could not be had.
func (r *run) compress(used int32) (*CompressionInfo, error) {
	s := r.s
	s.mu.Lock()
	hist := cloneContents(s.hist)
	modelName := s.model
	s.mu.Unlock()
	split := splitPoint(hist)
	if split <= 1 || split >= len(hist) {
		return nil, nil
	}
	toCompress := append(cloneContents(hist[:split]), &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{
		Text: "First, reason in your scratchpad. Then, generate the <state_snapshot>.",
	}}})
	req := &model.Request{
		Model:    modelName,
		Contents: toCompress,
		Config: &genai.GenerateContentConfig{SystemInstruction: &genai.Content{
			Parts: []*genai.Part{{Text: compressionPrompt}},
		}},
		PromptID:  r.promptID,
		SessionID: s.cfg.SessionID,
	}
	info := &CompressionInfo{OriginalTokens: used}
	resp, err := s.cfg.Model.GenerateContent(r.ctx, req)
	if err != nil {
		info.Status = "COMPRESSION_FAILED"
		r.emit(&Event{Type: EventWarning, Text: "chat compression failed: " + err.Error()})
		return info, err
	}
	summary := strings.TrimSpace(responseText(resp))
	// The scratchpad before the snapshot is dropped (Index is -1
	// without one: the whole answer is kept).
	summary = summary[max(strings.Index(summary, "<state_snapshot>"), 0):]
	if summary == "" {
		info.Status = "COMPRESSION_FAILED_EMPTY_SUMMARY"
		r.compressed(info)
		r.emit(&Event{Type: EventCompressed, Compression: info})
		return info, nil
	}
	newHist := append([]*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{{Text: summary}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: compressionAck}}},
	}, hist[split:]...)
	info.NewTokens = estimateTokens(newHist)
	if info.NewTokens >= used {
		info.Status = "COMPRESSION_FAILED_INFLATED_TOKEN_COUNT"
		r.compressed(info)
		r.emit(&Event{Type: EventCompressed, Compression: info})
		return info, nil
	}
	info.Status = "COMPRESSED"
	s.mu.Lock()
	// Anything appended meanwhile (nothing, as the turn lock is held) stays.
	s.hist = append(newHist, s.hist[len(hist):]...)
	s.lastPrompt = info.NewTokens
	s.mu.Unlock()
	r.compressed(info)
	r.emit(&Event{Type: EventCompressed, Compression: info})
	return info, nil
}
