package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// BaseURL is the API root calls go to.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// ListModels asks the API which models it serves (GET /v1/models, the
// first page of up to 1,000), for `castor models`.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, c.cfg.BaseURL+"/v1/models?limit=1000", nil)
	if err != nil {
		return nil, err
	}
	for _, h := range []map[string]string{c.auth(), c.cfg.Headers} {
		for k, v := range h {
			hr.Header.Set(k, v)
		}
	}
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
		return nil, c.failure(resp, raw)
	}
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, fmt.Errorf("%s/v1/models: %v", c.cfg.BaseURL, err)
	}
	ids := make([]string, 0, len(page.Data))
	for _, m := range page.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}
