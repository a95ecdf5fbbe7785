package setup

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/model"
)

// TestProviderClient: which names a provider serves, and the errors of
// its settings, each naming the key.
func TestProviderClient(t *testing.T) {
	st := &config.Settings{Providers: map[string]any{
		"local": map[string]any{"baseUrl": "http://127.0.0.1:1/v1", "headers": map[string]any{"a": "b"},
			"models": map[string]any{"m": map[string]any{"inputPricePerMTok": 1.5, "outputPricePerMTok": 3.0}}},
		"anth": map[string]any{"type": "anthropic", "baseUrl": "http://127.0.0.1:1", "models": map[string]any{"c": map[string]any{"maxTokens": 100.0, "thinkingBudget": -1.0},
			"p": map[string]any{"inputPricePerMTok": 2.0}, "w": map[string]any{"inputPricePerMTok": 2.0, "cacheWritePricePerMTok": 4.0}}},
		"anthk": map[string]any{"type": "anthropic", "apiKeyEnv": "WORK_KEY"},
		"anthb": map[string]any{"type": "anthropic", "baseUrl": "http://127.0.0.1:1", "models": map[string]any{"c": map[string]any{"maxTokens": 1.5}}},
		"other": map[string]any{"type": "cohere"},
		"nourl": map[string]any{},
		"badh":  map[string]any{"baseUrl": "x", "headers": map[string]any{"a": 1.0}},
		"str":   "x",
	}}
	getenv := func(k string) string { return map[string]string{"OPENAI_API_KEY": "k"}[k] }
	tests := []struct {
		name    string
		ok      bool
		wantErr string
	}{
		{"gemini-2.5-pro", false, ""},
		{"models/gemini-2.5-pro", false, ""},
		{"local/m", true, ""},
		{"openai/gpt-4.1", true, ""},
		{"anth/x", true, ""},
		{"anthropic/claude-sonnet-4-5", true, "no API key for Anthropic's API: set ANTHROPIC_API_KEY"},
		{"anthk/x", true, "settings: providers.anthk: no API key for Anthropic's API: set WORK_KEY"},
		{"anthb/x", true, "settings: providers.anthb.models.c.maxTokens must be a whole number (at least 1)"},
		{"other/x", true, `settings: providers.other.type "cohere" is not supported`},
		{"nourl/x", true, "settings: providers.nourl.baseUrl is missing"},
		{"badh/x", true, "settings: providers.badh.headers.a must be a string"},
		{"str/x", true, "settings: providers.str must be an object"},
	}
	for _, tt := range tests {
		m, ok, err := providerClient(tt.name, st, getenv)
		if ok != tt.ok || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) || (ok && err == nil && m == nil) {
			t.Errorf("%s: ok %v err %v, want ok %v err %q", tt.name, ok, err, tt.ok, tt.wantErr)
		}
	}
	getenv = func(k string) string { return map[string]string{"ANTHROPIC_API_KEY": "k"}[k] }
	if _, ok, err := providerClient("anthropic/claude-sonnet-4-5", st, getenv); !ok || err != nil {
		t.Errorf("anthropic/ with ANTHROPIC_API_KEY: ok %v err %v", ok, err)
	}
	price := priceTable(st)
	if p := price("local/m"); p != (model.Price{InputPerMTok: 1.5, OutputPerMTok: 3}) {
		t.Errorf("local/m price %+v", p)
	}
	if p := price("anthropic/claude-sonnet-4-5-20250929"); p != (model.Price{InputPerMTok: 3, CachedPerMTok: 0.30, OutputPerMTok: 15, CacheWritePerMTok: 3.75}) {
		t.Errorf("anthropic/claude-sonnet-4-5 price %+v", p)
	}
	// An Anthropic model's cache writes cost 1.25× its input unless priced.
	if p := price("anth/p"); p != (model.Price{InputPerMTok: 2, CacheWritePerMTok: 2.5}) {
		t.Errorf("anth/p price %+v", p)
	}
	if p := price("anth/w"); p != (model.Price{InputPerMTok: 2, CacheWritePerMTok: 4}) {
		t.Errorf("anth/w price %+v", p)
	}
	if p := price("anth/c"); p != (model.Price{}) {
		t.Errorf("a model neither priced nor known costs %+v", p)
	}
	if p := price("local/claude-sonnet-4-5"); p != (model.Price{}) {
		t.Errorf("an OpenAI-compatible provider's model named as Claude's costs %+v", p)
	}
	if p := price("gemini-2.5-flash"); p.InputPerMTok != 0.30 {
		t.Errorf("gemini-2.5-flash price %+v", p)
	}
}

// TestContextWindow: a provider model's window is its contextWindow,
// else its provider's default; Gemini's are left to the engine (0).
func TestContextWindow(t *testing.T) {
	a := &Agent{Settings: &config.Settings{Providers: map[string]any{
		"local":  map[string]any{"baseUrl": "http://127.0.0.1:1/v1", "models": map[string]any{"m": map[string]any{"contextWindow": 32768.0}}},
		"claude": map[string]any{"type": "anthropic"},
	}}}
	for name, want := range map[string]int{"local/m": 32768, "local/other": openAIWindow, "claude/x": anthropicWindow, "anthropic/claude-sonnet-4-5": anthropicWindow,
		"ollama/qwen3": ollamaWindow, "openai/gpt-4.1": openAIWindow, "gemini-2.5-pro": 0, "models/gemini-2.5-pro": 0, "nosuch/x": 0} {
		if got := a.ContextWindow(name); got != want {
			t.Errorf("%s: %d, want %d", name, got, want)
		}
	}
}
