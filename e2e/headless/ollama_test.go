package headless_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakeopenai"
)

// TestOllamaHost: with OLLAMA_HOST set (Ollama's "host:port" form) and
// no settings, -m ollama/<model> goes to $OLLAMA_HOST/v1 over the
// OpenAI-compatible wire, as Codex's --oss does.
func TestOllamaHost(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t, fakeopenai.Text("local answer"))
	host := strings.TrimPrefix(srv.URL, "http://")
	r := e.RunExtraEnv([]string{"OLLAMA_HOST=" + host}, "-m", "ollama/qwen3-coder", "-p", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "local answer") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	e2etest.CheckServed(t, e, srv, "qwen3-coder", 1, 0)
}

// TestUnknownProviderPrefix: -m nosuch/model, where no provider is
// called nosuch, fails at once with a configuration error naming the
// providers setting and the providers there are; nothing goes to Gemini.
func TestUnknownProviderPrefix(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	r := e.Run("-m", "nosuch/model", "-p", "hi")
	if r.Code != 52 {
		t.Fatalf("exit %d, want 52 (configuration)\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{`no provider "nosuch"`, `"providers" in settings.json`, "ollama, openai"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, r.Stderr)
		}
	}
	if n := len(e.Srv.Requests()); n != 0 {
		t.Errorf("%d requests went to Gemini", n)
	}
}
