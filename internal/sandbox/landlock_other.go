//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
)

var errNoLandlock = errors.New("Landlock is Linux only; there is no sandbox method for " + runtime.GOOS + " yet")

func landlockCheck(Profile) error    { return errNoLandlock }
func landlockRestrict(Profile) error { return errNoLandlock }
