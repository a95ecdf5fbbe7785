package a2a

import (
	"errors"
	"fmt"
)

// DisconnectMode says what a client leaving does to the turn it watched.
type DisconnectMode string

// Disconnect modes.
const (
	// DisconnectContinue, the default, lets the turn run to its end: its
	// events are recorded, tasks/get and tasks/resubscribe show them, push
	// notifications report them, and calls that need approval wait for
	// it as always. A dropped connection (a laptop going to sleep, a
	// proxy's idle timeout) then loses nothing.
	DisconnectContinue DisconnectMode = "continue"
	// DisconnectCancel stops the turn once no client watches it any
	// more, as Gemini CLI's server does: the running tools are cancelled
	// and the task waits for input ("Execution aborted by client.").
	// A task with push notification configs is left running: its
	// webhooks are watching.
	DisconnectCancel DisconnectMode = "cancel"
)

// errClientAborted is the cause of a turn cancelled because its client
// left; the text is Gemini CLI's.
var errClientAborted = errors.New("Execution aborted by client.")

func (m DisconnectMode) check() error {
	switch m {
	case "", DisconnectContinue, DisconnectCancel:
		return nil
	}
	return fmt.Errorf("a2a: unknown disconnect mode %q (continue or cancel)", m)
}

// clientLeft unsubscribes a client that left before its turn's end and,
// under DisconnectCancel, cancels the turn when nobody else watches it.
func (s *Server) clientLeft(t *task, sub *subscriber) {
	t.unsubscribe(sub)
	if s.cfg.OnDisconnect != DisconnectCancel {
		return
	}
	t.mu.Lock()
	cancel := t.cancel
	watched := len(t.subs) > 0 || len(t.push) > 0
	running := t.running
	t.mu.Unlock()
	if running && !watched && cancel != nil {
		s.log.Info("a2a: the client left; cancelling the turn", "task", t.id)
		cancel(errClientAborted)
	}
}
