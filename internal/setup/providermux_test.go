package setup

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/config"
)

// TestOllamaBaseURL: OLLAMA_HOST in each form Ollama accepts.
func TestOllamaBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                           "http://127.0.0.1:11434/v1",
		"0.0.0.0":                    "http://0.0.0.0:11434/v1",
		"127.0.0.1:9999":             "http://127.0.0.1:9999/v1",
		"http://box:8080":            "http://box:8080/v1",
		"https://ollama.example.com": "https://ollama.example.com:443/v1",
		"http://box:8080/ollama/":    "http://box:8080/ollama/v1",
		"[::1]":                      "http://[::1]:11434/v1",
		"[::1]:7":                    "http://[::1]:7/v1",
	} {
		if got := ollamaBaseURL(in); got != want {
			t.Errorf("OLLAMA_HOST=%q: %s, want %s", in, got, want)
		}
	}
}

// TestProviderFor: Gemini names (with slashes too) are Gemini's, the
// built-in providers exist unset, and an unknown prefix is an error
// naming the setting and the providers there are.
func TestProviderFor(t *testing.T) {
	st := &config.Settings{Providers: map[string]any{"local": map[string]any{"baseUrl": "http://127.0.0.1:1/v1"}}}
	getenv := func(string) string { return "" }
	for _, name := range []string{"gemini-2.5-pro", "models/gemini-2.5-pro", "tunedModels/x", "projects/p/locations/l/publishers/google/models/m"} {
		if _, ok, err := providerFor(name, st, getenv); ok || err != nil {
			t.Errorf("%s: ok %v, err %v; want Gemini's", name, ok, err)
		}
	}
	for _, name := range []string{"local/m", "ollama/qwen3-coder", "openai/gpt-4.1"} {
		if m, ok, err := providerFor(name, st, getenv); !ok || err != nil || m == nil {
			t.Errorf("%s: ok %v, err %v; want a provider", name, ok, err)
		}
	}
	_, ok, err := providerFor("nosuch/model", st, getenv)
	if !ok || err == nil || !strings.Contains(err.Error(), `no provider "nosuch"`) || !strings.Contains(err.Error(), `"providers" in settings.json`) ||
		!strings.Contains(err.Error(), "local, ollama, openai") {
		t.Errorf("nosuch/model: ok %v, err %v", ok, err)
	}
}
