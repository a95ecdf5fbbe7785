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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"sync"
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
	cfg Config
	hc  *http.Client
	// noTools remembers the models whose service refused tools, so later
	// calls do not ask again.
	noTools sync.Map
}

// New returns a client for cfg.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("anthropic: no base URL")
	}
	cfg.BaseURL = strings.TrimSuffix(strings.TrimRight(cfg.BaseURL, "/"), "/v1")
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{cfg: cfg, hc: hc}, nil
}

// wireModel is name without the provider's prefix.
func (c *Client) wireModel(name string) string {
	if c.cfg.Provider != "" {
		return strings.TrimPrefix(name, c.cfg.Provider+"/")
	}
	return name
}

// GenerateContent makes one call and returns its chunks merged.
func (c *Client) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	return model.Collect(c.GenerateContentStream(ctx, req))
}

// CountTokens estimates: the API's count_tokens endpoint would cost a
// round trip for a number the engine only plans with.
func (c *Client) CountTokens(_ context.Context, req *model.Request) (int32, error) {
	return model.EstimateTokens(req), nil
}

// GenerateContentStream posts one streamed message and yields its events
// as genai chunks.
func (c *Client) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		name := c.wireModel(req.Model)
		mc := c.cfg.Models[name]
		_, refused := c.noTools.Load(name)
		enc, err := encodeRequest(name, mc, req, !refused)
		if err != nil {
			yield(nil, err)
			return
		}
		resp, err := c.post(ctx, enc.body)
		var ae *model.APIError
		if enc.hasTools && errors.As(err, &ae) && ae.StatusCode == http.StatusBadRequest && refusesTools(ae.Message) {
			// The service cannot do tools with this model (a compatible
			// server's small model): ask again without them, and say so.
			c.noTools.Store(name, true)
			if enc, err = encodeRequest(name, mc, req, false); err == nil {
				resp, err = c.post(ctx, enc.body)
			}
		}
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
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	hr.Header.Set("anthropic-version", Version)
	if c.cfg.APIKey != "" {
		hr.Header.Set("x-api-key", c.cfg.APIKey)
	}
	for k, v := range c.cfg.Headers {
		hr.Header.Set(k, v)
	}
	resp, err := c.hc.Do(hr)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
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
		return nil, &model.AuthError{Err: fmt.Errorf("%s: %w (check the provider's API key)", c.cfg.BaseURL, ae)}
	}
	return nil, ae
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
