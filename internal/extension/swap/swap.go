// Package swap replaces an installed extension's folder with a new copy so
// that a crash at any moment leaves one whole copy installed, and finishes
// or rolls back, at the next load, a replacement a crash interrupted.
//
// A replacement of dir goes through three sibling folders:
//
//	dir.castor-partial  the new copy while it is being written
//	dir.castor-new      the new copy once whole (renamed from partial)
//	dir.castor-old      the installed copy, moved aside for the swap
//
// Renames of folders are atomic, so each name holds either nothing or a
// whole copy, except partial, which is never installed. Replacements and
// recoveries of one extensions folder are serialised by an advisory lock
// on a file in it, so a process loading extensions never finishes an
// update another process is in the middle of.
package swap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/castor-dev/castor/internal/fsutil"
)

// Suffixes of the working folders beside an extension's folder.
const (
	partialSuffix = ".castor-partial"
	newSuffix     = ".castor-new"
	oldSuffix     = ".castor-old"
	// legacySuffix is the new copy of earlier Castor builds, which wrote
	// it in place: it may be incomplete, so it is never installed.
	legacySuffix = ".castor-update"
)

// LockName is the lock file in the extensions folder.
const LockName = ".castor-extensions.lock"

// Leftover reports whether name, a folder in the extensions folder, is a
// working copy of a replacement rather than an extension.
func Leftover(name string) bool {
	for _, s := range []string{partialSuffix, newSuffix, oldSuffix, legacySuffix} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// step is called after each step of Replace with its name; tests set it
// to kill the process there.
var step = func(string) {}

// Replace makes dir a new copy that build writes into the empty folder it
// is given. dir may not exist yet (an install). If build or a rename
// fails, dir is left as it was; if the process dies, Recover finishes or
// undoes the replacement. A replacement an earlier run left unfinished is
// finished first; what was done then is returned in note.
func Replace(dir string, build func(tmp string) error) (note string, err error) {
	return replace(dir, build, false)
}

// Create is Replace for a folder that must not exist yet (an install): it
// fails with an error wrapping fs.ErrExist when dir exists, also when
// recovering an interrupted update brought it back.
func Create(dir string, build func(tmp string) error) (note string, err error) {
	return replace(dir, build, true)
}

func replace(dir string, build func(tmp string) error, create bool) (note string, err error) {
	lock, err := fsutil.Lock(filepath.Join(filepath.Dir(dir), LockName))
	if err != nil {
		return "", err
	}
	defer lock.Unlock()
	note, err = recoverLocked(dir)
	if errors.Is(err, errOnlyLegacy) {
		// The note told the user to reinstall; this is that install (or
		// an update of a copy a later install brought back). The new copy
		// built here replaces the doubtful one, which goes.
		if err = os.RemoveAll(dir + legacySuffix); err == nil {
			note = fmt.Sprintf("extension %q: removed %s, the possibly incomplete copy an interrupted update left", filepath.Base(dir), dir+legacySuffix)
		}
	}
	if err != nil {
		return note, err
	}
	if create && exists(dir) {
		return note, &fs.PathError{Op: "create", Path: dir, Err: fs.ErrExist}
	}
	partial, fresh, old := dir+partialSuffix, dir+newSuffix, dir+oldSuffix
	if err := os.MkdirAll(partial, 0o755); err != nil {
		return note, err
	}
	if err := build(partial); err != nil {
		os.RemoveAll(partial)
		return note, err
	}
	step("built")
	if err := os.Rename(partial, fresh); err != nil {
		os.RemoveAll(partial)
		return note, err
	}
	step("whole")
	had := exists(dir)
	if had {
		if err := os.Rename(dir, old); err != nil {
			os.RemoveAll(fresh)
			return note, err
		}
		step("moved-aside")
	}
	if err := os.Rename(fresh, dir); err != nil {
		if had {
			if os.Rename(old, dir) != nil {
				// Both copies stay; Recover installs one at the next load.
				return note, err
			}
		}
		os.RemoveAll(fresh)
		return note, err
	}
	step("in-place")
	if had {
		os.RemoveAll(old)
	}
	return note, nil
}

// RecoverAll finishes or rolls back every replacement in root (an
// extensions folder) that a crash interrupted, and returns one line per
// extension saying what was done. While another process holds the lock
// (an update is running) it does nothing.
func RecoverAll(root string) []string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	dirs := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if !Leftover(n) || !e.IsDir() {
			continue
		}
		for _, s := range []string{partialSuffix, newSuffix, oldSuffix, legacySuffix} {
			if base, ok := strings.CutSuffix(n, s); ok {
				dirs[base] = true
			}
		}
	}
	if len(dirs) == 0 {
		return nil
	}
	lock, err := fsutil.TryLock(filepath.Join(root, LockName))
	if err != nil {
		if errors.Is(err, errors.ErrUnsupported) {
			// No try-lock here: wait for the updater, which is quick.
			lock, err = fsutil.Lock(filepath.Join(root, LockName))
		}
		if err != nil {
			return nil
		}
	}
	defer lock.Unlock()
	var notes []string
	for base := range dirs {
		note, err := recoverLocked(filepath.Join(root, base))
		if err != nil {
			notes = append(notes, fmt.Sprintf("extension folder %s: an interrupted update could not be repaired: %v", filepath.Join(root, base), err))
		} else if note != "" {
			notes = append(notes, note)
		}
	}
	sort.Strings(notes)
	return notes
}

// recoverLocked puts one whole copy of dir in place from what an
// interrupted replacement left, deleting a copy only when another whole
// one is installed. The caller holds the lock.
func recoverLocked(dir string) (string, error) {
	name := filepath.Base(dir)
	partial, fresh, old, legacy := dir+partialSuffix, dir+newSuffix, dir+oldSuffix, dir+legacySuffix
	if !exists(partial) && !exists(fresh) && !exists(old) && !exists(legacy) {
		return "", nil
	}
	var did []string
	// An unfinished new copy is never installed.
	if exists(partial) {
		if err := os.RemoveAll(partial); err != nil {
			return "", err
		}
		did = append(did, "removed its unfinished new copy")
	}
	switch {
	case exists(fresh):
		// The new copy is whole: finish the update.
		if exists(dir) {
			if exists(old) {
				if err := os.RemoveAll(old); err != nil {
					return "", err
				}
			}
			if err := os.Rename(dir, old); err != nil {
				return "", err
			}
		}
		if err := os.Rename(fresh, dir); err != nil {
			// Put the previous copy back rather than leave none.
			if !exists(dir) && exists(old) {
				os.Rename(old, dir)
			}
			return "", err
		}
		os.RemoveAll(old)
		did = append(did, "finished it (the new version is installed)")
	case exists(old) && exists(dir):
		// Interrupted while removing the previous copy: dir is the new one.
		if err := os.RemoveAll(old); err != nil {
			return "", err
		}
		did = append(did, "finished it (removed the previous copy)")
	case exists(old):
		// Moved aside, no whole new copy: roll back.
		if err := os.Rename(old, dir); err != nil {
			return "", err
		}
		did = append(did, "rolled it back (the previous version is installed again)")
	}
	if exists(legacy) {
		if !exists(dir) {
			// Nothing else to install; keep it for the user to look at.
			return "", fmt.Errorf("%w: only %s is left, which may be incomplete; reinstall the extension", errOnlyLegacy, legacy)
		}
		if err := os.RemoveAll(legacy); err != nil {
			return "", err
		}
		did = append(did, "removed its possibly incomplete new copy (the installed copy is unchanged)")
	}
	if len(did) == 0 {
		return "", nil
	}
	return fmt.Sprintf("extension %q: an update was interrupted; %s", name, strings.Join(did, ", ")), nil
}

// errOnlyLegacy is recoverLocked's error when the only copy left is an
// earlier build's possibly incomplete new copy: nothing can be installed
// from it, and an install replaces it.
var errOnlyLegacy = errors.New("no whole copy to install")

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
