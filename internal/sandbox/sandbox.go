package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
)

// ExitCode is the exit code of a run whose sandbox cannot be had, as
// Gemini CLI's FatalSandboxError.
const ExitCode = 44

// ForceUnavailableEnv, set to 1, makes every method unavailable: for
// tests of what happens on machines without a sandbox.
const ForceUnavailableEnv = "CASTOR_SANDBOX_FORCE_UNAVAILABLE"

// unsupported are Gemini CLI's sandbox commands Castor does not drive
// (yet): asking for one fails rather than running unconfined.
var unsupported = []string{"lxc", "windows-native"}

// Choice is which sandbox a run asked for.
type Choice struct {
	// Method is Landlock or Bwrap; empty is no sandbox.
	Method string
	// Asked is whether the user asked (flag, environment, settings)
	// rather than the run turning it on by default: only what was asked
	// for fails when unavailable.
	Asked bool
	// Source names where the choice came from, for messages.
	Source string
	// Auto is whether the method was not named (true, or on by
	// default): on Linux, bubblewrap is then preferred where it keeps a
	// workspace's .git read-only at a lower cost than Landlock's.
	Auto bool
}

// Choose reads the sandbox choice as Gemini CLI does: GEMINI_SANDBOX
// first, then -s/--sandbox (flag is nil when not given), then
// tools.sandbox (a boolean, a method name, or an object with "enabled"
// and "command"). Values: true/1 (the platform's method), false/0, or a
// method name. When none says anything, byDefault turns Landlock on
// without it being asked for.
func Choose(env string, flag *bool, setting any, byDefault bool) (Choice, error) {
	var value any
	var source string
	switch {
	case strings.TrimSpace(env) != "":
		value, source = strings.ToLower(strings.TrimSpace(env)), "GEMINI_SANDBOX"
	case flag != nil:
		value, source = *flag, "--sandbox"
	case setting != nil:
		value, source = setting, "tools.sandbox"
		if m, ok := setting.(map[string]any); ok {
			value = m["enabled"]
			if c, ok := m["command"].(string); ok && c != "" && value != false {
				value = c
			}
			if value == nil {
				value = false
			}
		}
	default:
		if byDefault {
			return Choice{Method: platformMethod(), Source: "default", Auto: true}, nil
		}
		return Choice{}, nil
	}
	return chooseValue(value, source)
}

// chooseValue is the choice one value says, from source.
func chooseValue(value any, source string) (Choice, error) {
	switch v := value.(type) {
	case bool:
		if !v {
			return Choice{Source: source}, nil
		}
		return Choice{Method: platformMethod(), Asked: true, Source: source, Auto: true}, nil
	case string:
		switch v {
		case "", "0", "false":
			return Choice{Source: source}, nil
		case "1", "true":
			return Choice{Method: platformMethod(), Asked: true, Source: source, Auto: true}, nil
		case Landlock, Bwrap, SandboxExec, Docker, Podman, Runsc:
			return Choice{Method: v, Asked: true, Source: source}, nil
		}
		if slices.Contains(unsupported, v) {
			return Choice{}, &UnavailableError{Method: v, Cause: fmt.Errorf("Castor does not drive %s sandboxes yet (from %s); use landlock or bwrap on Linux, sandbox-exec on macOS, or docker or podman", v, source)}
		}
		return Choice{}, &UnavailableError{Method: v, Cause: fmt.Errorf("invalid sandbox command %q (from %s): use true, false, landlock, bwrap, sandbox-exec, docker, podman or runsc", v, source)}
	}
	return Choice{}, &UnavailableError{Method: fmt.Sprint(value), Cause: fmt.Errorf("invalid %s value %v: use true, false or a method name", source, value)}
}

// platformMethod is what "true" means here.
func platformMethod() string {
	if runtime.GOOS == "darwin" {
		return SandboxExec
	}
	return Landlock
}

// UnavailableError is a sandbox that was chosen and cannot be had.
type UnavailableError struct {
	Method string
	Cause  error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("sandbox %s unavailable: %v", e.Method, e.Cause)
}

func (e *UnavailableError) Unwrap() error { return e.Cause }

// Sandbox confines commands to a profile.
type Sandbox struct {
	// Profile is what the commands may do.
	Profile Profile
	// bwrap is the bubblewrap binary; engine the docker or podman one;
	// sandboxExec sandbox-exec.
	bwrap, engine, sandboxExec string
	// rulesets is Landlock's ruleset for the workspace as it is.
	rulesets rulesetCache
}

// New checks that the profile can be enforced here and returns the
// sandbox that enforces it, or an *UnavailableError saying why not.
func New(p Profile) (*Sandbox, error) {
	fail := func(err error) (*Sandbox, error) { return nil, &UnavailableError{Method: p.Method, Cause: err} }
	if os.Getenv(ForceUnavailableEnv) == "1" {
		return fail(errors.New(ForceUnavailableEnv + " is set"))
	}
	s := &Sandbox{Profile: p}
	switch p.Method {
	case Landlock:
		// Only the kernel's support is checked here: the ruleset lists
		// the workspace's entries, milliseconds a run that starts no
		// command should not pay; it is built before the first command,
		// which fails closed if it cannot be.
		if err := landlockCheck(p); err != nil {
			return fail(err)
		}
	case Bwrap:
		if runtime.GOOS != "linux" {
			return fail(errors.New("bubblewrap is Linux only"))
		}
		path, err := exec.LookPath("bwrap")
		if err != nil {
			return fail(errors.New("bwrap not found on PATH (install bubblewrap)"))
		}
		s.bwrap = path
		// bwrap exists but may not be allowed to make namespaces here.
		probe := exec.Command(path, append(s.bwrapArgs(), "--", "true")...)
		if out, err := probe.CombinedOutput(); err != nil {
			return fail(fmt.Errorf("bwrap cannot start a sandbox here: %v: %s", err, strings.TrimSpace(string(out))))
		}
	case SandboxExec:
		if err := s.checkSeatbelt(); err != nil { // seatbelt.go
			return fail(err)
		}
	case Docker, Podman, Runsc:
		if err := s.checkContainer(runEngine); err != nil { // container.go
			return fail(err)
		}
	default:
		return fail(errors.New("unknown method"))
	}
	return s, nil
}

// Start starts cmd confined: from a Landlock-confined thread, or under
// bwrap. A command whose program was not found fails as it would
// unconfined.
func (s *Sandbox) Start(cmd *exec.Cmd) error {
	if cmd.Err != nil || cmd.Path == "" {
		return cmd.Start()
	}
	switch s.Profile.Method {
	case SandboxExec:
		s.wrapSeatbelt(cmd)
		return cmd.Start()
	case Docker, Podman, Runsc:
		s.wrapContainer(cmd)
		return cmd.Start()
	}
	if s.Profile.Method == Bwrap {
		argv := cmd.Args
		if len(argv) == 0 {
			argv = []string{cmd.Path}
		}
		args := append([]string{s.bwrap}, s.bwrapArgs()...)
		cmd.Args = append(append(args, "--", cmd.Path), argv[1:]...)
		cmd.Path = s.bwrap
		return cmd.Start()
	}
	return s.rulesets.start(s.Profile, cmd)
}
