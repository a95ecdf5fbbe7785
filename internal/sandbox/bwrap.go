package sandbox

import (
	"os"
)

// bwrapArgs are bubblewrap's options for the profile: the readable roots
// bound read-only, the writable ones writable, the secrets hidden (an
// empty read-only directory over a directory, /dev/null over a file),
// the workspace's .git and .gemini read-only, and a network namespace of its own when
// the profile is closed.
func (s *Sandbox) bwrapArgs() []string {
	p := s.Profile
	args := []string{"--die-with-parent"}
	for _, r := range p.Read {
		if _, err := os.Stat(r); err == nil {
			args = append(args, "--ro-bind", r, r)
		}
	}
	args = append(args, "--dev", "/dev")
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
