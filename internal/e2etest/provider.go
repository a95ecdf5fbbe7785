package e2etest

import (
	"testing"

	"github.com/castor-dev/castor/internal/fakeopenai"
)

// CheckServed fails t unless the provider's fake got n requests, each for
// model (the name without its provider prefix), and e's Gemini fake got
// gemini: which server a face's turn went to.
func CheckServed(t *testing.T, e *Env, srv *fakeopenai.Server, model string, n, gemini int) {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != n {
		t.Errorf("%d requests reached the provider, want %d", len(reqs), n)
	}
	for i, r := range reqs {
		if r.Chat.Model != model {
			t.Errorf("request %d to the provider asked for %q, want %q", i, r.Chat.Model, model)
		}
	}
	if got := len(e.Srv.Requests()); got != gemini {
		t.Errorf("%d requests reached Gemini, want %d", got, gemini)
	}
}
