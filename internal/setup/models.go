package setup

import (
	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/routing"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/gemini"
)

// sessionModel returns the client the engine talks to, the model name it
// asks for and the model whose generation settings apply. An alias stays
// as given, so faces report it ("auto", as Gemini CLI does), and the
// client resolves it: the network transports already route (newRouter);
// a caller's transport or a replayed file gets a router that resolves
// without asking a classifier, "auto" going to the pro model as when
// Gemini CLI's router fails.
func sessionModel(client model.Model, name string, o Options) (model.Model, string, string) {
	if !routing.IsAlias(name) {
		return client, name, name
	}
	if o.Client != nil || o.FakeResponses != "" {
		client = routing.New(client, nil, false)
	}
	return client, name, routing.Resolve(name, false)
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

// chatGenerationConfig is the generation config a session gives model
// name, the one it would have started with on it: an alias is resolved as
// at start-up (sessionModel) before the thinking config is chosen.
func chatGenerationConfig(name string) *genai.GenerateContentConfig {
	if routing.IsAlias(name) {
		name = routing.Resolve(name, false)
	}
	return gemini.DefaultGenerationConfig(name)
}
