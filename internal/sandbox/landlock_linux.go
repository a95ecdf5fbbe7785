//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Castor speaks to Landlock through its three system calls alone:
// go-landlock's packages link libcap's psx, which forces cgo's external
// linker on every local build (+12 MB of RSS for each start) to apply a
// ruleset to all threads, and Castor applies one to a single thread (see
// start).

// Access rights, as go-landlock groups them.
const (
	llFile      = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_READ_FILE
	llRead      = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	llWrite     = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	llReadWrite = llRead | llWrite
)

// llABI is what one Landlock ABI version can restrict.
type llABI struct{ fs, net, scoped uint64 }

// llABIs are the rights each ABI version handles, version 0 to 11 (11
// added only a flag Castor does not use).
var llABIs = [...]llABI{
	{},
	{fs: 1<<13 - 1},
	{fs: 1<<14 - 1},
	{fs: 1<<15 - 1},
	{fs: 1<<15 - 1, net: 1<<2 - 1},
	{fs: 1<<16 - 1, net: 1<<2 - 1},
	{fs: 1<<16 - 1, net: 1<<2 - 1, scoped: 1<<2 - 1},
	{fs: 1<<16 - 1, net: 1<<2 - 1, scoped: 1<<2 - 1},
	{fs: 1<<16 - 1, net: 1<<2 - 1, scoped: 1<<2 - 1},
	{fs: 1<<17 - 1, net: 1<<2 - 1, scoped: 1<<2 - 1},
	{fs: 1<<17 - 1, net: 1<<4 - 1, scoped: 1<<2 - 1},
	{fs: 1<<17 - 1, net: 1<<4 - 1, scoped: 1<<2 - 1},
}

// landlockABI is the kernel's Landlock ABI version (0: none).
func landlockABI() (int, error) {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0, e
	}
	return int(v), nil
}

// usableABI is the ABI version whose rights a ruleset asks for: the
// kernel's, capped at the newest known, and 5 on a kernel of ABI 6 or
// later without the fix of the signal-scoping bug (erratum 2), as
// go-landlock does.
func usableABI() int {
	v, err := landlockABI()
	if err != nil || v < 1 {
		return 0
	}
	if v >= 6 {
		errata, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_ERRATA)
		if e != 0 || errata&0x2 == 0 {
			v = 5
		}
	}
	return min(v, len(llABIs)-1)
}

// landlockCheck says why the profile cannot be enforced here, or nil.
func landlockCheck(p Profile) error {
	abi, err := landlockABI()
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
// descriptor (close-on-exec).
type landlockRuleset struct {
	fd      int
	network bool
}

// rulesetAttr is struct landlock_ruleset_attr up to the scoped field
// (ABI 6); the kernel reads the size it is given.
type rulesetAttr struct{ fs, net, scoped uint64 }

// newLandlockRuleset builds the ruleset for p: every right the kernel
// can handle is denied but what plan(p) grants (best effort: rights an
// older kernel does not know are neither handled nor granted).
func newLandlockRuleset(p Profile) (*landlockRuleset, error) {
	if err := landlockCheck(p); err != nil {
		return nil, err
	}
	abi := llABIs[usableABI()]
	attr := rulesetAttr(abi)
	if p.Network {
		attr.net = 0
		// Open profiles keep talking to local daemons (abstract
		// sockets: D-Bus, X11); signals to processes outside the
		// sandbox stay blocked.
		attr.scoped &^= unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	if attr.fs == 0 && attr.net == 0 && attr.scoped == 0 {
		return nil, errors.New("Landlock restricts nothing here")
	}
	type grant struct {
		path   string
		access uint64
	}
	var grants []grant
	for _, g := range plan(p) {
		var a uint64
		switch {
		case g.List:
			a = unix.LANDLOCK_ACCESS_FS_READ_DIR
		case g.Write && g.Dir:
			a = llReadWrite | unix.LANDLOCK_ACCESS_FS_REFER | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
		case g.Write:
			a = llReadWrite&llFile | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
		case g.Dir:
			a = llRead
		default:
			a = llRead & llFile
		}
		if p.Network && !g.List {
			a |= unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
		}
		if a&unix.LANDLOCK_ACCESS_FS_REFER != 0 && attr.fs&unix.LANDLOCK_ACCESS_FS_REFER == 0 {
			// Without "refer" (ABI 1) every rename across directories
			// is denied: go-landlock then restricts nothing.
			return nil, errors.New("Landlock restricts nothing here (ABI 1 cannot allow moving files between folders)")
		}
		grants = append(grants, grant{g.Path, a & attr.fs})
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return nil, fmt.Errorf("building the Landlock ruleset: landlock_create_ruleset: %w", e)
	}
	for _, g := range grants {
		if g.access == 0 {
			continue
		}
		if err := addPathRule(int(fd), g.path, g.access); err != nil {
			unix.Close(int(fd))
			return nil, fmt.Errorf("building the Landlock ruleset: %w", err)
		}
	}
	return &landlockRuleset{fd: int(fd), network: p.Network}, nil
}

// addPathRule grants access beneath path; a path that does not exist is
// left out.
func addPathRule(ruleset int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("populating ruleset for %q: open: %w", path, err)
	}
	defer unix.Close(fd)
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	runtime.KeepAlive(&attr)
	if e != 0 {
		if e == unix.EINVAL {
			return fmt.Errorf("populating ruleset for %q: landlock_add_rule: inconsistent access rights (using directory access rights on a regular file?): %w", path, e)
		}
		return fmt.Errorf("populating ruleset for %q: landlock_add_rule: %w", path, e)
	}
	return nil
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
	go r.startConfined(cmd, errc)
	return <-errc
}

// startConfined confines the thread it runs on and starts cmd from it,
// but never on the main thread: the process's id is the main thread's,
// so a domain on it would be the domain a signal to Castor meets, and
// the command confined there could signal (kill) Castor. There it holds
// the main thread while another thread does the work.
func (r *landlockRuleset) startConfined(cmd *exec.Cmd, errc chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		other := make(chan error, 1)
		go r.startConfined(cmd, other)
		err := <-other
		runtime.UnlockOSThread()
		errc <- err
		return
	}
	// This thread is never unlocked, on purpose.
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
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(r.fd), 0, 0); e != 0 {
		errc <- fmt.Errorf("sandbox: applying Landlock: %w; the command did not run", e)
		return
	}
	errc <- cmd.Start()
}
