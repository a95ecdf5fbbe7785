//go:build unix

package builtin

import "syscall"

// haveFifo says whether named pipes can be made here.
const haveFifo = true

// syscallMkfifo creates a named pipe, a file read_file must refuse rather
// than block on.
func syscallMkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
