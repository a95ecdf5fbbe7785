package sandbox

import (
	"os"
)

// bwrapArgs are bubblewrap's options for the profile: the readable roots
// bound read-only, the writable ones writable, the secrets hidden (an
// empty read-only directory over a directory, /dev/null over a file),
// the workspace's .git and .gemini read-only, a pid namespace of its own,
// and a network namespace of its own when the profile is closed.
func (s *Sandbox) bwrapArgs() []string {
	p := s.Profile
	// A pid namespace of its own (and its own /proc to match): the
	// command cannot signal Castor or the user's other processes, as
	// Landlock's signal scoping keeps it from doing; the session's
	// background processes are stopped by Castor (tool/builtin).
	args := []string{"--die-with-parent", "--unshare-pid"}
	for _, r := range p.Read {
		if _, err := os.Stat(r); err == nil && r != "/proc" {
			args = append(args, "--ro-bind", r, r)
		}
	}
	args = append(args, "--dev", "/dev", "--proc", "/proc")
	for _, w := range p.Write {
		if _, err := os.Stat(w); err == nil {
			args = append(args, "--bind", w, w)
		}
	}
	// A repository's .git stays read-only: its hooks and config run
	// programs outside the sandbox later, when the user runs git.
	for _, g := range p.Protect {
		if exists(g) {
			args = append(args, "--ro-bind", g, g)
		}
	}
	for _, d := range p.Deny {
		fi, err := os.Stat(d)
		switch {
		case err != nil:
		case fi.IsDir():
			args = append(args, "--tmpfs", d, "--remount-ro", d)
		default:
			args = append(args, "--ro-bind", "/dev/null", d)
		}
	}
	if !p.Network {
		args = append(args, "--unshare-net")
	}
	return args
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
