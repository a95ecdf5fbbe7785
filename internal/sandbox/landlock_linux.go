//go:build linux

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
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

// landlockRuleset is the profile as a Landlock ruleset, made for one
// command (the workspace's entries as they are then): its file
// descriptor (close-on-exec) and the flags its enforcement takes.
type landlockRuleset struct {
	fd      int
	flags   uint32
	network bool
}

// newLandlockRuleset builds the ruleset for p.
func newLandlockRuleset(p Profile) (*landlockRuleset, error) {
	if err := landlockCheck(p); err != nil {
		return nil, err
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
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return nil, fmt.Errorf("building the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return nil, fmt.Errorf("Landlock restricts nothing here")
	}
	return &landlockRuleset{fd: fd, flags: flags, network: p.Network}, nil
}

// close releases the ruleset's file descriptor.
func (r *landlockRuleset) close() { unix.Close(r.fd) }

// start starts cmd confined. Go cannot run code between fork and exec,
// but a Landlock domain belongs to a thread and passes to the processes
// it forks: cmd is started from a thread of its own, confined first and
// never given back (the runtime ends a thread whose goroutine exits
// locked to it), so nothing else of Castor is confined.
func (r *landlockRuleset) start(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked, on purpose
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			errc <- fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %w; the command did not run", err)
			return
		}
		if !r.network {
			if err := noIPSockets(); err != nil {
				errc <- fmt.Errorf("sandbox: installing the seccomp filter: %w; the command did not run", err)
				return
			}
		}
		if err := llsys.LandlockRestrictSelf(r.fd, r.flags); err != nil {
			errc <- fmt.Errorf("sandbox: applying Landlock: %w; the command did not run", err)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}
