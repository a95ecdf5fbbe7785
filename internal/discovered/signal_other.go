//go:build !unix

package discovered

import "os"

// signalName is "" where processes are not ended by signals.
func signalName(*os.ProcessState) string { return "" }
