package setup

import (
	"github.com/castor-dev/castor/internal/routing"
	"github.com/castor-dev/castor/model"
)

// newRouter puts the model router in front of a network transport: main
// retries, classifier is the bare transport so a failing router falls
// back to the pro model at once. apiKey picks the pro model's custom-tools
// variant, as Gemini CLI does with a Gemini API key.
func newRouter(main, classifier model.Model, apiKey bool) model.Model {
	return routing.New(main, classifier, apiKey)
}

// sessionModel returns the model name the engine asks for and the model
// whose generation settings apply. Behind the router (the network
// transports) an alias stays as given: faces report it, as Gemini CLI
// reports "auto". With a caller's transport or a replayed file there is
// no router, so aliases resolve here, "auto" to the pro model as when
// Gemini CLI's router fails.
func sessionModel(name string, o Options) (engine, chat string) {
	if !routing.IsAlias(name) {
		return name, name
	}
	r := routing.Resolve(name, false)
	if o.Client == nil && o.FakeResponses == "" {
		return name, r
	}
	return r, r
}

// toolModel is the model tools calling the model themselves (web search,
// web fetch, edit correction) use: Gemini CLI sends those to flash under
// an alias.
func toolModel(name string) string {
	if routing.IsAlias(name) {
		return routing.FlashModel
	}
	return name
}
