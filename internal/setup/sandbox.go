package setup

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/castor-dev/castor/internal/proc"
	"github.com/castor-dev/castor/internal/sandbox"
)

// SandboxOptions are a sandbox a program asks for in code
// (castor.WithSandbox): the same as -s with SEATBELT_PROFILE and the
// tools.sandbox* settings, which add their allowed paths and network.
type SandboxOptions struct {
	// Method is "" for the platform's own, or a method's name.
	Method string
	// Profile is one of Gemini CLI's profile names; "" is the default.
	Profile string
	// AllowedPaths are more writable paths.
	AllowedPaths []string
	// Network opens the network whatever the profile.
	Network bool
	// AllowGitWrites leaves the workspace's .git writable.
	AllowGitWrites bool
	// Image is the container image of docker and podman.
	Image string
}

// sandboxes is the sandbox of this process's agents: internal/proc
// confines every command the process starts, so agents asking for a
// sandbox share one, held while one of them lives.
var sandboxes struct {
	mu     sync.Mutex
	active *sandbox.Sandbox
	users  int
}

// startSandbox confines the commands of the agent being assembled, as
// o.Sandbox asks, before any of them runs (hooks, MCP servers,
// discovered tools): a sandbox that cannot be had fails the assembly
// with an *sandbox.UnavailableError, never running a command unconfined.
func startSandbox(o Options, a *Agent) error {
	if o.Sandbox == nil {
		return nil
	}
	method := strings.ToLower(strings.TrimSpace(o.Sandbox.Method))
	if method == "" {
		method = "true"
	}
	r := sandbox.Request{Code: method, Options: sandbox.Options{
		Name:           o.Sandbox.Profile,
		Workspace:      a.Workspace.Dirs(),
		Extra:          o.Sandbox.AllowedPaths,
		Home:           a.Home.UserDir,
		Temp:           a.Env.Getenv("TMPDIR"), // the commands' own; empty is os.TempDir
		Network:        o.Sandbox.Network,
		AllowGitWrites: o.Sandbox.AllowGitWrites,
		Image:          o.Sandbox.Image,
	}}
	if st := a.Settings; st != nil {
		more, _ := st.GetStrings("tools.sandboxAllowedPaths")
		r.Extra = append(r.Extra, more...)
		if on, _ := st.GetBool("tools.sandboxNetworkAccess"); on {
			r.Network = true
		}
		if on, _ := st.GetBool("tools.sandboxAllowGitWrites"); on {
			r.AllowGitWrites = true
		}
	}
	s, _, err := sandbox.Activate(r)
	if err != nil {
		return err
	}
	sandboxes.mu.Lock()
	defer sandboxes.mu.Unlock()
	if sandboxes.active != nil && !reflect.DeepEqual(sandboxes.active.Profile, s.Profile) {
		return fmt.Errorf("castor.WithSandbox: another agent of this process confines its commands with %s, and the sandbox is one per process; ask for the same one, or run this agent in a process of its own", sandboxes.active.Profile.Describe())
	}
	if sandboxes.active == nil {
		sandboxes.active = s
		proc.SetSandbox(s)
	}
	sandboxes.users++
	a.Sandbox = &sandboxes.active.Profile
	var once sync.Once
	a.onClose(func() error {
		once.Do(func() {
			sandboxes.mu.Lock()
			defer sandboxes.mu.Unlock()
			if sandboxes.users--; sandboxes.users == 0 {
				sandboxes.active = nil
				proc.SetSandbox(nil)
			}
		})
		return nil
	})
	return nil
}
