package castor

import (
	"errors"
	"fmt"

	"github.com/castor-dev/castor/internal/sandbox"
	"github.com/castor-dev/castor/internal/setup"
)

// Sandbox says how the commands an agent starts are confined (the shell
// tool, SessionContext.Shell, command hooks, discovered tools, stdio MCP
// servers), as the castor command's -s does; see docs/sandbox.md. The
// tools.sandboxAllowedPaths, tools.sandboxNetworkAccess and
// tools.sandboxAllowGitWrites settings add to it.
//
// The confinement is the process's: while an agent holding a sandbox
// lives, every command the process starts through Castor is confined,
// those of agents built without WithSandbox included, and agents asking
// for a different sandbox at the same time fail to build.
type Sandbox struct {
	// Method is "" for the platform's own (Landlock on Linux, or
	// bubblewrap for a repository where it is installed; sandbox-exec on
	// macOS), or one of "landlock", "bwrap", "sandbox-exec", "docker",
	// "podman".
	Method string
	// Profile is one of Gemini CLI's profile names ("permissive-open",
	// "permissive-closed", "permissive-proxied", "restrictive-open",
	// "strict-open", …); "" is "permissive-open".
	Profile string
	// AllowedPaths are more paths the commands may write.
	AllowedPaths []string
	// Network lets the commands reach the network whatever the profile.
	Network bool
	// AllowGitWrites lets the commands write the workspace's .git (git
	// commit); it is read-only otherwise.
	AllowGitWrites bool
	// Image is the container image of the docker and podman methods;
	// "" is Gemini CLI 0.61's sandbox image.
	Image string
}

// WithSandbox confines the commands the agent starts as s says. A
// sandbox that cannot be had here fails New with an error wrapping
// ErrSandboxUnavailable: nothing runs unconfined instead.
func WithSandbox(s Sandbox) Option {
	return func(o *options) {
		o.Sandbox = &setup.SandboxOptions{Method: s.Method, Profile: s.Profile,
			AllowedPaths: append([]string(nil), s.AllowedPaths...), Network: s.Network, AllowGitWrites: s.AllowGitWrites, Image: s.Image}
	}
}

// ErrSandboxUnavailable is wrapped by New's error when the sandbox
// WithSandbox asks for cannot be had (no Landlock in the kernel, no
// bwrap, no running docker engine, another platform).
var ErrSandboxUnavailable = errors.New("sandbox unavailable")

// sandboxError wraps the assembly's unavailable sandbox in
// ErrSandboxUnavailable, keeping its cause in the message.
func sandboxError(err error) error {
	var ue *sandbox.UnavailableError
	if errors.As(err, &ue) {
		return fmt.Errorf("castor: %w: %v", ErrSandboxUnavailable, err)
	}
	return err
}

// SandboxProfile says in one line how the agent's commands are confined
// ("permissive-open (landlock; writes: …)"), or "" when WithSandbox was
// not given.
func (a *Agent) SandboxProfile() string {
	if a.a.Sandbox == nil {
		return ""
	}
	return a.a.Sandbox.Describe()
}
