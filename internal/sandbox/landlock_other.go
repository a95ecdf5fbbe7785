//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
	"runtime"
)

var errNoLandlock = errors.New("Landlock is Linux only; there is no sandbox method for " + runtime.GOOS + " yet")

type landlockRuleset struct{}

func landlockCheck(Profile) error                          { return errNoLandlock }
func newLandlockRuleset(Profile) (*landlockRuleset, error) { return nil, errNoLandlock }
func (*landlockRuleset) start(*exec.Cmd) error             { return errNoLandlock }
func (*landlockRuleset) close()                            {}
