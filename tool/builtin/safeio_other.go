//go:build !linux

package builtin

import (
	"errors"
	"os"
)

// fdPath has no portable equivalent of /proc/self/fd; callers fall back to
// resolving the name again and comparing file identity.
func fdPath(*os.File) (string, error) {
	return "", errors.ErrUnsupported
}
