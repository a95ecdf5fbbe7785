package a2asession

import (
	"context"
	"sync"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/setup"
)

// agents maps the sessions Factory built to their assembled agents, so
// that ExpandPrompt reaches the task's custom commands and workspace.
var agents sync.Map // *agent.Session → *setup.Agent

// ExpandPrompt is the a2a.Config.ExpandPrompt of sessions built by
// Factory: the task agent's ExpandPrompt (custom commands, @path
// includes). A session Factory did not build gets the text as written.
func ExpandPrompt(ctx context.Context, sess *agent.Session, text string) ([]*genai.Part, error) {
	if a, ok := agents.Load(sess); ok {
		return a.(*setup.Agent).ExpandPrompt(ctx, text)
	}
	return []*genai.Part{genai.NewPartFromText(text)}, nil
}

// track remembers a until its session is closed.
func track(a *setup.Agent) func() error {
	agents.Store(a.Session, a)
	return func() error {
		agents.Delete(a.Session)
		return a.Close()
	}
}

// Commands is the a2a.Config.SessionCommands of sessions built by
// Factory: the task agent's whole registry (built-ins, custom and MCP
// commands, and the session's own /compress, /skills, /hooks), or nil
// for a session Factory did not build.
func Commands(sess *agent.Session) *command.Registry {
	if a, ok := agents.Load(sess); ok {
		return a.(*setup.Agent).Commands
	}
	return nil
}
