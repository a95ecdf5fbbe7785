package subagents

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// errTimedOut is the cause of a run's context when its time is up.
var errTimedOut = errors.New("subagent timed out")

// deadline is a run's time limit, which stands still while a user is
// asked to confirm one of the subagent's calls, as Gemini CLI credits
// that time back.
type deadline struct {
	mu        sync.Mutex
	timer     *time.Timer
	remaining time.Duration
	since     time.Time
	paused    int
	fired     bool
}

func newDeadline(d time.Duration, expire func()) *deadline {
	dl := &deadline{remaining: d, since: time.Now()}
	dl.timer = time.AfterFunc(d, func() {
		dl.mu.Lock()
		dl.fired = true
		dl.mu.Unlock()
		expire()
	})
	return dl
}

func (dl *deadline) pause() {
	dl.mu.Lock()
	defer dl.mu.Unlock()
	if dl.paused == 0 && !dl.fired && dl.timer.Stop() {
		dl.remaining -= time.Since(dl.since)
	}
	dl.paused++
}

func (dl *deadline) resume() {
	dl.mu.Lock()
	defer dl.mu.Unlock()
	dl.paused--
	if dl.paused == 0 && !dl.fired {
		dl.since = time.Now()
		dl.timer.Reset(max(dl.remaining, 0))
	}
}

func (dl *deadline) stop() { dl.timer.Stop() }

// confirmPaused wraps the parent's confirmation so the run's clock stops
// while the user decides.
func confirmPaused(confirm func(context.Context, *agent.ToolCall) (tool.Decision, error), dl *deadline) func(context.Context, *agent.ToolCall) (tool.Decision, error) {
	if confirm == nil {
		return nil
	}
	return func(ctx context.Context, c *agent.ToolCall) (tool.Decision, error) {
		dl.pause()
		defer dl.resume()
		return confirm(ctx, c)
	}
}
