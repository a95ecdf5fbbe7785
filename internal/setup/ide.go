package castor

import (
	"context"
	"os"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/tool"
)

// ideHooks are what IDE mode adds to an agent. Every field is nil when IDE
// mode is off or no companion was found.
type ideHooks struct {
	client *ide.Client
	// promptContext is agent.Config.PromptContext.
	promptContext func(first bool) []*genai.Part
	// confirm replaces Options.Confirm: edits are answered in the IDE's
	// diff view, everything else by Options.Confirm.
	confirm func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error)
	// close ends the connection.
	close func() error
}

// ideConnectTimeout bounds discovery and the handshake, so that a
// companion that hangs cannot hold up the start of a session.
const ideConnectTimeout = 5 * time.Second

// connectIDE connects to the IDE companion when IDE mode is on (the --ide
// flag or the ide.enabled setting). A missing or broken companion is not
// an error: the session goes on without the IDE, and warn says exactly
// why, as `castor ide status` would.
func connectIDE(ctx context.Context, enabled bool, o Options, wd string, warn func(string)) ideHooks {
	if !enabled {
		return ideHooks{}
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	ctx, cancel := context.WithTimeout(ctx, ideConnectTimeout)
	defer cancel()
	c, err := ide.Connect(ctx, ide.Options{
		WorkDir: wd,
		Getenv:  getenv,
		Version: Version,
		Warn:    func(s string) { warn("IDE mode: " + s) },
	})
	if err != nil {
		warn("IDE mode: " + err.Error() + " (run `castor ide status` for details)")
		return ideHooks{}
	}
	return ideHooks{
		client:        c,
		promptContext: c.PromptContext,
		confirm:       c.Confirm(o.Confirm),
		close:         c.Close,
	}
}
