//go:build !unix

package proc

import "os"

// StartPTY reports ErrNoPTY: on this system the caller starts the
// command with Start and pipes.
func (g *Group) StartPTY(Size) (*os.File, error) { return nil, ErrNoPTY }

// ResizePTY reports ErrNoPTY.
func ResizePTY(*os.File, Size) error { return ErrNoPTY }
