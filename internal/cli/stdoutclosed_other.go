//go:build !unix

package cli

import "io"

// closedAtStart is false where the runtime does not stand in for closed
// standard descriptors: there a write to a closed stdout fails, and the
// stdout guard reports it.
func closedAtStart(io.Writer) bool { return false }
