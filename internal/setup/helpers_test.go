package setup

import (
	"context"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/config"
)

// sendResult is what a headless turn gives the tests of this package.
type sendResult struct{ Text string }

// Send runs one prompt to the end of its turn and returns the text of its
// last model response, as a face would show it.
func (a *Agent) Send(ctx context.Context, prompt string) (*sendResult, error) {
	var text strings.Builder
	newTurn := false
	for ev, err := range a.Session.Send(ctx, genai.NewPartFromText(prompt)) {
		if err != nil {
			return &sendResult{Text: text.String()}, err
		}
		switch ev.Type {
		case agent.EventContent:
			if newTurn {
				text.Reset()
				newTurn = false
			}
			text.WriteString(ev.Text)
		case agent.EventToolCall:
			newTurn = true
		}
	}
	return &sendResult{Text: text.String()}, nil
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
