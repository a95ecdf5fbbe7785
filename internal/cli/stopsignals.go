package cli

import (
	"os"
	"os/signal"
	"syscall"
)

// stopSignals are the signals that stop castor the orderly way (its
// context cancelled, so that sessions are saved and the MCP servers it
// started are stopped with their children): Ctrl-C, kill's default, and
// the terminal closing. A SIGHUP that nohup told the process to ignore
// stays ignored, as signal.Notify would otherwise undo that.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}
