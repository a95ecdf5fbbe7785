package tui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/fakeopenai"
)

// TestTUICostShown: with a priced model, the footer shows the session's
// cost once a turn ends, and /stats the session's, the last turn's and
// each model's.
func TestTUICostShown(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t, fakeopenai.Text("first answer"), fakeopenai.Text("second answer"))
	e.WriteUserSettings(`{"providers": {"local": {"baseUrl": "` + srv.URL + `/v1",
		"models": {"priced": {"inputPricePerMTok": 10, "outputPricePerMTok": 40}}}}}`)
	tm := e.StartTUI("-m", "local/priced")
	tm.Submit("hello")
	tm.WaitFor("first answer")
	footer := func(s string) string { return s[strings.LastIndex(strings.TrimSuffix(s, "\n"), "\n")+1:] }
	tm.WaitUntil("the cost in the footer", func(s string) bool { return strings.Contains(footer(s), "· $0.") })
	tm.Submit("again")
	tm.WaitFor("second answer")
	tm.Submit("/stats")
	s := tm.WaitFor("this session, $0.")
	if !strings.Contains(s, "the last turn") || !strings.Contains(s, "local/priced: $0.") {
		t.Errorf("/stats:\n%s", s)
	}
}

// TestTUIModelPickerProviders: /model offers the providers' models from
// settings beside Gemini's; switching to one sends the next prompt to
// that provider, and a prefix that is no provider is refused at once,
// naming the setting.
func TestTUIModelPickerProviders(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("gemini answer"))
	srv := fakeopenai.Start(t, fakeopenai.Text("local answer"))
	e.WriteUserSettings(`{"providers": {"local": {"baseUrl": "` + srv.URL + `/v1",
		"models": {"qwen3-coder": {"inputPricePerMTok": 0.5, "outputPricePerMTok": 1}}}}}`)
	tm := e.StartTUI("-m", "gemini-2.5-flash")
	tm.Submit("hello")
	tm.WaitFor("gemini answer")
	tm.Submit("/model")
	tm.WaitFor("local/qwen3-coder")
	tm.WaitFor("provider local, $0.5 in / $1 out per million tokens")
	tm.Keys("Escape")
	tm.WaitUntil("the list closed", func(s string) bool { return !strings.Contains(s, "Select Model") })
	tm.Submit("/model nosuch/x")
	tm.WaitFor(`no provider "nosuch"`)
	tm.Submit("/model local/qwen3-coder")
	tm.WaitFor("Model set to local/qwen3-coder")
	tm.Submit("and now")
	tm.WaitFor("local answer")
	e2etest.CheckServed(t, e, srv, "qwen3-coder", 1, 1)
}

// TestTUIBudget: in the terminal, model.maxBudgetUsd ends the turn
// before the call that would cross it, nothing sent, with the budget's
// message naming the setting, and the terminal takes the next prompt.
func TestTUIBudget(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t, fakeopenai.Text("never"))
	e.WriteUserSettings(`{"model": {"maxBudgetUsd": 0.000001}, "providers": {"local": {"baseUrl": "` + srv.URL + `/v1",
		"models": {"priced": {"inputPricePerMTok": 10, "outputPricePerMTok": 40}}}}}`)
	tm := e.StartTUI("-m", "local/priced")
	tm.Submit("hello")
	tm.WaitFor("budget of $0.0000 reached")
	tm.WaitFor("raise model.maxBudgetUsd in")
	tm.WaitFor("Type your message")
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent past the budget", n)
	}
}

// TestTUIContextWindowOfProvider: the footer's "context left" of a
// provider's model is counted against its contextWindow from the
// settings, not Gemini's million tokens.
func TestTUIContextWindowOfProvider(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t, fakeopenai.Text("small answer"))
	const window = 40_000
	e.WriteUserSettings(`{"providers": {"local": {"baseUrl": "` + srv.URL + `/v1",
		"models": {"small": {"contextWindow": 40000}}}}}`)
	tm := e.StartTUI("-m", "local/small")
	tm.Submit("hello")
	tm.WaitFor("small answer")
	used := (len(srv.Requests()[0].Body) + 3) / 4 // the fake's prompt_tokens
	want := fmt.Sprintf("local/small (%d%%", max(100-used*100/window, 0))
	if want == "local/small (100%" || want == "local/small (99%" {
		t.Fatalf("a prompt of %d tokens tells a 40k window from a million apart too little", used)
	}
	tm.WaitUntil(want+" in the footer", func(s string) bool { return strings.Contains(s, want) })
}
