//go:build linux

package sandbox

import (
	"fmt"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// landlockCheck says why the profile cannot be enforced here, or nil.
func landlockCheck(p Profile) error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return fmt.Errorf("Landlock is not available in this kernel (%v); enable it (CONFIG_SECURITY_LANDLOCK, lsm=landlock) or use GEMINI_SANDBOX=bwrap", err)
	}
	if !p.Network && abi < 4 {
		return fmt.Errorf("Landlock ABI %d cannot block the network (ABI 4 can); use a *-open profile or GEMINI_SANDBOX=bwrap", abi)
	}
	return nil
}

// landlockRestrict confines this process, and what it execs, to p.
func landlockRestrict(p Profile) error {
	if err := landlockCheck(p); err != nil {
		return err
	}
	cfg := landlock.V11.BestEffort()
	if p.Network {
		cfg.HandledAccessNet = 0
		// Open profiles keep talking to local daemons (abstract
		// sockets: D-Bus, X11); signals to processes outside the
		// sandbox stay blocked.
		cfg.Scoped &^= llsys.ScopeAbstractUnixSocket
	}
	var rules []landlock.Rule
	for _, g := range plan(p) {
		var r landlock.FSRule
		switch {
		case g.List:
			r = landlock.PathAccess(llsys.AccessFSReadDir, g.Path)
		case g.Write && g.Dir:
			r = landlock.RWDirs(g.Path).WithRefer().WithIoctlDev()
		case g.Write:
			r = landlock.RWFiles(g.Path).WithIoctlDev()
		case g.Dir:
			r = landlock.RODirs(g.Path)
		default:
			r = landlock.ROFiles(g.Path)
		}
		if p.Network && !g.List {
			r = r.WithResolveUnix()
		}
		rules = append(rules, r.IgnoreIfMissing())
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("applying the Landlock sandbox: %w", err)
	}
	return nil
}
