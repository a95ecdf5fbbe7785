// Package model defines the streaming model interface the engine talks to,
// and the retry and fallback behaviour shared by every transport.
//
// Requests and responses use google.golang.org/genai types, so every
// transport (Gemini API, Vertex, Code Assist, scripted fakes) speaks the same
// message currency as the rest of Castor.
//
// Empty answers (no text, no function call) are asked for again by the
// Retrier, up to MaxEmptyRetries times (empty.go), its held-back final
// chunk keeping the retry invisible to the engine.
package model

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"time"

	"google.golang.org/genai"
)

// Model is a transport to a Gemini-compatible model service.
type Model interface {
	// GenerateContent makes one unary call.
	GenerateContent(ctx context.Context, req *Request) (*genai.GenerateContentResponse, error)
	// GenerateContentStream makes one streaming call. The sequence ends after
	// the last chunk, or after yielding a single non-nil error.
	GenerateContentStream(ctx context.Context, req *Request) iter.Seq2[*genai.GenerateContentResponse, error]
	// CountTokens counts the tokens of req's contents.
	CountTokens(ctx context.Context, req *Request) (int32, error)
}

// Request is one call to a model.
type Request struct {
	// Model is the model id, e.g. "gemini-2.5-pro".
	Model string
	// Contents is the whole conversation to send, oldest first.
	Contents []*genai.Content
	// Config carries the system instruction, tools and generation settings.
	Config *genai.GenerateContentConfig
	// PromptID identifies the user prompt this call serves (Code Assist's
	// user_prompt_id); SessionID the session (Code Assist's session_id).
	PromptID  string
	SessionID string
	// Observe, when set, is told about retries and fallbacks as they happen.
	Observe func(Notice)
}

// Clone returns a shallow copy of r with its own Contents slice.
func (r *Request) Clone() *Request {
	c := *r
	c.Contents = append([]*genai.Content(nil), r.Contents...)
	return &c
}

// PackedSignaturePrefix begins every Part.ThoughtSignature that a
// provider other than Gemini packs its own reasoning state into (the
// Anthropic transport keeps a turn's thinking blocks there). Gemini
// cannot read such a signature: its transport drops it, or replaces it
// on a function call with the placeholder Gemini takes for a call whose
// signature is unknown, after a switch of model.
const PackedSignaturePrefix = "castor."

// NoticeKind says what a Notice reports.
type NoticeKind string

// Notice kinds.
const (
	// NoticeRetry: a call failed and will be tried again after Delay.
	NoticeRetry NoticeKind = "retry"
	// NoticeFallback: quota on From is exhausted; later calls use To.
	NoticeFallback NoticeKind = "fallback"
	// NoticeUtility: the transport made a call of its own for this request
	// (the model router's classifier); Model, Role, Latency, Usage and Err
	// describe it so the caller can count it in its stats.
	NoticeUtility NoticeKind = "utility"
	// NoticeRouted: the model router chose the prompt's model (Model),
	// by the rule Source, with Reasoning, in Latency; Err is set when
	// it could not ask and took its default.
	NoticeRouted NoticeKind = "routed"
)

// Notice reports something the transport layer did on the caller's behalf.
type Notice struct {
	Kind    NoticeKind
	Attempt int           // the attempt that failed, from 1
	Delay   time.Duration // wait before the next attempt
	Err     error         // the failure that caused it
	From    string        // model before a fallback
	To      string        // model after a fallback

	// Utility calls (NoticeUtility), and retries of a failed call.
	Model   string        // model asked (for utility calls: the version that answered)
	Role    string        // Gemini CLI's LlmRole, e.g. "utility_router"
	Latency time.Duration // duration of the call
	Usage   *genai.GenerateContentResponseUsageMetadata

	// Routing decisions (NoticeRouted).
	Source    string // the rule that chose, e.g. "agent-router/Classifier"
	Reasoning string // the classifier's explanation
}

// APIError is an error answered by the model service.
type APIError struct {
	// StatusCode is the HTTP status code (429, 503, ...).
	StatusCode int
	// Status is the Google RPC status name, e.g. "RESOURCE_EXHAUSTED".
	Status string
	// Message is the service's explanation.
	Message string
	// RetryAfter is the server's requested delay (Retry-After header or
	// RetryInfo detail); zero when none was given.
	RetryAfter time.Duration
	// Details are the google.rpc error details of the Google error envelope
	// (ErrorInfo, RetryInfo, QuotaFailure, ...), kept raw so callers can
	// tell a per-minute limit from an exhausted daily quota.
	Details []map[string]any
}

func (e *APIError) Error() string {
	if e.Status != "" {
		return fmt.Sprintf("model API error %d %s: %s", e.StatusCode, e.Status, e.Message)
	}
	return fmt.Sprintf("model API error %d: %s", e.StatusCode, e.Message)
}

// Retryable reports whether a call that failed this way may succeed if
// tried again: 429, 499 and 5xx.
func (e *APIError) Retryable() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode == 499 || e.StatusCode >= 500
}

// ErrStreamCut is wrapped by errors from a stream that ended without a
// finish reason, after it had already produced chunks.
var ErrStreamCut = errors.New("model stream ended before it was complete")

// HasFinish reports whether resp ends the turn: a candidate with a finish
// reason, or a blocked prompt (which comes without candidates). Transports
// use it to tell a complete stream from one that was cut off (see
// UnfinishedStreamError).
func HasFinish(resp *genai.GenerateContentResponse) bool {
	if resp == nil {
		return false
	}
	if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
		return true
	}
	for _, c := range resp.Candidates {
		if c != nil && c.FinishReason != "" && c.FinishReason != genai.FinishReasonUnspecified {
			return true
		}
	}
	return false
}

// UnfinishedStreamError is the error a transport yields when a stream ends
// cleanly after chunks chunks, none of which ended the turn (see
// HasFinish). It wraps ErrStreamCut, which the retry logic retries; being
// shared, it words the failure the same whichever transport saw it.
func UnfinishedStreamError(chunks int) error {
	if chunks == 0 {
		return fmt.Errorf("%w: the model sent no response", ErrStreamCut)
	}
	return fmt.Errorf("%w: no finish reason after %d chunks", ErrStreamCut, chunks)
}

// ModelError is the error of a call that failed for good, with the model
// it last went to. Its message is the underlying error's.
type ModelError struct {
	Model string
	Err   error
}

func (e *ModelError) Error() string { return e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// FailedModel returns the model a failed call last went to, as told by a
// ModelError in err's chain, or def.
func FailedModel(err error, def string) string {
	var me *ModelError
	if errors.As(err, &me) && me.Model != "" {
		return me.Model
	}
	return def
}

// AuthError reports missing or rejected credentials; the CLI exits 41.
type AuthError struct{ Err error }

func (e *AuthError) Error() string { return e.Err.Error() }
func (e *AuthError) Unwrap() error { return e.Err }

// IsQuotaError reports whether err is a 429 from the service.
func IsQuotaError(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.StatusCode == http.StatusTooManyRequests
}
