//go:build unix

package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// secureSystemDir reports whether the admin policy folder may be read:
// missing (nothing to read), or a directory owned by root that neither
// its group nor others can write, as Gemini CLI requires. Otherwise it
// warns and the folder is skipped.
func secureSystemDir(dir string, warn func(string)) bool {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	reason := ""
	switch {
	case err != nil:
		reason = "Failed to access directory: " + err.Error()
	case !fi.IsDir():
		reason = "Not a directory"
	default:
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
			reason = fmt.Sprintf("Directory '%s' is not owned by root (uid 0). Current uid: %d. To fix this, run: sudo chown root:root %q", dir, st.Uid, dir)
		} else if fi.Mode().Perm()&0o022 != 0 {
			reason = fmt.Sprintf("Directory '%s' is writable by group or others (mode: %o). To fix this, run: sudo chmod g-w,o-w %q", dir, fi.Mode().Perm(), dir)
		}
	}
	if reason != "" {
		warn(fmt.Sprintf("Security Warning: Skipping system policies from %s: %s", dir, reason))
		return false
	}
	return true
}
