package host

import (
	"errors"
	"fmt"
)

// Causes of a turn's cancellation, which decide how the face ends the
// turn. Their texts are Gemini CLI's, shown to clients as they are.
var (
	// ErrCanceled: the user asked to cancel.
	ErrCanceled = errors.New("Task canceled by user request.")
	// ErrShuttingDown: the server is shutting down (Host.Shutdown).
	ErrShuttingDown = errors.New("Execution interrupted: the server is shutting down.")
	// ErrClientLeft: the client watching the turn left, under
	// DisconnectCancel.
	ErrClientLeft = errors.New("Execution aborted by client.")
)

// DisconnectMode says what a client leaving does to the turn it watched.
type DisconnectMode string

// Disconnect modes.
const (
	// DisconnectContinue, the default, lets the turn run to its end: its
	// events are recorded, later reads and subscriptions show them,
	// webhooks report them, and calls that need approval wait for it as
	// always. A dropped connection (a laptop going to sleep, a proxy's
	// idle timeout) then loses nothing.
	DisconnectContinue DisconnectMode = "continue"
	// DisconnectCancel stops the turn once no client watches it any
	// more, as Gemini CLI's server does: the running tools are cancelled
	// (with ErrClientLeft) and the item waits for input. An item with
	// webhooks is left running: they are watching.
	DisconnectCancel DisconnectMode = "cancel"
)

// Check refuses an unknown mode; "" means DisconnectContinue.
func (m DisconnectMode) Check() error {
	switch m {
	case "", DisconnectContinue, DisconnectCancel:
		return nil
	}
	return fmt.Errorf("unknown disconnect mode %q (continue or cancel)", m)
}

// Cancels reports whether a client leaving a turn cancels it: under
// DisconnectCancel, when the turn runs and nothing else watches it.
func (m DisconnectMode) Cancels(running, watched bool) bool {
	return m == DisconnectCancel && running && !watched
}
