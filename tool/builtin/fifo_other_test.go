//go:build !unix

package builtin

import "errors"

// haveFifo says whether named pipes can be made here.
const haveFifo = false

// syscallMkfifo is unavailable without named pipes.
func syscallMkfifo(string) error { return errors.ErrUnsupported }
