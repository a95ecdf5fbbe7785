package openai

import (
	"context"
	"fmt"
	"sort"
)

// BaseURL is the API root the client talks to.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// ListModels asks the server which models it serves (GET
// {baseUrl}/models, as OpenAI, Ollama, llama.cpp's server, vLLM and LM
// Studio answer it); the ids come sorted. An error says the server is
// not reachable, or refused.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	ids, failed, raw, err := c.ListIDs(ctx, c.cfg.BaseURL+"/models", c.auth(), c.cfg.Headers)
	if failed != nil {
		return nil, fmt.Errorf("GET %s/models: %s: %s", c.cfg.BaseURL, failed.Status, errorMessage(raw))
	}
	if err != nil {
		return nil, err
	}
	sort.Strings(ids)
	return ids, nil
}
