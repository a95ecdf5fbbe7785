package a2a_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakeopenai"
)

// TestA2AOpenAIProvider: an A2A task's turn runs on an OpenAI-compatible
// provider when the settings' model.name names one of its models.
func TestA2AOpenAIProvider(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	llm := fakeopenai.Start(t, fakeopenai.Text("hello from the provider"))
	e.WriteUserSettings(`{"model": {"name": "local/qwen3-coder"}, "providers": {"local": {"baseUrl": "` + llm.URL + `/v1"}}}`)
	srv := startA2A(e, filepath.Join(t.TempDir(), "tasks"))
	defer srv.stop(syscall.SIGTERM)
	evs := srv.call("message/send", a2aMessage("", map[string]any{"kind": "text", "text": "hi"}))
	raw, _ := json.Marshal(evs)
	if a2aDig(evs[0], "status", "state") != "input-required" || !strings.Contains(string(raw), "hello from the provider") {
		t.Errorf("task: %s", raw)
	}
	e2etest.CheckServed(t, e, llm, "qwen3-coder", 1, 0)
}

// TestA2ABudget: model.maxBudgetUsd ends a task's turn before the call
// that would cross it, the task saying why and waiting for the next
// message; nothing is sent.
func TestA2ABudget(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	llm := fakeopenai.Start(t, fakeopenai.Text("never"))
	e.WriteUserSettings(`{"model": {"name": "local/priced", "maxBudgetUsd": 0.000001}, "providers": {"local": {"baseUrl": "` + llm.URL + `/v1",
		"models": {"priced": {"inputPricePerMTok": 10, "outputPricePerMTok": 40}}}}}`)
	srv := startA2A(e, filepath.Join(t.TempDir(), "tasks"))
	defer srv.stop(syscall.SIGTERM)
	evs := srv.call("message/send", a2aMessage("", map[string]any{"kind": "text", "text": "hi"}))
	raw, _ := json.Marshal(evs)
	if !strings.Contains(string(raw), "budget of $") || !strings.Contains(string(raw), "model.maxBudgetUsd") {
		t.Errorf("task: %s", raw)
	}
	// The task waits for the user's next message, as after any turn.
	if st := a2aDig(evs[0], "status", "state"); st != "input-required" {
		t.Errorf("state %v", st)
	}
	if n := len(llm.Requests()); n != 0 {
		t.Errorf("%d requests sent past the budget", n)
	}
}
