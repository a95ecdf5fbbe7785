//go:build !amd64 && !arm64

package mainstack

// grow does nothing where no assembly version is written: the stack then
// grows as the calls need it, as in any Go program.
func grow() {}
