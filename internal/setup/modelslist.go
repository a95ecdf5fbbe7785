package setup

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/oauth"
	"github.com/castor-dev/castor/internal/routing"
	"github.com/castor-dev/castor/model"
)

// ProviderListing is one provider as `castor models` shows it: what is
// configured, and whether its server answered.
type ProviderListing struct {
	Name string `json:"name"`
	// Type is "gemini" or the providers setting's type ("openai").
	Type    string `json:"type"`
	BaseURL string `json:"baseUrl,omitempty"`
	// Source says where the provider comes from: a settings file, or
	// built in (with the variable it reads).
	Source string         `json:"source"`
	Models []ModelListing `json:"models"`
	// Served are the models the server lists (GET {baseUrl}/models).
	Served []string `json:"served,omitempty"`
	// Checked: the server was asked; Reachable: it answered a list.
	Checked   bool `json:"checked"`
	Reachable bool `json:"reachable"`
	// Error says why it is not reachable, or not usable.
	Error string `json:"error,omitempty"`
	// Note is about the provider's credentials or why it was not asked.
	Note string `json:"note,omitempty"`
}

// ModelListing is one configured model.
type ModelListing struct {
	// Name is what -m takes ("local/qwen3-coder", "flash").
	Name string `json:"name"`
	// Is says what an alias resolves to.
	Is            string        `json:"is,omitempty"`
	ContextWindow int           `json:"contextWindow,omitempty"`
	Price         *PriceListing `json:"price,omitempty"`
}

// PriceListing is a model's price in US dollars per million tokens.
type PriceListing struct {
	Input       float64 `json:"inputPerMTok"`
	CachedInput float64 `json:"cachedInputPerMTok"`
	Output      float64 `json:"outputPerMTok"`
	// CacheWrite is input written to the prompt cache (Anthropic's).
	CacheWrite float64 `json:"cacheWritePerMTok,omitempty"`
}

// priceListing is p as listed, nil for no price.
func priceListing(p model.Price) *PriceListing {
	if p == (model.Price{}) {
		return nil
	}
	l := &PriceListing{p.InputPerMTok, cmp.Or(p.CachedPerMTok, p.InputPerMTok), p.OutputPerMTok, 0}
	if p.CacheWritePerMTok != p.InputPerMTok {
		l.CacheWrite = p.CacheWritePerMTok
	}
	return l
}

// lister is a provider's transport that can ask its server for its
// models (model/openai).
type lister interface {
	BaseURL() string
	ListModels(ctx context.Context) ([]string, error)
}

// ListModels lists the models the settings and environment configure:
// Gemini's (its credentials said), then each provider's; Gemini's API
// (with a key) and every provider's server are asked for their models
// within timeout, all at once.
func ListModels(ctx context.Context, st *config.Settings, getenv func(string) string, timeout time.Duration) []ProviderListing {
	price := priceTable(st)
	priceOf := func(name string) *PriceListing { return priceListing(price(name)) }
	// The key the terminal's auth dialog stored stands in for
	// GEMINI_API_KEY here as it does in a session (geminiClient).
	envOnly := getenv
	store := oauth.NewStore(config.ResolveHome(func(k string) (string, bool) {
		v := envOnly(k)
		return v, v != ""
	}))
	getenv = oauth.WithStoredAPIKey(getenv, st.Security.Auth.SelectedType, store)
	note := geminiCredentials(st, getenv)
	if envOnly("GEMINI_API_KEY") == "" && getenv("GEMINI_API_KEY") != "" {
		note = "API key (stored by the auth dialog)"
	} else if _, err := store.LoadAPIKey(); err != nil && strings.HasPrefix(note, "no credentials") {
		note += " (the stored API key could not be read: " + err.Error() + ")"
	}
	gem := ProviderListing{Name: "gemini", Type: "gemini", Source: "built-in", Note: note}
	for _, a := range []string{routing.Auto, "pro", "flash", "flash-lite"} {
		is := routing.Resolve(a, false)
		if a == routing.Auto {
			is = "routed per prompt to " + routing.ProModel + " or " + routing.FlashModel
		}
		gem.Models = append(gem.Models, ModelListing{Name: a, Is: is})
	}
	for _, m := range []string{routing.ProModel, routing.FlashModel, routing.FlashLiteModel, "gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite"} {
		gem.Models = append(gem.Models, ModelListing{Name: m, Price: priceOf(m)})
	}
	out := []ProviderListing{gem}

	type probe struct {
		i int
		l lister
	}
	var probes []probe
	// Gemini is asked too when a session would call the Gemini API with
	// a key (geminilist.go); Vertex and Google sign-in have no such list.
	if !strings.HasPrefix(gem.Note, "Google sign-in") {
		if l, err := newGeminiLister(getenv); err != nil {
			out[0].Error = err.Error()
		} else if l != nil {
			out[0].BaseURL = l.BaseURL()
			probes = append(probes, probe{0, l})
		}
	}
	for _, name := range providerNames(st) {
		_, inSettings := st.Providers[name]
		if name == "openai" && !inSettings && getenv("OPENAI_API_KEY") == "" && getenv("OPENAI_BASE_URL") == "" {
			continue // not configured: nothing to list or ask
		}
		if name == "anthropic" && !inSettings && getenv("ANTHROPIC_API_KEY") == "" {
			continue
		}
		pl := ProviderListing{Name: name, Type: cmp.Or(map[string]string{"anthropic": "anthropic"}[name], "openai"), Source: cmp.Or(st.FileOf("providers", name), "built-in")}
		if !inSettings {
			pl.Source += map[string]string{"ollama": ", OLLAMA_HOST or Ollama's default address", "openai": ", OPENAI_API_KEY, OPENAI_BASE_URL", "anthropic": ", ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL"}[name]
		}
		if p, ok := st.Providers[name].(map[string]any); ok {
			if t, ok := p["type"].(string); ok {
				pl.Type = t
			}
			if ms, ok := p["models"].(map[string]any); ok {
				for _, m := range slices.Sorted(maps.Keys(ms)) {
					ml := ModelListing{Name: name + "/" + m, Price: priceOf(name + "/" + m)}
					if e, ok := ms[m].(map[string]any); ok {
						cw, _ := e["contextWindow"].(float64)
						ml.ContextWindow = int(cw)
					}
					pl.Models = append(pl.Models, ml)
				}
			}
		}
		c, _, err := providerClient(name+"/-", st, getenv)
		if l, ok := c.(lister); ok && err == nil {
			pl.BaseURL = l.BaseURL()
			probes = append(probes, probe{len(out), l})
		} else if err != nil {
			pl.Error = err.Error()
		} else {
			pl.Note = "not asked: Castor cannot list this type's models"
		}
		out = append(out, pl)
	}
	// Every server at once, so dead ones cost one timeout in all.
	var wg sync.WaitGroup
	for _, p := range probes {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			served, err := p.l.ListModels(ctx)
			pl := &out[p.i]
			pl.Checked, pl.Reachable, pl.Served = true, err == nil, served
			if err != nil {
				pl.Error = err.Error()
			}
		})
	}
	wg.Wait()
	return out
}

// geminiCredentials says which credentials a Gemini call would use.
func geminiCredentials(st *config.Settings, getenv func(string) string) string {
	switch {
	case strings.HasPrefix(st.Security.Auth.SelectedType, "oauth"), st.Security.Auth.SelectedType == "compute-default-credentials":
		return "Google sign-in (" + st.Security.Auth.SelectedType + ")"
	case strings.EqualFold(strings.TrimSpace(getenv("GOOGLE_GENAI_USE_VERTEXAI")), "true"):
		return "Vertex AI (GOOGLE_GENAI_USE_VERTEXAI)"
	case getenv("GEMINI_API_KEY") != "":
		return "API key (GEMINI_API_KEY)"
	case getenv("GOOGLE_API_KEY") != "":
		return "API key (GOOGLE_API_KEY)"
	}
	return "no credentials: set GEMINI_API_KEY, or run castor to sign in"
}

// ProviderModels are the models the providers setting names, as
// "provider/model" with their price, sorted by provider and model: what
// a model picker offers besides Gemini's.
func (a *Agent) ProviderModels() []ModelListing {
	var out []ModelListing
	for _, name := range slices.Sorted(maps.Keys(a.Settings.Providers)) {
		p, _ := a.Settings.Providers[name].(map[string]any)
		ms, _ := p["models"].(map[string]any)
		for _, m := range slices.Sorted(maps.Keys(ms)) {
			out = append(out, ModelListing{Name: name + "/" + m, Price: priceListing(a.Price(name + "/" + m))})
		}
	}
	return out
}

// CheckModel says whether a session can switch to model name: an error
// for a provider prefix that is no provider, or a provider whose
// settings are wrong, naming the setting.
func (a *Agent) CheckModel(name string) error {
	_, _, err := providerFor(name, a.Settings, a.Env.Getenv)
	return err
}
