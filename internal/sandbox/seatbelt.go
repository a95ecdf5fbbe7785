package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
)

// seatbeltPath is macOS's sandbox-exec.
const seatbeltPath = "/usr/bin/sandbox-exec"

// seatbeltSysctls are the system facts a confined program may read
// (CPU, memory page and OS version queries runtimes make at start).
var seatbeltSysctls = []string{
	"hw.activecpu", "hw.byteorder", "hw.cacheconfig", "hw.cachelinesize_compat", "hw.cpufamily",
	"hw.cpufrequency_compat", "hw.cputype", "hw.l1dcachesize_compat", "hw.l1icachesize_compat",
	"hw.l2cachesize_compat", "hw.l3cachesize_compat", "hw.logicalcpu_max", "hw.machine", "hw.memsize",
	"hw.ncpu", "hw.nperflevels", "hw.packages", "hw.pagesize_compat", "hw.physicalcpu_max",
	"hw.tbfrequency_compat", "hw.vectorunit", "kern.hostname", "kern.maxfilesperproc",
	"kern.osproductversion", "kern.osrelease", "kern.ostype", "kern.osvariant_status", "kern.osversion",
	"kern.secure_kernel", "kern.usrstack64", "kern.version", "sysctl.proc_cputype",
}

// seatbeltSysctlPrefixes are families of them.
var seatbeltSysctlPrefixes = []string{"hw.optional.", "hw.perflevel"}

// seatbeltServices are the system services a confined program may look
// up: process listing (ps, pgrep), user and group names, temporary
// directories, certificates, and, with the network, name resolution.
var seatbeltServices = []string{
	"com.apple.sysmond", "com.apple.system.opendirectoryd.libinfo",
	"com.apple.system.opendirectoryd.membership", "com.apple.bsd.dirhelper",
	"com.apple.SecurityServer", "com.apple.trustd", "com.apple.trustd.agent", "com.apple.ocspd",
}

// seatbeltNetServices are the services name resolution needs.
var seatbeltNetServices = []string{
	"com.apple.mDNSResponder", "com.apple.mDNSResponderHelper", "com.apple.networkd",
	"com.apple.SystemConfiguration.DNSConfiguration", "com.apple.SystemConfiguration.configd",
}

// containerDaemons are the container engines' sockets: a command that
// reaches one runs anything outside the sandbox. Regular expressions
// over the path.
var containerDaemons = []string{
	`^(/private)?/var/run/docker(\.sock(\.raw)?|/)`, `^/Users/[^/]+/\.docker/(run|desktop)/`,
	`^/Users/[^/]+/\.(colima|rd)/`, `^/Users/[^/]+/\.orbstack/run/`, `^/Users/Shared/\.docker/`,
}

// seatbeltProfile is p as a sandbox-exec profile (SBPL): everything
// denied but what p allows. Later rules win over earlier ones, so the
// credential files, the protected .git and .gemini and the container
// daemons' sockets are denied last.
func seatbeltProfile(p Profile) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	paths := func(rule string, list []string) {
		if len(list) == 0 {
			return
		}
		line("(%s", rule)
		for _, path := range list {
			kind := "subpath" // a file's path too: it matches the file
			if path == "/" {
				kind = "literal" // the root listed, not all beneath
			}
			line("    (%s %s)", kind, sbString(path))
		}
		line(")")
	}
	line("(version 1)")
	line(";; Castor's %s profile, written for one command.", p.Name)
	line("(deny default)")
	line("(allow process-exec)")
	line("(allow process-fork)")
	line("(allow signal (target same-sandbox))")
	line("(allow sysctl-read")
	for _, n := range seatbeltSysctls {
		line("    (sysctl-name %s)", sbString(n))
	}
	for _, n := range seatbeltSysctlPrefixes {
		line("    (sysctl-name-prefix %s)", sbString(n))
	}
	line(")")
	if len(p.Read) == 1 && p.Read[0] == "/" {
		line("(allow file-read*)")
	} else {
		// Walking to a readable file needs the metadata of every
		// directory on the way, not their listings nor contents.
		line("(allow file-read-metadata)")
		paths("allow file-read*", append([]string{"/"}, append(p.Read, p.Write...)...))
	}
	paths("allow file-write*", p.Write)
	line("(allow file-write* file-ioctl")
	line("    (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/stdout\") (literal \"/dev/stderr\")")
	line("    (literal \"/dev/ptmx\") (literal \"/dev/tty\") (regex #\"^/dev/ttys[0-9]+$\")")
	line(")")
	services := seatbeltServices
	switch {
	case p.Network:
		services = append(append([]string(nil), services...), seatbeltNetServices...)
		line("(allow network-outbound)")
		line("(allow network-inbound (local ip \"localhost:*\"))")
		line("(allow network-bind (local ip \"localhost:*\"))")
		line("(allow system-socket (require-all (socket-domain AF_SYSTEM) (socket-protocol 2)))")
	case p.Proxied:
		line("(allow network-outbound (remote tcp \"localhost:%d\"))", ProxyPort)
		line("(allow network-outbound (remote unix-socket))")
		line("(allow network-bind (local ip \"localhost:*\"))")
	default:
		line("(allow network-outbound (remote unix-socket))")
	}
	line("(allow mach-lookup")
	for _, n := range services {
		line("    (global-name %s)", sbString(n))
	}
	line(")")
	paths("deny file-read* file-write*", p.Deny)
	paths("deny file-write*", p.Protect)
	line("(deny file-read* file-write*")
	for _, re := range containerDaemons {
		line("    (regex #\"%s\")", re) // as written: SBPL passes a #"…" string to the regex engine
	}
	line(")")
	line("(deny mach-lookup (global-name-prefix \"com.docker.\") (xpc-service-name-prefix \"com.docker.\"))")
	return b.String()
}

// sbString quotes s as an SBPL string.
func sbString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// checkSeatbelt says why sandbox-exec cannot confine here, or nil.
func (s *Sandbox) checkSeatbelt() error {
	if runtime.GOOS != "darwin" {
		return errors.New("sandbox-exec (Seatbelt) is macOS only; use landlock or bwrap on Linux, or docker or podman")
	}
	path, err := exec.LookPath(seatbeltPath)
	if err != nil {
		return fmt.Errorf("%s not found: %v", seatbeltPath, err)
	}
	s.sandboxExec = path
	probe := exec.Command(path, "-p", seatbeltProfile(s.Profile), "/usr/bin/true")
	if out, err := probe.CombinedOutput(); err != nil {
		return fmt.Errorf("sandbox-exec cannot start a sandbox here: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// wrapSeatbelt makes cmd run under sandbox-exec with the profile as the
// workspace is now.
func (s *Sandbox) wrapSeatbelt(cmd *exec.Cmd) {
	argv := cmd.Args
	if len(argv) == 0 {
		argv = []string{cmd.Path}
	}
	cmd.Args = append([]string{s.sandboxExec, "-p", seatbeltProfile(s.Profile), cmd.Path}, argv[1:]...)
	cmd.Path = s.sandboxExec
}
