//go:build amd64 || arm64

package mainstack

// grow is written in assembly: Go code cannot have a large frame without
// zeroing it.
func grow()
