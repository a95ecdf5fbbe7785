package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
)

// BaseURL is the API root the client talks to.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// ListModels asks the server which models it serves (GET
// {baseUrl}/models, as OpenAI, Ollama, llama.cpp's server, vLLM and LM
// Studio answer it); the ids come sorted. An error says the server is
// not reachable, or refused.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, c.cfg.BaseURL+"/models", nil)
	if err != nil {
		return nil, err
	}
	c.authorize(hr)
	resp, err := c.HTTPClient().Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("GET %s/models: %s: %s", c.cfg.BaseURL, resp.Status, errorMessage(raw))
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("GET %s/models: not a model list: %v", c.cfg.BaseURL, err)
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	sort.Strings(ids)
	return ids, nil
}
