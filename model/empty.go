package model

import (
	"errors"
	"time"

	"google.golang.org/genai"
)

// MaxEmptyRetries is how many times an empty model response is asked for
// again (Gemini CLI 0.61 retries three times).
const MaxEmptyRetries = 3

// emptyRetryDelay is the first wait before asking again for an empty
// response; it doubles with each retry (Gemini CLI waits 1 s × 2ⁿ).
const emptyRetryDelay = time.Second

// ErrEmptyResponse is the error of the retry notices sent when the model
// ended its response without text or function calls.
var ErrEmptyResponse = errors.New("the model returned an empty response")

// hasAnswer reports whether a chunk carries an answer: non-thought text or
// a function call.
func hasAnswer(c *genai.GenerateContentResponse) bool {
	if c == nil {
		return false
	}
	for _, cand := range c.Candidates {
		if cand == nil || cand.Content == nil {
			continue
		}
		for _, p := range cand.Content.Parts {
			if p != nil && (p.FunctionCall != nil || (p.Text != "" && !p.Thought)) {
				return true
			}
		}
	}
	return false
}

// emptyFinish reports whether a chunk ends the response normally (finish
// reason STOP). Blocked or truncated responses are not retried: asking
// again would give the same answer.
func emptyFinish(c *genai.GenerateContentResponse) bool {
	if c == nil || (c.PromptFeedback != nil && c.PromptFeedback.BlockReason != "") {
		return false
	}
	for _, cand := range c.Candidates {
		if cand != nil && cand.FinishReason == genai.FinishReasonStop {
			return true
		}
	}
	return false
}
