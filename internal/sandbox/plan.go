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
// secret unreadable. Entries created later beneath such a directory
// (the home directory, in the permissive profiles) are not readable.
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

// holdsSecret reports whether one of deny is strictly beneath dir.
func holdsSecret(dir string, deny []string) bool {
	for _, d := range deny {
		if d != dir && beneath(d, dir) {
			return true
		}
	}
	return false
}
