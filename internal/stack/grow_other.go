//go:build !amd64 && !arm64

package stack

// Grow does nothing where no assembly version is written: the stack then
// grows as the calls need it, as in any Go program.
func Grow() {}

func growMain() {}
