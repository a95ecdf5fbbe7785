package setup

import (
	"context"
	"fmt"
	"time"

	"github.com/castor-dev/castor/mcp"
)

// mcpSlowNotice is how long start-up waits for MCP servers before saying
// which ones it is waiting for: a server stuck at initialize otherwise
// holds the session at "starting…" for its whole connect timeout without
// a word.
var mcpSlowNotice = 5 * time.Second

// startMCP starts m's servers, naming through warn those still connecting
// after mcpSlowNotice, with how long they may still take.
func startMCP(ctx context.Context, m *mcp.Manager, warn func(string)) {
	done := make(chan struct{})
	noticed := make(chan struct{})
	go func() {
		defer close(noticed)
		t := time.NewTimer(mcpSlowNotice)
		defer t.Stop()
		select {
		case <-done:
			return
		case <-t.C:
		}
		for _, s := range m.Statuses() {
			if s.Status != mcp.StatusConnecting {
				continue
			}
			limit := mcp.DefaultConnectTimeout
			if s.Config.Timeout > 0 {
				limit = s.Config.Timeout
			}
			warn(fmt.Sprintf("Still connecting to MCP server '%s' (%s); giving up after %v.", s.Name, s.Config.Target(), limit))
		}
	}()
	m.Start(ctx)
	close(done)
	// The notice, if under way, comes before the start's own warnings.
	<-noticed
}
