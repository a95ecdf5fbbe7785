// Package openai is a model.Model speaking the OpenAI chat-completions
// wire (POST {baseUrl}/chat/completions, streamed as server-sent events),
// which Ollama, llama.cpp's server, vLLM, LM Studio, OpenRouter and
// OpenAI itself answer.
//
// It is plain HTTP on purpose: the engine's currency is genai's types, so
// an SDK's own request and response types would be one more translation;
// compatible servers differ in small ways (reasoning vs
// reasoning_content, usage only on request) that a hand-written decoder
// takes in stride; and the binary stays without a second large generated
// API client.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// Config says where a provider is and how to talk to it.
type Config struct {
	// Provider is the name models are prefixed with ("local" in
	// "local/qwen3-coder"); the prefix is removed on the wire.
	Provider string
	// BaseURL is the API root, e.g. "http://127.0.0.1:11434/v1".
	BaseURL string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// Headers are sent with every request.
	Headers map[string]string
	// HTTPClient defaults to http.DefaultClient.
	HTTPClient *http.Client
}

// Client is a model.Model for one OpenAI-compatible provider.
type Client struct {
	model.ProviderBase
	cfg Config
}

// New returns a client for cfg.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("openai: no base URL")
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Client{ProviderBase: model.ProviderBase{Provider: cfg.Provider, HTTP: cfg.HTTPClient}, cfg: cfg}, nil
}

// GenerateContent makes one call and returns its chunks merged.
func (c *Client) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	return model.Collect(c.GenerateContentStream(ctx, req))
}

// GenerateContentStream posts one streamed chat completion and yields its
// deltas as genai chunks: text and reasoning as they come, the tool calls
// (assembled from their fragments) with the finish reason and usage.
func (c *Client) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		name := c.WireModel(req.Model)
		build := func(withTools bool) ([]byte, bool, error) { return encodeRequest(name, req, withTools) }
		// Ollama says "does not support tools".
		refuses := func(msg string) bool { return strings.Contains(strings.ToLower(msg), "tool") }
		resp, err := c.PostTools(name, build, func(body []byte) (*http.Response, error) { return c.post(ctx, body) }, refuses)
		if err != nil {
			yield(nil, err)
			return
		}
		defer resp.Body.Close()
		decodeStream(c.cfg.Provider, resp.Body, yield)
	}
}

func (c *Client) post(ctx context.Context, body []byte) (*http.Response, error) {
	resp, raw, err := c.PostStream(ctx, c.cfg.BaseURL+"/chat/completions", body, c.auth(), c.cfg.Headers)
	if err != nil || raw == nil {
		return resp, err
	}
	ae := &model.APIError{StatusCode: resp.StatusCode, Message: errorMessage(raw)}
	if resp.StatusCode == http.StatusUnauthorized {
		return nil, &model.AuthError{Err: fmt.Errorf("%s: %w", c.cfg.BaseURL, ae)}
	}
	return nil, ae
}

// auth is the key's header, when there is a key.
func (c *Client) auth() map[string]string {
	if c.cfg.APIKey == "" {
		return nil
	}
	return map[string]string{"Authorization": "Bearer " + c.cfg.APIKey}
}

// errorMessage is the message of an OpenAI error envelope, or the body.
func errorMessage(raw []byte) string {
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &env) == nil && len(env.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(env.Error, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
		var s string
		if json.Unmarshal(env.Error, &s) == nil && s != "" {
			return s
		}
	}
	return strings.TrimSpace(string(raw))
}
