//go:build !unix

package builtin

// openNonblock is zero where opens of special files do not block.
const openNonblock = 0
