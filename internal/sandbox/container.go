package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/castor-dev/castor/internal/lazy"
	"mvdan.cc/sh/v3/shell"
)

// isContainer reports whether method runs commands in containers.
func isContainer(method string) bool {
	return method == Docker || method == Podman || method == Runsc
}

// engineOf is the program that runs method's containers.
func engineOf(method string) string {
	if method == Podman {
		return Podman
	}
	return Docker
}

// imageName is what a container image reference may hold, as Gemini CLI
// checks it: nothing an engine would read as an option or shell.
var imageName = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_.:/@-]+$`) }}

// engineTimeout bounds each question to the engine at start.
const engineTimeout = 2 * time.Minute

// runEngine runs the engine with args and returns what it printed.
func runEngine(path string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), engineTimeout)
	defer cancel()
	return exec.CommandContext(ctx, path, args...).CombinedOutput()
}

// checkContainer says why the profile's engine cannot run the commands
// here, or nil: not installed, its engine not running, the image missing
// and not pulled. run asks the engine (runEngine; tests give another).
func (s *Sandbox) checkContainer(run func(path string, args ...string) ([]byte, error)) error {
	p := s.Profile
	engine := engineOf(p.Method)
	if !imageName.Get().MatchString(p.Image) {
		return fmt.Errorf("invalid sandbox image name %q (GEMINI_SANDBOX_IMAGE or tools.sandbox's image)", p.Image)
	}
	path, err := exec.LookPath(engine)
	if err != nil {
		return fmt.Errorf("%s not found on PATH (install it, or choose another sandbox method)", engine)
	}
	if out, err := run(path, "info", "--format", "{{.ServerVersion}}"); err != nil {
		return fmt.Errorf("%s is installed but its engine does not answer (%s info: %v: %s); start it, or choose another sandbox method", engine, engine, err, firstLine(out))
	}
	if _, err := run(path, "image", "inspect", "--format", "{{.Id}}", p.Image); err != nil {
		if out, err := run(path, "pull", p.Image); err != nil {
			return fmt.Errorf("sandbox image %s is missing and could not be pulled (%v: %s); pull or build it, or name another with GEMINI_SANDBOX_IMAGE", p.Image, err, firstLine(out))
		}
	}
	s.engine = path
	return nil
}

// firstLine is out's first non-empty line, trimmed.
func firstLine(out []byte) string {
	for l := range strings.SplitSeq(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return "no output"
}

// containers numbers the containers this process starts.
var containers atomic.Int64

// keepOut are the environment variables a container keeps its own of:
// the image's programs are found on its PATH, and its user's home is
// its own.
var keepOut = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "HOSTNAME", "PWD", "OLDPWD", "SHLVL", "_"}

// containerArgs are the engine's arguments that run argv in dir, in a
// container of the profile's image, with the environment env, as Gemini
// CLI runs its sandbox: removed when done, an init reaping zombies, the
// writable roots mounted at their own paths (.git and .gemini read-only),
// nothing else of the host's files, no network for the closed profiles,
// the host user's ids on Linux. Variables are passed by name, so their
// values never show in the process list.
func (p Profile) containerArgs(dir string, argv, env []string, name string) []string {
	args := []string{"run", "-i", "--rm", "--init", "--entrypoint", "", "--name", name, "--workdir", dir}
	if p.Method == Runsc {
		args = append(args, "--runtime=runsc")
	}
	if !p.Network {
		args = append(args, "--network", "none")
	} else {
		args = append(args, "--add-host", "host.docker.internal:host-gateway")
	}
	if runtime.GOOS == "linux" && os.Getenv("SANDBOX_SET_UID_GID") != "false" {
		if p.Method == Podman {
			args = append(args, "--userns=keep-id")
		} else {
			args = append(args, "--user", strconv.Itoa(os.Getuid())+":"+strconv.Itoa(os.Getgid()))
		}
	}
	for _, w := range p.Write {
		if exists(w) {
			args = append(args, "--volume", w+":"+w)
		}
	}
	for _, g := range p.Protect {
		if exists(g) {
			args = append(args, "--volume", g+":"+g+":ro")
		}
	}
	if flags := os.Getenv("SANDBOX_FLAGS"); flags != "" {
		if words, err := shell.Fields(flags, nil); err == nil {
			args = append(args, words...)
		}
	}
	var names []string
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if ok && k != "" && !slices.Contains(keepOut, k) && !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		args = append(args, "--env", k)
	}
	args = append(args, "--env", "SANDBOX="+name, p.Image)
	return append(args, argv...)
}

// wrapContainer makes cmd run in a container: the engine's client runs
// it and ends with it.
func (s *Sandbox) wrapContainer(cmd *exec.Cmd) {
	argv := slices.Clone(cmd.Args)
	if len(argv) == 0 {
		argv = []string{cmd.Path}
	}
	// The image's own program of that name: the host's path may not
	// exist in it.
	dir := cmd.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	name := fmt.Sprintf("castor-sandbox-%d-%d", os.Getpid(), containers.Add(1))
	cmd.Args = append([]string{s.engine}, s.Profile.containerArgs(dir, argv, env, name)...)
	cmd.Path = s.engine
}
