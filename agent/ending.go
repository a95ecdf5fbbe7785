package agent

import (
	"google.golang.org/genai"
)

// How a turn that ends early leaves the history.
//
// A request's contents must alternate between user and model, and every
// function call must be answered by the user content after it; Gemini CLI
// never sends anything else. A turn can end at any point (the consumer
// stops ranging, ctx is cancelled, the model fails mid-stream, max turns,
// loop detection, a hook's stop), so the engine keeps the history valid
// in two places rather than at each ending:
//
//   - the model's answer cut short keeps what it streamed (keepPartial):
//     its text, as the user saw it, becomes the model content of the turn;
//     calls it had begun are dropped, since none of them ran;
//   - a prompt that finds the history ending in user content (a prompt
//     the model never answered, or the responses of calls the turn
//     answered before it stopped) joins that content (appendPrompt)
//     rather than following it, as RepairHistory does with the answers of
//     calls left waiting for confirmation.
//
// Unanswered calls are answered where the turn stops (scheduler.go:
// abandon, complete, the loop detector) or by RepairHistory.

// partialContent is the model content kept from a response cut short:
// the curated parts without function calls, or nil when no text or data
// arrived.
func partialContent(parts []*genai.Part) *genai.Content {
	c := curateModelContent(parts)
	if c == nil {
		return nil
	}
	kept := make([]*genai.Part, 0, len(c.Parts))
	for _, p := range c.Parts {
		if p.FunctionCall == nil {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	c.Parts = kept
	return c
}

// keepPartial adds what a model response streamed before it was cut short
// to history, and records it, so that the next request does not hold the
// prompt twice in a row without an answer and a resumed session shows
// what the user saw.
func (r *run) keepPartial(parts []*genai.Part, modelName string) {
	c := partialContent(parts)
	if c == nil {
		return
	}
	r.s.appendHistory(c)
	if r.s.cfg.Recorder == nil {
		return
	}
	turn := &ModelTurn{ID: newID(), Time: r.s.cfg.Now(), Content: c, Model: modelName, Thoughts: r.thoughts, Text: answerText(c)}
	r.s.cfg.Recorder.RecordModel(turn)
}

// joinUserContents joins user contents that follow one another, as a
// recorded conversation holds them when a turn ended before the model
// answered (Gemini CLI records the same), or when IDE context went as a
// content of its own. Other contents are kept as they are; the joined
// ones are new contents.
func joinUserContents(h []*genai.Content) []*genai.Content {
	out := h[:0:0]
	for _, c := range h {
		n := len(out)
		if c == nil || c.Role != genai.RoleUser || n == 0 || out[n-1] == nil || out[n-1].Role != genai.RoleUser {
			out = append(out, c)
			continue
		}
		parts := make([]*genai.Part, 0, len(out[n-1].Parts)+len(c.Parts))
		parts = append(parts, out[n-1].Parts...)
		parts = append(parts, c.Parts...)
		out[n-1] = &genai.Content{Role: genai.RoleUser, Parts: parts}
	}
	return out
}

// appendPrompt adds a prompt's user content to history, joining the user
// content the history ends with, if any, so that roles keep alternating.
// The content at the end is replaced, not changed: requests already sent
// share it.
func (s *Session) appendPrompt(c *genai.Content) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.hist)
	if n == 0 || s.hist[n-1] == nil || s.hist[n-1].Role != genai.RoleUser {
		s.hist = append(s.hist, c)
		return
	}
	last := s.hist[n-1]
	parts := make([]*genai.Part, 0, len(last.Parts)+len(c.Parts))
	parts = append(parts, last.Parts...)
	parts = append(parts, c.Parts...)
	s.hist[n-1] = &genai.Content{Role: genai.RoleUser, Parts: parts}
}
