package headless_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakeopenai"
	"github.com/castor-dev/castor/internal/nettest"
)

// TestModelsCommand: castor models lists Gemini's models and each
// provider's from settings, asks the Gemini API and each provider's
// server for its models,
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
		"gemini: gemini at " + e.Srv.URL + "/v1beta (built-in)", "API key (GEMINI_API_KEY)", "- flash → ", "served: gemini-2.5-pro, gemini-2.5-flash,",
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
	if len(out.Providers) != 4 || !got["gemini"] || !got["local"] || !got["ollama"] || got["dead"] || out.Providers[0].Name != "gemini" {
		t.Errorf("providers: %+v", out.Providers)
	}
}

// TestModelsCommandAsksGemini: castor models asks the Gemini API for its
// models (GET /v1beta/models) with the key a session would use, here
// from the workspace's .env, and lists those that generate content;
// --check counts a Gemini API that does not answer.
func TestModelsCommandAsksGemini(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write(".env", "GEMINI_API_KEY=dotenv-key\n")
	environ := withoutAPIKey(e)
	r := e2etest.RunCastor(t, e.WS, environ, "models", "-o", "json")
	var out struct {
		Providers []struct {
			Name, BaseURL, Error, Note string
			Reachable, Checked         bool
			Served                     []string
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || r.Code != 0 || len(out.Providers) == 0 {
		t.Fatalf("exit %d, %v\nstdout: %s\nstderr: %s", r.Code, err, r.Stdout, r.Stderr)
	}
	gem := out.Providers[0]
	if gem.Name != "gemini" || !gem.Checked || !gem.Reachable || gem.BaseURL != e.Srv.URL+"/v1beta" || gem.Note != "API key (GEMINI_API_KEY)" ||
		strings.Join(gem.Served, ",") != "gemini-2.5-pro,gemini-2.5-flash,gemini-2.5-flash-lite,gemini-3-pro-preview" {
		t.Errorf("gemini: %+v", gem)
	}
	var asked []string
	for _, rq := range e.Srv.Requests() {
		asked = append(asked, rq.HTTPMethod+" "+rq.Path+" key "+rq.Header.Get("x-goog-api-key"))
	}
	if strings.Join(asked, "|") != "GET /v1beta/models key dotenv-key" {
		t.Errorf("requests to the Gemini API: %q", asked)
	}
	dead := "http://" + nettest.RefusedAddr(t)
	environ = append(environ, "GOOGLE_GEMINI_BASE_URL="+dead)
	r = e2etest.RunCastor(t, e.WS, environ, "models", "--check")
	if r.Code != 1 || !strings.Contains(r.Stderr, "providers not reachable: gemini ("+dead+"/v1beta)") || !strings.Contains(r.Stdout, "not reachable: Get \""+dead+"/v1beta/models") {
		t.Errorf("--check with Gemini's API dead: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestModelsCommandUsesStoredKey: with no key in the environment, castor
// models asks Gemini with the key the terminal's auth dialog stored, as
// a session would, and says where the key came from.
func TestModelsCommandUsesStoredKey(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	environ := withoutAPIKey(e)
	if err := os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "castor_api_key.json"), []byte(`{"apiKey":"stored-key"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e2etest.RunCastor(t, e.WS, environ, "models", "-o", "json")
	var out struct {
		Providers []struct {
			Name, Note string
			Reachable  bool
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || r.Code != 0 || len(out.Providers) == 0 {
		t.Fatalf("exit %d, %v\nstdout: %s\nstderr: %s", r.Code, err, r.Stdout, r.Stderr)
	}
	if gem := out.Providers[0]; !gem.Reachable || gem.Note != "API key (stored by the auth dialog)" {
		t.Errorf("gemini: %+v", gem)
	}
	var keys []string
	for _, rq := range e.Srv.Requests() {
		keys = append(keys, rq.Header.Get("x-goog-api-key"))
	}
	if strings.Join(keys, ",") != "stored-key" {
		t.Errorf("keys sent to the Gemini API: %q", keys)
	}
}

// TestUnreadableStoredKeyNamed: a stored key file that no longer reads
// is named, by a run and by castor models, not passed over as "no
// credentials".
func TestUnreadableStoredKeyNamed(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	environ := withoutAPIKey(e)
	keyFile := filepath.Join(e.Home, ".gemini", "castor_api_key.json")
	e2etest.WriteAt(t, keyFile, "not json")
	r := e2etest.RunCastor(t, e.WS, environ, "-p", "hi")
	if r.Code == 0 || !strings.Contains(r.Stderr, "the stored API key could not be read: "+keyFile) {
		t.Errorf("-p: exit %d\nstderr: %s", r.Code, r.Stderr)
	}
	r = e2etest.RunCastor(t, e.WS, environ, "models")
	if !strings.Contains(r.Stdout, "the stored API key could not be read: "+keyFile) {
		t.Errorf("models: exit %d\nstdout: %s", r.Code, r.Stdout)
	}
}

// withoutAPIKey is e's environment without GEMINI_API_KEY: the key must
// come from somewhere else (the .env, the auth dialog's stored file).
func withoutAPIKey(e *e2etest.Env) []string {
	return slices.DeleteFunc(e.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GEMINI_API_KEY=") })
}
