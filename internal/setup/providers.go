package setup

import (
	"cmp"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/openai"
)

// defaultOpenAIBaseURL is where the built-in "openai" provider goes
// unless OPENAI_BASE_URL says otherwise.
const defaultOpenAIBaseURL = "https://api.openai.com/v1"

// provider is one entry of the providers setting, read.
type provider struct {
	name, typ, baseURL, apiKeyEnv string
	headers                       map[string]string
}

// providerClient returns the transport for a model named
// "provider/model" when provider is one of the providers setting's, or
// "openai" (OPENAI_API_KEY, OPENAI_BASE_URL, as OpenAI's own tools read
// them) or "anthropic" (anthropic.go); ok is false for every other name,
// which Gemini serves.
func providerClient(name string, st *config.Settings, getenv func(string) string) (m model.Model, ok bool, err error) {
	pname, _, found := strings.Cut(name, "/")
	if !found {
		return nil, false, nil
	}
	// Errors name the file to fix.
	where := cmp.Or(st.FileOf("providers", pname), "settings")
	p, ok, err := readProvider(pname, st.Providers, where)
	if !ok || err != nil {
		return nil, ok, err
	}
	switch p.typ {
	case "anthropic":
		m, err := anthropicClient(p, st.Providers[pname], where, getenv)
		return m, true, err
	case "openai":
	default:
		return nil, true, configErrorf("%s: providers.%s.type %q is not supported (Castor speaks \"openai\", OpenAI-compatible chat completions, and \"anthropic\", Anthropic's Messages API)", where, pname, p.typ)
	}
	key := ""
	if p.apiKeyEnv != "" {
		key = getenv(p.apiKeyEnv)
	}
	if pname == "openai" {
		if key == "" {
			key = getenv("OPENAI_API_KEY")
		}
		if p.baseURL == "" {
			p.baseURL = getenv("OPENAI_BASE_URL")
		}
		if p.baseURL == "" {
			p.baseURL = defaultOpenAIBaseURL
		}
	}
	if pname == "ollama" && p.baseURL == "" {
		p.baseURL = ollamaBaseURL(getenv("OLLAMA_HOST")) // providermux.go
	}
	if p.baseURL == "" {
		return nil, true, configErrorf("%s: providers.%s.baseUrl is missing (e.g. \"http://127.0.0.1:11434/v1\")", where, pname)
	}
	c, err := openai.New(openai.Config{Provider: pname, BaseURL: p.baseURL, APIKey: key, Headers: p.headers, HTTPClient: http.DefaultClient})
	if err != nil {
		return nil, true, configErrorf("%s: providers.%s: %v", where, pname, err)
	}
	return c, true, nil
}

// readProvider reads providers.<name>; "openai", "ollama" and "anthropic"
// exist even unset, each of its own type.
func readProvider(name string, providers map[string]any, where string) (provider, bool, error) {
	p := provider{name: name, typ: "openai"}
	if name == "anthropic" {
		p.typ = "anthropic"
	}
	raw, ok := providers[name]
	if !ok {
		return p, name == "openai" || name == "ollama" || name == "anthropic", nil
	}
	obj, isObj := raw.(map[string]any)
	if !isObj {
		return p, true, configErrorf("%s: providers.%s must be an object", where, name)
	}
	// In key order, so the error named is the same every run.
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		str := func(dst *string) error {
			s, isStr := v.(string)
			if !isStr {
				return configErrorf("%s: providers.%s.%s must be a string", where, name, k)
			}
			*dst = s
			return nil
		}
		var err error
		switch k {
		case "type":
			err = str(&p.typ)
		case "baseUrl":
			err = str(&p.baseURL)
		case "apiKeyEnv":
			err = str(&p.apiKeyEnv)
		case "headers":
			h, isObj := v.(map[string]any)
			if !isObj {
				return p, true, configErrorf("%s: providers.%s.headers must be an object of strings", where, name)
			}
			p.headers = make(map[string]string, len(h))
			for hk, hv := range h {
				s, isStr := hv.(string)
				if !isStr {
					return p, true, configErrorf("%s: providers.%s.headers.%s must be a string", where, name, hk)
				}
				p.headers[hk] = s
			}
		}
		if err != nil {
			return p, true, err
		}
	}
	return p, true, nil
}

// providerRetry is the retry options for a provider: no Gemini fallback
// chain, the rest as configured.
func providerRetry(ro model.RetryOptions) model.RetryOptions {
	ro.Fallback = nil
	return ro
}

// priceTable prices a model: a provider model's own entry
// (providers.<p>.models.<m>.inputPricePerMTok, cachedInputPricePerMTok,
// outputPricePerMTok, cacheWritePricePerMTok), else Gemini's shipped
// prices, else nothing.
func priceTable(st *config.Settings) func(string) model.Price {
	return func(name string) model.Price {
		if pname, mname, ok := strings.Cut(name, "/"); ok {
			if m := modelEntry(st, pname, mname); m != nil {
				num := func(k string) float64 { f, _ := m[k].(float64); return f }
				price := model.Price{InputPerMTok: num("inputPricePerMTok"), CachedPerMTok: num("cachedInputPricePerMTok"),
					OutputPerMTok: num("outputPricePerMTok"), CacheWritePerMTok: num("cacheWritePricePerMTok")}
				if _, set := m["cacheWritePricePerMTok"]; !set && isAnthropic(st, pname) {
					// Anthropic bills a 5-minute cache write at 1.25× input.
					price.CacheWritePerMTok = 1.25 * price.InputPerMTok
				}
				return price
			}
			if p, ok := anthropicPrice(st, pname, mname); ok {
				return p
			}
		}
		p, _ := model.DefaultPrice(name)
		return p
	}
}

// Price is what model name costs per million tokens: its provider's
// models entry, else Anthropic's or Gemini's public price, else zero.
func (a *Agent) Price(name string) model.Price { return priceTable(a.Settings)(name) }

// Context windows assumed for a provider's model whose models entry
// names no contextWindow: Claude's 200k; Ollama's own default context
// (4,096 tokens, beyond which it drops the oldest input); and 128k,
// what most models behind an OpenAI-compatible server take.
const (
	anthropicWindow = 200_000
	ollamaWindow    = 4_096
	openAIWindow    = 128_000
)

// ContextWindow is how many tokens model name takes in: a provider
// model's contextWindow in its models entry, else its provider's default;
// 0 for a Gemini model (the engine knows those).
func (a *Agent) ContextWindow(name string) int {
	pname, mname, ok := strings.Cut(name, "/")
	if !ok {
		return 0
	}
	p, ok, _ := readProvider(pname, a.Settings.Providers, "")
	if !ok {
		return 0 // models/…, projects/…: Gemini's
	}
	if cw, _ := modelEntry(a.Settings, pname, mname)["contextWindow"].(float64); cw >= 1 {
		return int(cw)
	}
	switch {
	case p.typ == "anthropic":
		return anthropicWindow
	case pname == "ollama":
		return ollamaWindow
	}
	return openAIWindow
}

// modelEntry is providers.<pname>.models.<mname> in the settings, nil
// without one.
func modelEntry(st *config.Settings, pname, mname string) map[string]any {
	p, _ := st.Providers[pname].(map[string]any)
	models, _ := p["models"].(map[string]any)
	m, _ := models[mname].(map[string]any)
	return m
}
