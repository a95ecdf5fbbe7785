package setup

import (
	"sync"

	"github.com/castor-dev/castor/internal/chats"
)

// cleanupOnce makes the session clean-up a start-up step: it runs for the
// first session a process assembles, as Gemini CLI runs it once per
// launch, however many sessions an ACP client opens afterwards.
var cleanupOnce sync.Once

// cleanupSessions applies general.sessionRetention to the project's
// recorded sessions, keeping currentID (the session just started or
// resumed), when o.CleanupSessions asks for it (the CLI's faces; not the
// SDK, the A2A server or a session that records nothing). Problems and the
// count removed are one line each through Warn; a failing clean-up never
// stops start-up.
func cleanupSessions(o Options, a *Agent, currentID string) {
	if !o.CleanupSessions || o.DisableRecording {
		return
	}
	cleanupOnce.Do(func() { runCleanup(o, a, currentID) })
}

func runCleanup(o Options, a *Agent, currentID string) {
	r, err := chats.RetentionFromSettings(a.Settings.Get)
	if err != nil {
		o.Warn("Session cleanup disabled: " + err.Error())
		return
	}
	// Gemini CLI cleans up by default; Castor only once the user's
	// settings name general.sessionRetention, since deleting history the
	// user never asked to delete is the one loss Castor does not risk.
	if !r.Enabled || !r.Explicit {
		return
	}
	if err := r.Validate(); err != nil {
		o.Warn("Session cleanup disabled: " + err.Error()) // Gemini CLI's words
		return
	}
	store, err := chats.OpenStore(a.Home.Dir, a.Workspace.Dirs()[0])
	if err != nil {
		o.Warn("Session cleanup failed: " + err.Error())
		return
	}
	res, err := store.Cleanup(r, currentID)
	if err != nil {
		o.Warn("Session cleanup failed: " + err.Error())
	}
	if msg := chats.CleanupNotice(r, res); msg != "" {
		o.Warn(msg)
	}
}
