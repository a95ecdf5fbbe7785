package headless_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakeopenai"
	"github.com/castor-dev/castor/internal/nettest"
)

// TestModelsCommand: castor models lists Gemini's models and each
// provider's from settings, asks each provider's server for its models,
// names a dead one with its URL and error, and exits 1 for it only
// under --check; -o json says the same.
func TestModelsCommand(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t)
	srv.Serve("qwen3-coder", "llama3")
	dead := "http://" + nettest.RefusedAddr(t) + "/v1"
	e.WriteUserSettings(`{"providers": {
		"local": {"baseUrl": "` + srv.URL + `/v1", "models": {"qwen3-coder": {"contextWindow": 32768, "inputPricePerMTok": 0.5, "outputPricePerMTok": 1}}},
		"dead": {"baseUrl": "` + dead + `"}}}`)
	env := []string{"OLLAMA_HOST=" + srv.URL}
	r := e.RunExtraEnv(env, "models")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{
		"gemini: gemini (built-in)", "API key (GEMINI_API_KEY)", "- flash → ",
		"local: openai at " + srv.URL + "/v1", "- local/qwen3-coder, 32768 tokens of context, $0.5 in / $0.5 cached / $1 out per million tokens",
		"served: llama3, qwen3-coder",
		"dead: openai at " + dead, "not reachable: Get \"" + dead + "/models\"", "connection refused",
		"ollama: openai at " + srv.URL + "/v1 (built-in, OLLAMA_HOST",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.Stdout)
		}
	}
	if r := e.RunExtraEnv(env, "models", "--check"); r.Code != 1 || !strings.Contains(r.Stderr, "providers not reachable: dead ("+dead+")") {
		t.Errorf("--check: exit %d, stderr %s", r.Code, r.Stderr)
	}
	r = e.RunExtraEnv(env, "models", "-o", "json")
	var out struct {
		Providers []struct {
			Name, BaseURL, Error string
			Reachable, Checked   bool
			Served               []string
			Models               []struct{ Name string }
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || r.Code != 0 {
		t.Fatalf("-o json: exit %d, %v\n%s", r.Code, err, r.Stdout)
	}
	got := map[string]bool{}
	for _, p := range out.Providers {
		got[p.Name] = p.Reachable
	}
	if len(out.Providers) != 4 || !got["local"] || !got["ollama"] || got["dead"] || out.Providers[0].Name != "gemini" {
		t.Errorf("providers: %+v", out.Providers)
	}
}
