//go:build amd64 || arm64

package stack

// Grow gives the calling goroutine a stack of Size bytes unless it has
// one already. Written in assembly, as growMain: Go code cannot have a
// large frame without zeroing it.
func Grow()

// growMain gives the main goroutine a stack of MainSize bytes.
func growMain()
