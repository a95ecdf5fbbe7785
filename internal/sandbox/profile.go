// Package sandbox confines the commands Castor starts for the user (the
// shell tool, "!" commands, hooks, discovered tools, stdio MCP servers):
// writes only to the workspace, its include directories and the temporary
// directory; no reading of the credential files under the home directory;
// no network in the "*-closed" profiles.
//
// On Linux the confinement is Landlock: internal/proc starts each command
// from a thread confined for that purpose alone (a Landlock domain passes
// from a thread to what it forks), so neither Castor nor an SDK program
// is confined, and no re-exec is needed. bubblewrap is used instead when
// asked for ("bwrap").
// What is asked for and unavailable fails: nothing runs unconfined
// behind the user's back.
package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Profile names, as Gemini CLI's macOS Seatbelt profiles: "permissive"
// reads everything but the credential files; "restrictive" only the
// system, the workspace and the temporary directory; "strict" as
// restrictive, plus the tool settings in the home directory (~/.gitconfig,
// ~/.config, Node version managers) that Gemini CLI's strict profiles
// read. "open" allows the network, "closed" does not, "proxied" only
// through a proxy on localhost:8877 (sandbox-exec only, as in Gemini CLI).
const (
	PermissiveOpen     = "permissive-open"
	PermissiveClosed   = "permissive-closed"
	PermissiveProxied  = "permissive-proxied"
	RestrictiveOpen    = "restrictive-open"
	RestrictiveClosed  = "restrictive-closed"
	RestrictiveProxied = "restrictive-proxied"
	StrictOpen         = "strict-open"
	StrictClosed       = "strict-closed"
	StrictProxied      = "strict-proxied"
)

// DefaultProfile is Gemini CLI's default Seatbelt profile.
const DefaultProfile = PermissiveOpen

// Profiles are the profile names in the order the docs list them.
var Profiles = []string{PermissiveOpen, PermissiveClosed, PermissiveProxied, RestrictiveOpen, RestrictiveClosed, RestrictiveProxied, StrictOpen, StrictClosed, StrictProxied}

// ProxyPort is where a "*-proxied" profile's proxy listens, on
// localhost, as Gemini CLI's.
const ProxyPort = 8877

// Methods.
const (
	// Landlock is the Linux kernel's unprivileged access control; the
	// default on Linux.
	Landlock = "landlock"
	// Bwrap is bubblewrap: a read-only bind of / with the writable roots
	// bound writable, the secrets masked, and a new network namespace
	// for "*-closed".
	Bwrap = "bwrap"
	// SandboxExec is macOS's Seatbelt (sandbox-exec) with a profile
	// written for each command; the default on macOS.
	SandboxExec = "sandbox-exec"
	// Docker and Podman run each command in a container of the image
	// GEMINI_SANDBOX_IMAGE (or tools.sandbox's "image") names, the
	// writable roots mounted at their own paths; Runsc is Docker with
	// gVisor's runtime.
	Docker = "docker"
	Podman = "podman"
	Runsc  = "runsc"
)

// Profile is what a confined command may do. Paths are absolute.
type Profile struct {
	// Name is one of Profiles.
	Name string `json:"name"`
	// Method is Landlock or Bwrap.
	Method string `json:"method"`
	// Write are the roots the command may write beneath (and read).
	Write []string `json:"write"`
	// Read are the roots the command may read beneath; "/" for the
	// permissive profiles.
	Read []string `json:"read"`
	// Deny are files and directories never read nor written, even when
	// beneath a Read or Write root: credentials.
	Deny []string `json:"deny"`
	// Protect are paths beneath the Write roots that stay read-only: a
	// workspace's .git (its hooks and config run programs outside the
	// sandbox when the user runs git) and .gemini (its settings run
	// hooks and MCP servers in the next session). Those missing when a
	// command starts are not protected for it.
	Protect []string `json:"protect,omitempty"`
	// Network allows TCP and UDP.
	Network bool `json:"network"`
	// Proxied allows connections to localhost:ProxyPort only.
	Proxied bool `json:"proxied,omitempty"`
	// Image is the container image of Docker, Podman and Runsc.
	Image string `json:"image,omitempty"`
}

// Options say where the workspace, home and temporary directories are.
type Options struct {
	// Name is the profile name; empty means DefaultProfile.
	Name string
	// Method is Landlock (the default) or Bwrap.
	Method string
	// Workspace are the workspace directories: the working directory and
	// the include directories.
	Workspace []string
	// Extra are more writable paths (tools.sandboxAllowedPaths).
	Extra []string
	// Home is the user's home directory; empty means os.UserHomeDir.
	Home string
	// Temp is the temporary directory; empty means os.TempDir ($TMPDIR,
	// else /tmp).
	Temp string
	// Network forces the network open whatever the profile
	// (tools.sandboxNetworkAccess).
	Network bool
	// AllowGitWrites leaves the workspace's .git writable
	// (tools.sandboxAllowGitWrites): git commit, git checkout.
	AllowGitWrites bool
	// Image is the container image (GEMINI_SANDBOX_IMAGE, tools.sandbox's
	// "image"); empty is DefaultImage.
	Image string
}

// DefaultImage is the container image of Docker and Podman sandboxes
// when none is named: Gemini CLI 0.61's own sandbox image.
const DefaultImage = "us-docker.pkg.dev/gemini-code-dev/gemini-cli/sandbox:0.61.0"

// Protected are the entries of a workspace directory a confined command
// may not write; .git only unless Options.AllowGitWrites.
var Protected = []string{".git", ".gemini"}

// Secrets are the paths under the home directory a confined command
// never reads: cloud and SSH credentials, and Castor's and Gemini CLI's
// own sign-in and extension secrets.
var Secrets = []string{
	".ssh", ".gnupg", ".aws", ".config/gcloud", ".azure", ".kube",
	".docker/config.json", ".netrc",
	".gemini/oauth_creds.json", ".gemini/castor_oauth_creds.json",
	".gemini/castor_extension_secrets.json", ".gemini/google_accounts.json",
	".gemini/mcp-oauth-tokens.json", ".gemini/mcp-oauth-tokens-v2.json",
}

// systemReads are what the restrictive profiles read besides the
// writable roots: enough to run programs.
var systemReads = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc", "/opt", "/nix", "/dev", "/proc", "/sys", "/run",
	// macOS: /etc and /tmp are links into /private.
	"/System", "/Library", "/private", "/Applications",
}

// strictHomeReads are what the strict profiles read in the home
// directory besides the restrictive ones' reads, as Gemini CLI's strict
// Seatbelt profiles: git's and tools' settings, Node version managers.
var strictHomeReads = []string{".gitconfig", ".config", ".nvm", ".fnm", ".node", ".npm", ".cache"}

// homeWrites are the caches the permissive profiles may write, as Gemini
// CLI's permissive Seatbelt profiles do: package managers and build
// caches (go build, npm, pip) fail without them.
var homeWrites = []string{".cache", ".npm"}

// Build makes the profile o describes.
func Build(o Options) (Profile, error) {
	name := o.Name
	if name == "" {
		name = DefaultProfile
	}
	if !slices.Contains(Profiles, name) {
		return Profile{}, fmt.Errorf("unknown sandbox profile %q (SEATBELT_PROFILE): use one of %s", name, strings.Join(Profiles, ", "))
	}
	method := o.Method
	if method == "" {
		method = Landlock
	}
	home := o.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	temp := o.Temp
	if temp == "" {
		temp = os.TempDir()
	}
	p := Profile{Name: name, Method: method, Network: strings.HasSuffix(name, "-open") || o.Network}
	if strings.HasSuffix(name, "-proxied") && !p.Network {
		if method != SandboxExec {
			return Profile{}, fmt.Errorf("sandbox profile %s (SEATBELT_PROFILE) needs sandbox-exec (macOS): Castor has no proxy network for %s; use a *-closed or *-open profile", name, method)
		}
		p.Proxied = true
	}
	if isContainer(method) {
		p.Image = o.Image
		if p.Image == "" {
			p.Image = DefaultImage
		}
	}
	paths := resolver{}
	add := func(list *[]string, path string) {
		if path == "" {
			return
		}
		path = paths.clean(path)
		if !slices.Contains(*list, path) {
			*list = append(*list, path)
		}
	}
	for _, w := range o.Workspace {
		add(&p.Write, w)
	}
	for _, w := range o.Workspace {
		for _, name := range Protected {
			if name != ".git" || !o.AllowGitWrites {
				add(&p.Protect, filepath.Join(w, name))
			}
		}
	}
	for _, w := range o.Extra {
		add(&p.Write, w)
	}
	add(&p.Write, temp)
	permissive := strings.HasPrefix(name, "permissive-")
	if permissive && home != "" {
		for _, h := range homeWrites {
			add(&p.Write, filepath.Join(home, h))
		}
	}
	if permissive {
		p.Read = []string{"/"}
	} else {
		// As they are, links included (/bin -> usr/bin): bubblewrap
		// binds them where programs look for them.
		p.Read = slices.Clone(systemReads)
		if strings.HasPrefix(name, "strict-") && home != "" {
			for _, h := range strictHomeReads {
				p.Read = append(p.Read, filepath.Join(paths.clean(home), h))
			}
		}
	}
	if home != "" {
		for _, s := range Secrets {
			add(&p.Deny, filepath.Join(home, s))
		}
	}
	return p, nil
}

// clean makes path absolute and clean, following symbolic links where it
// exists: Landlock and bubblewrap work on the file a path names.
func clean(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return filepath.Clean(path)
}

// A resolver is clean remembering what it resolved. Build cleans some
// twenty paths under a few directories (the workspace, the home
// directory and its secrets); filepath.EvalSymlinks would lstat every
// component of each again, a tenth of a headless run's system calls.
type resolver map[string]string

// clean is the package's clean.
func (r resolver) clean(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	path = filepath.Clean(path)
	if real, ok := r.real(path); ok {
		return real
	}
	return path
}

// real is filepath.EvalSymlinks of a clean absolute path, resolved from
// its parent's answer: one lstat per path once its parent is known.
func (r resolver) real(path string) (string, bool) {
	if real, ok := r[path]; ok {
		return real, real != ""
	}
	parent := filepath.Dir(path)
	if parent == path || !filepath.IsAbs(path) {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			real = ""
		}
		r[path] = real
		return real, real != ""
	}
	real := ""
	if dir, ok := r.real(parent); ok {
		p := filepath.Join(dir, filepath.Base(path))
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			real = p
		} else if err == nil {
			// The link's target, resolved whole as EvalSymlinks would.
			if e, err := filepath.EvalSymlinks(p); err == nil {
				real = e
			}
		}
	}
	r[path] = real
	return real, real != ""
}

// Describe is the profile in one line, for the start-up notice.
func (p Profile) Describe() string {
	net := "network allowed"
	if !p.Network {
		net = "no network"
	}
	ro := ""
	if slices.ContainsFunc(p.Protect, func(path string) bool { return filepath.Base(path) == ".git" }) {
		ro = "; .git read-only"
	}
	return fmt.Sprintf("%s (%s; writes: %s%s; %s)", p.Name, p.Method, strings.Join(p.Write, ", "), ro, net)
}

// Rule is the rule that denies a write to path, for messages.
func (p Profile) Rule(path string) string {
	real := clean(path)
	if beneathAny(real, p.Deny) {
		return fmt.Sprintf("a credential file; profile %s", p.Name)
	}
	for _, g := range p.Protect {
		if beneath(real, g) {
			if filepath.Base(g) == ".git" {
				return fmt.Sprintf("the workspace's .git is read-only in the sandbox, its hooks and config would run programs outside it; tools.sandboxAllowGitWrites: true allows it; profile %s", p.Name)
			}
			return fmt.Sprintf("the workspace's %s is read-only in the sandbox, its settings would run programs outside it; profile %s", filepath.Base(g), p.Name)
		}
	}
	if dir := filepath.Dir(real); p.Method == Landlock && slices.Contains(p.Write, dir) && holdsProtected(dir, p.Protect) {
		return fmt.Sprintf("entries at the top of a workspace holding .git cannot be made, removed or renamed under Landlock, which keeps .git read-only; work in a subdirectory, or use GEMINI_SANDBOX=bwrap or tools.sandboxAllowGitWrites: true; profile %s", p.Name)
	}
	return fmt.Sprintf("outside the workspace; profile %s", p.Name)
}

// beneathAny reports whether path is one of roots or beneath one.
func beneathAny(path string, roots []string) bool {
	for _, r := range roots {
		if beneath(path, r) {
			return true
		}
	}
	return false
}

func beneath(path, root string) bool {
	if root == "/" || path == root {
		return true
	}
	return strings.HasPrefix(path, root+string(filepath.Separator))
}
