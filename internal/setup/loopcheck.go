package setup

import (
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/routing"
	"github.com/castor-dev/castor/model"
)

// loopCheck is the session's model-assisted loop check (agent.LoopCheck).
// A Gemini session asks the models Gemini CLI 0.61 asks: its
// "loop-detection" model with utility settings, then, when that one is
// sure, its "loop-detection-double-check" model, the pro model in use
// with its chat settings (on the wire: gemini-3.1-pro-preview-customtools
// with a Gemini API key). A session on another provider's model asks
// that model alone, which its credentials reach.
func loopCheck(client model.Model, modelName string) *agent.LoopCheck {
	if providerName(modelName) != "" {
		return &agent.LoopCheck{Model: modelName}
	}
	customTools := false
	if r := routerOf(client); r != nil {
		customTools = r.CustomTools
	}
	pro := routing.Resolve("pro", customTools)
	return &agent.LoopCheck{
		Model:             agent.DefaultLoopCheckModel,
		DoubleCheckModel:  pro,
		DoubleCheckConfig: chatGenerationConfig(pro),
	}
}
