package setup

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/anthropic"
)

// anthropicClient is the transport of a provider of type "anthropic". The
// provider named "anthropic" reads ANTHROPIC_API_KEY and
// ANTHROPIC_BASE_URL as Anthropic's own tools do; any such provider goes
// to Anthropic's API unless its baseUrl says otherwise. Its models'
// maxTokens and thinkingBudget are read from raw, the provider's
// settings object.
func anthropicClient(p provider, raw any, where string, getenv func(string) string) (model.Model, error) {
	key := ""
	if p.apiKeyEnv != "" {
		key = getenv(p.apiKeyEnv)
	}
	if p.name == "anthropic" {
		key = cmp.Or(key, getenv("ANTHROPIC_API_KEY"))
		p.baseURL = cmp.Or(p.baseURL, getenv("ANTHROPIC_BASE_URL"))
	}
	p.baseURL = cmp.Or(p.baseURL, anthropic.DefaultBaseURL)
	if key == "" && p.baseURL == anthropic.DefaultBaseURL {
		env := cmp.Or(p.apiKeyEnv, "ANTHROPIC_API_KEY")
		if p.name == "anthropic" && p.apiKeyEnv == "" {
			// The built-in provider, most likely not in any settings file.
			return nil, &model.AuthError{Err: errors.New("no API key for Anthropic's API: set ANTHROPIC_API_KEY")}
		}
		return nil, &model.AuthError{Err: fmt.Errorf("%s: providers.%s: no API key for Anthropic's API: set %s", where, p.name, env)}
	}
	models, err := anthropicModels(p.name, raw, where)
	if err != nil {
		return nil, err
	}
	c, err := anthropic.New(anthropic.Config{Provider: p.name, BaseURL: p.baseURL, APIKey: key, Headers: p.headers, Models: models, HTTPClient: http.DefaultClient})
	if err != nil {
		return nil, configErrorf("%s: providers.%s: %v", where, p.name, err)
	}
	return c, nil
}

// anthropicModels reads providers.<name>.models.<m>.maxTokens and
// thinkingBudget, in key order so the error named is the same every run.
func anthropicModels(name string, raw any, where string) (map[string]anthropic.ModelConfig, error) {
	obj, _ := raw.(map[string]any)
	models, _ := obj["models"].(map[string]any)
	out := map[string]anthropic.ModelConfig{}
	for _, m := range slices.Sorted(maps.Keys(models)) {
		entry, _ := models[m].(map[string]any)
		var mc anthropic.ModelConfig
		for _, f := range []struct {
			key, want string
			least     float64
			dst       *int32
		}{{"maxTokens", "at least 1", 1, &mc.MaxTokens}, {"thinkingBudget", "tokens, or -1 for adaptive thinking", -1, &mc.ThinkingBudget}} {
			v, set := entry[f.key]
			if !set {
				continue
			}
			n, isNum := v.(float64)
			if !isNum || n != float64(int32(n)) || n < f.least {
				return nil, configErrorf("%s: providers.%s.models.%s.%s must be a whole number (%s)", where, name, m, f.key, f.want)
			}
			*f.dst = int32(n)
		}
		out[m] = mc
	}
	return out, nil
}

// anthropicPrice is the shipped price of model m of provider pname when
// that provider is of type "anthropic".
func anthropicPrice(st *config.Settings, pname, m string) (model.Price, bool) {
	if !isAnthropic(st, pname) {
		return model.Price{}, false
	}
	return anthropic.DefaultPrice(m)
}

// isAnthropic says whether provider pname speaks Anthropic's wire.
func isAnthropic(st *config.Settings, pname string) bool {
	p, ok, _ := readProvider(pname, st.Providers, "")
	return ok && p.typ == "anthropic"
}
