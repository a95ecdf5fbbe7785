package anthropic

import "context"

// BaseURL is the API root calls go to.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// ListModels asks the API which models it serves (GET /v1/models, the
// first page of up to 1,000), for `castor models`.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	ids, failed, raw, err := c.ListIDs(ctx, c.cfg.BaseURL+"/v1/models?limit=1000", c.auth(), c.cfg.Headers)
	if failed != nil {
		return nil, c.failure(failed, raw)
	}
	return ids, err
}
