//go:build unix

package builtin

import "syscall"

// openNonblock keeps opening a FIFO or device from blocking; regular files
// ignore it.
const openNonblock = syscall.O_NONBLOCK
