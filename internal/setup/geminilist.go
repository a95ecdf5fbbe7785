package setup

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/castor-dev/castor/model/gemini"
)

// geminiLister asks the Gemini API which models it serves (GET
// {base}/v1beta/models, page by page), with the key, endpoint and headers
// a session's calls would use.
type geminiLister struct{ cfg gemini.Config }

// newGeminiLister is the lister of the Gemini API a session would call,
// nil when its calls would go elsewhere (Vertex, Google sign-in) or have
// no key.
func newGeminiLister(getenv func(string) string) (*geminiLister, error) {
	cfg, err := gemini.ConfigFromEnv(getenv)
	if err != nil || cfg.Vertex || cfg.APIKey == "" {
		return nil, err
	}
	return &geminiLister{cfg}, nil
}

// BaseURL is the API root the list is asked of.
func (g *geminiLister) BaseURL() string {
	return strings.TrimSuffix(cmp.Or(g.cfg.BaseURL, "https://generativelanguage.googleapis.com"), "/") + "/" + cmp.Or(g.cfg.APIVersion, "v1beta")
}

// ListModels is the models that answer generateContent, without their
// "models/" prefix, as -m takes them.
func (g *geminiLister) ListModels(ctx context.Context) ([]string, error) {
	var names []string
	token := ""
	for page := 0; page < 50; page++ {
		u := g.BaseURL() + "/models?pageSize=1000"
		if token != "" {
			u += "&pageToken=" + url.QueryEscape(token)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		for k, v := range g.cfg.Headers {
			req.Header[k] = v
		}
		if g.cfg.BearerAuth {
			req.Header.Set("Authorization", "Bearer "+g.cfg.APIKey)
		} else {
			req.Header.Set("x-goog-api-key", g.cfg.APIKey)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("GET %s/models: %v", g.BaseURL(), err)
		}
		var body struct {
			Models []struct {
				Name                       string   `json:"name"`
				SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
			} `json:"models"`
			NextPageToken string `json:"nextPageToken"`
			Error         *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		jerr := json.Unmarshal(raw, &body)
		if resp.StatusCode/100 != 2 {
			msg := strings.TrimSpace(string(raw))
			if jerr == nil && body.Error != nil {
				msg = body.Error.Message
			}
			return nil, fmt.Errorf("GET %s/models: %s: %s", g.BaseURL(), resp.Status, msg)
		}
		if jerr != nil {
			return nil, fmt.Errorf("GET %s/models: not a model list: %v", g.BaseURL(), jerr)
		}
		for _, m := range body.Models {
			if slices.Contains(m.SupportedGenerationMethods, "generateContent") {
				names = append(names, strings.TrimPrefix(m.Name, "models/"))
			}
		}
		if token = body.NextPageToken; token == "" {
			break
		}
	}
	return names, nil
}
