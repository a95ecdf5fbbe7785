//go:build unix

package discovered

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// signalName names the signal that ended a process as Node does
// ("SIGTERM"), "" when none did.
func signalName(ps *os.ProcessState) string {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	if name := unix.SignalName(ws.Signal()); name != "" {
		return name
	}
	return strconv.Itoa(int(ws.Signal()))
}
