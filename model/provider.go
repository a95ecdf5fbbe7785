package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"google.golang.org/genai"
)

// ProviderBase is what the transports of services other than Gemini
// share (model/openai, model/anthropic): the provider's name, which
// prefixes the names of its models; token counts estimated; and the
// memory of the models whose service refused tool declarations.
type ProviderBase struct {
	// Provider is the name models are prefixed with ("local" in
	// "local/qwen3-coder"); the prefix is removed on the wire.
	Provider string
	// HTTP defaults to http.DefaultClient.
	HTTP *http.Client

	noTools sync.Map
}

// WireModel is name without the provider's prefix.
func (b *ProviderBase) WireModel(name string) string {
	if b.Provider != "" {
		return strings.TrimPrefix(name, b.Provider+"/")
	}
	return name
}

// CountTokens estimates (EstimateTokens): these services have no
// counting endpoint, or one that would cost a round trip for a number
// the engine only plans with.
func (b *ProviderBase) CountTokens(_ context.Context, req *Request) (int32, error) {
	return EstimateTokens(req), nil
}

// PostTools sends a call for model name: build makes its body with the
// tool declarations or without them, post sends a body. When the service
// answers 400 with a message refusesTools recognises (a model without
// tool support), the call is made again without tools, and later calls
// for name skip the first try; build is told to say so to the model.
func (b *ProviderBase) PostTools(name string, build func(withTools bool) (body []byte, hasTools bool, err error),
	post func([]byte) (*http.Response, error), refusesTools func(msg string) bool) (*http.Response, error) {
	_, refused := b.noTools.Load(name)
	body, hasTools, err := build(!refused)
	if err != nil {
		return nil, err
	}
	resp, err := post(body)
	var ae *APIError
	if hasTools && errors.As(err, &ae) && ae.StatusCode == http.StatusBadRequest && refusesTools(ae.Message) {
		b.noTools.Store(name, true)
		if body, _, err = build(false); err == nil {
			resp, err = post(body)
		}
	}
	return resp, err
}

// NoToolsNote ends the system prompt of a model whose service refused
// tool declarations, so it answers in words instead of inventing calls.
const NoToolsNote = "\n\nNote: this model cannot call tools in this session; the tools described above are unavailable. Answer in text only."

// Text is a content's text without its thoughts, as a system prompt is
// sent to services that take it as a string.
func Text(c *genai.Content) string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range c.Parts {
		if p != nil && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// HTTPClient is the client calls go through: HTTP, else
// http.DefaultClient.
func (b *ProviderBase) HTTPClient() *http.Client {
	if b.HTTP != nil {
		return b.HTTP
	}
	return http.DefaultClient
}

// maxErrorBody bounds what is read of an error answer.
const maxErrorBody = 64 << 10

// PostStream posts a JSON body asking for server-sent events, with the
// headers of each map in turn (later ones win). A 2xx answer is returned
// for the caller to read; another comes back closed, with errBody what it
// said (up to 64 KiB), for the caller to word as its service's error.
func (b *ProviderBase) PostStream(ctx context.Context, url string, body []byte, headers ...map[string]string) (resp *http.Response, errBody []byte, err error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	for _, h := range headers {
		for k, v := range h {
			hr.Header.Set(k, v)
		}
	}
	resp, err = b.HTTPClient().Do(hr)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil, nil
	}
	defer resp.Body.Close()
	errBody, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return resp, errBody, nil
}

// ListIDs gets a model list in the shape OpenAI and Anthropic both
// answer ({"data":[{"id":…}]}), with the headers of each map in turn.
// A non-2xx answer comes back as its status and body (up to 4 MiB) with
// no error, for the caller to word as its service's error.
func (b *ProviderBase) ListIDs(ctx context.Context, url string, headers ...map[string]string) (ids []string, failed *http.Response, errBody []byte, err error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, h := range headers {
		for k, v := range h {
			hr.Header.Set(k, v)
		}
	}
	resp, err := b.HTTPClient().Do(hr)
	if err != nil {
		return nil, nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, resp, raw, nil
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, nil, nil, fmt.Errorf("GET %s: not a model list: %v", url, err)
	}
	ids = make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil, nil, nil
}
