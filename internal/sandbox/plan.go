package sandbox

import (
	"os"
	"path/filepath"
)

// grant is one allow rule of an allow-list sandbox (Landlock): the
// hierarchy beneath Path may be read, or read and written; or, for List,
// only its directories listed.
type grant struct {
	Path  string
	Write bool
	// List grants listing directories only: the directories on the way
	// to a secret, whose other entries get grants of their own.
	List bool
	// Dir is whether Path is a directory (files take file rights only).
	Dir bool
}

// devices are the device files every command may read and write,
// terminal control included, whatever the profile.
var devices = []string{
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm",
}

// plan turns the profile into allow rules. An allow-list cannot subtract,
// so a root holding a secret is granted entry by entry, down the path to
// the secret, leaving the secret out: its directory stays listable, the
// secret unreadable. A writable root holding a protected entry (.git) is
// granted the same way, its protected entries read-only. The plan is
// made again for each command, so it follows the workspace as it is.
func plan(p Profile) []grant {
	var out []grant
	var expand func(path string, write, root bool)
	expand = func(path string, write, root bool) {
		if beneathAny(path, p.Deny) {
			return
		}
		stat := os.Lstat
		if root {
			stat = os.Stat
		}
		fi, err := stat(path)
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			// A missing root is nothing to grant; a symbolic link
			// below a root is governed by what it points to.
			return
		}
		if fi.IsDir() && holdsSecret(path, p.Deny) {
			out = append(out, grant{Path: path, List: true, Dir: true})
			entries, err := os.ReadDir(path)
			if err != nil {
				return
			}
			for _, e := range entries {
				expand(filepath.Join(path, e.Name()), write, false)
			}
			return
		}
		if write && beneathAny(path, p.Protect) {
			out = append(out, grant{Path: path, Dir: fi.IsDir()})
			return
		}
		if write && fi.IsDir() && holdsProtected(path, p.Protect) {
			// Landlock cannot take .git out of a writable workspace:
			// the workspace is granted entry by entry instead, so its
			// own entries stay as they are (none made, removed or
			// renamed at its top) while everything inside them is
			// writable.
			out = append(out, grant{Path: path, Dir: true})
			entries, err := os.ReadDir(path)
			if err != nil {
				return
			}
			for _, e := range entries {
				expand(filepath.Join(path, e.Name()), write, false)
			}
			return
		}
		out = append(out, grant{Path: path, Write: write, Dir: fi.IsDir()})
	}
	for _, r := range p.Read {
		expand(r, false, true)
	}
	for _, w := range p.Write {
		expand(w, true, true)
	}
	for _, d := range devices {
		if fi, err := os.Stat(d); err == nil {
			out = append(out, grant{Path: d, Write: true, Dir: fi.IsDir()})
		}
	}
	return out
}

// holdsProtected reports whether one of protect exists strictly beneath
// dir.
func holdsProtected(dir string, protect []string) bool {
	for _, p := range protect {
		if p != dir && beneath(p, dir) {
			if _, err := os.Lstat(p); err == nil {
				return true
			}
		}
	}
	return false
}

// holdsSecret reports whether one of deny is strictly beneath dir.
func holdsSecret(dir string, deny []string) bool {
	for _, d := range deny {
		if d != dir && beneath(d, dir) {
			return true
		}
	}
	return false
}
