package a2a

import "github.com/castor-dev/castor/a2a/internal/host"

// DisconnectMode says what a client leaving does to the turn it watched.
type DisconnectMode string

// Disconnect modes.
const (
	// DisconnectContinue, the default, lets the turn run to its end:
	// tasks/get, tasks/resubscribe and push notifications show its events.
	DisconnectContinue = DisconnectMode(host.DisconnectContinue)
	// DisconnectCancel stops the turn once no client or webhook watches
	// it, as Gemini CLI's server does ("Execution aborted by client.").
	DisconnectCancel = DisconnectMode(host.DisconnectCancel)
)

// clientLeft unsubscribes a client that left before its turn's end and,
// under DisconnectCancel, cancels the turn when nobody else watches it.
func (s *Server) clientLeft(t *task, sub *subscriber) {
	t.unsubscribe(sub)
	t.mu.Lock()
	turn := t.turn
	leave := host.DisconnectMode(s.cfg.OnDisconnect).Cancels(t.running, len(t.subs) > 0 || len(t.push) > 0)
	t.mu.Unlock()
	if leave && turn != nil {
		s.log.Info("a2a: the client left; cancelling the turn", "task", t.id)
		turn.Cancel(host.ErrClientLeft)
	}
}
