package setup

import (
	"context"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/config"
)

// sendResult is what a headless turn gives the tests of this package.
type sendResult struct{ Text string }

// Send runs one prompt to the end of its turn and returns the text of its
// last model response, as a face would show it.
func (a *Agent) Send(ctx context.Context, prompt string) (*sendResult, error) {
	res := &sendResult{}
	for ev, err := range a.Session.Send(ctx, genai.NewPartFromText(prompt)) {
		if err != nil {
			return res, err
		}
		if ev.Type == agent.EventTurnEnd || ev.Type == agent.EventInputRequired {
			res.Text = ev.Text
		}
	}
	return res, nil
}

// SessionID returns the session id.
func (a *Agent) SessionID() string { return a.Session.ID() }

// envOf turns a getenv function into the lookup Options.Env takes; an
// empty value counts as unset.
func envOf(getenv func(string) string) config.LookupFunc {
	return func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	}
}
