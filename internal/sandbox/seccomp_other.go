//go:build linux && !(amd64 || arm64)

package sandbox

// noIPSockets installs no filter on this architecture: the *-closed
// profiles block TCP through Landlock only.
func noIPSockets() error { return nil }
