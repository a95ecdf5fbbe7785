package setup

import (
	"context"
	"time"

	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/internal/version"
)

// ideConn is what IDE mode adds to a session: the companion's client,
// which gives editor context with each prompt and answers edits as diffs.
type ideConn struct {
	client *ide.Client
}

// get is the client; nil when IDE mode is off or no companion answered.
func (c *ideConn) get() *ide.Client {
	if c == nil {
		return nil
	}
	return c.client
}

// ideConnectTimeout bounds discovery and the handshake, so that a
// companion that hangs cannot hold up the start of a session.
const ideConnectTimeout = 5 * time.Second

// connectIDE connects to the IDE companion when IDE mode is on (the --ide
// flag or the ide.enabled setting). A missing or broken companion is not
// an error: the session goes on without the IDE, and warn says exactly
// why, as `castor ide status` would. Only a cancelled ctx is an error.
func connectIDE(ctx context.Context, enabled bool, wd string, getenv func(string) string, warn func(string)) (*ideConn, error) {
	if !enabled {
		return nil, nil
	}
	cctx, cancel := context.WithTimeout(ctx, ideConnectTimeout)
	defer cancel()
	c, err := ide.Connect(cctx, ide.Options{
		WorkDir: wd,
		Getenv:  getenv,
		Version: version.Version,
		Warn:    func(s string) { warn("IDE mode: " + s) },
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		warn("IDE mode: " + err.Error() + " (run `castor ide status` for details)")
		return nil, nil
	}
	return &ideConn{client: c}, nil
}
