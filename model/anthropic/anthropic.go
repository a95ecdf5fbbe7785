// Package anthropic is a model.Model speaking Anthropic's Messages API
// (POST {baseUrl}/v1/messages, streamed as server-sent events).
//
// It is plain HTTP, as model/openai is: the engine's currency is genai's
// types, so the official SDK's types would be one more translation, and
// linking the SDK's client made the castor binary 9.5 MB larger (39.6 to
// 49.2 MB, stripped) for one endpoint. Tests check the bodies sent
// against the SDK's own types (internal/fakeanthropic).
//
// Thinking blocks come back to the API unchanged in the assistant turn
// that had them (thinking.go); the system prompt and the conversation so
// far are marked for prompt caching, whose reads are priced as cached
// input.
package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// Version is the anthropic-version header sent.
const Version = "2023-06-01"

// DefaultBaseURL is Anthropic's API root.
const DefaultBaseURL = "https://api.anthropic.com"

// Config says where a provider is and how to talk to it.
type Config struct {
	// Provider is the name models are prefixed with ("anthropic" in
	// "anthropic/claude-sonnet-4-5"); the prefix is removed on the wire.
	Provider string
	// BaseURL is the API root, without /v1 (as ANTHROPIC_BASE_URL);
	// a trailing /v1 is taken too.
	BaseURL string
	// APIKey is sent as x-api-key.
	APIKey string
	// Headers are sent with every request (anthropic-beta, say).
	Headers map[string]string
	// Models are settings per model name (without the provider prefix).
	Models map[string]ModelConfig
	// HTTPClient defaults to http.DefaultClient.
	HTTPClient *http.Client
}

// ModelConfig is what a provider's settings say of one model.
type ModelConfig struct {
	// MaxTokens is the max_tokens sent (the API requires one); zero
	// means the request's, else DefaultMaxTokens.
	MaxTokens int32
	// ThinkingBudget turns extended thinking on with that many tokens;
	// -1 asks for adaptive thinking; zero leaves it to the request.
	ThinkingBudget int32
}

// Client is a model.Model for one Anthropic provider.
type Client struct {
	model.ProviderBase
	cfg Config
}

// New returns a client for cfg.
func New(cfg Config) (*Client, error) {
	if u, err := url.Parse(cfg.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q is not an http(s) URL", cfg.BaseURL)
	}
	cfg.BaseURL = strings.TrimSuffix(strings.TrimRight(cfg.BaseURL, "/"), "/v1")
	c := &Client{cfg: cfg}
	c.Provider, c.HTTP = cfg.Provider, cfg.HTTPClient
	return c, nil
}

// GenerateContent makes one call and returns its chunks merged.
func (c *Client) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	return model.Collect(c.GenerateContentStream(ctx, req))
}

// GenerateContentStream posts one streamed message and yields its events
// as genai chunks.
func (c *Client) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		name := c.WireModel(req.Model)
		mc := c.cfg.Models[name]
		var enc encoded
		build := func(withTools bool) ([]byte, bool, error) {
			var err error
			enc, err = encodeRequest(name, mc, req, withTools)
			return enc.body, enc.hasTools, err
		}
		resp, err := c.PostTools(name, build, func(body []byte) (*http.Response, error) { return c.post(ctx, body) }, refusesTools)
		if err != nil {
			yield(nil, err)
			return
		}
		defer resp.Body.Close()
		// Named as the user names it, so stats and prices agree (the API
		// answers with the dated snapshot an alias stands for).
		decodeStream(req.Model, enc.names, resp.Body, yield)
	}
}

// refusesTools reports whether a 400's message says the model cannot use
// tools, as servers speaking this wire for local models word it.
func refusesTools(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "tool") && (strings.Contains(m, "not support") || strings.Contains(m, "unsupported"))
}

func (c *Client) post(ctx context.Context, body []byte) (*http.Response, error) {
	resp, raw, err := c.PostStream(ctx, c.cfg.BaseURL+"/v1/messages", body, c.auth(), c.cfg.Headers)
	if err != nil || raw == nil {
		return resp, err
	}
	return nil, c.failure(resp, raw)
}

// auth is the headers every call carries.
func (c *Client) auth() map[string]string {
	h := map[string]string{"anthropic-version": Version}
	if c.cfg.APIKey != "" {
		h["x-api-key"] = c.cfg.APIKey
	}
	return h
}

// failure is the error a non-2xx answer says: an AuthError for a refused
// key, else an APIError.
func (c *Client) failure(resp *http.Response, raw []byte) error {
	var env struct {
		Error *ErrorBody `json:"error"`
	}
	e := ErrorBody{Message: strings.TrimSpace(string(raw))}
	if json.Unmarshal(raw, &env) == nil && env.Error != nil {
		e = *env.Error
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	ae := apiError(resp.StatusCode, resp.Header, e)
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden && e.Type == "authentication_error" {
		return &model.AuthError{Err: fmt.Errorf("%s: %w (check the provider's API key)", c.cfg.BaseURL, ae)}
	}
	return ae
}

// apiError is e as the retrier knows errors: 429 and 529 (overloaded)
// are retried, after the retry-after the service asked for.
func apiError(status int, h http.Header, e ErrorBody) *model.APIError {
	ae := &model.APIError{StatusCode: status, Status: e.Type, Message: e.Message}
	if h != nil {
		ae.RetryAfter = model.ParseRetryAfter(h.Get("Retry-After"), time.Now())
	}
	switch e.Type {
	case "overloaded_error":
		ae.Message = "Anthropic's API is overloaded, try again later (" + e.Message + ")"
	case "rate_limit_error":
		ae.Message = "Anthropic's rate limit was reached (" + e.Message + ")"
	}
	return ae
}
