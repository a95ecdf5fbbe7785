package tui_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
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
