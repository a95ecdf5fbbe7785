// Package fsutil holds the file-system helpers that several Castor
// packages need to agree on: replacing a file atomically, and resolving
// symlinks in a path that may not exist yet.
//
// It also takes advisory file locks (Lock, LockShared, TryLock; lock*.go:
// flock, LockFileEx, an O_EXCL fallback), which the policy saver,
// extension swaps, extension secrets, MCP enablement, session claims and
// the blob store's sweep share.
package fsutil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data so that readers see the old or
// the new file and never half of one (see ReplaceFile). A symlinked path
// has its target replaced, so the link survives. An existing file keeps
// its permission bits; a new one gets perm. Missing parent directories are
// created with mode 0755, or 0700 when perm is owner-only (a file of
// secrets or of a user's sessions), so the directory hides their names too.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	dirPerm := os.FileMode(0o755)
	if perm&0o077 == 0 {
		dirPerm = 0o700
	}
	if err := os.MkdirAll(filepath.Dir(path), dirPerm); err != nil {
		return err
	}
	return ReplaceFile(path, data, perm)
}

// ReplaceFile puts a file holding data, with exactly the permission bits
// perm, at path: it writes a temporary file in the same directory, syncs
// it and renames it over path. Whatever was at path is replaced, a symlink
// included, and whatever mode an old file had is dropped; callers that
// want to keep either use WriteFileAtomic. The directory must exist.
//
// Where the file system cannot change modes the file keeps the mode the
// temporary file was created with (0600) rather than the write failing.
func ReplaceFile(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmp)
		}
	}()
	// os.CreateTemp always creates mode 0600, whatever the umask.
	if err := f.Chmod(perm); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	// Sync before rename: otherwise a crash can leave an empty file under
	// the final name on file systems that reorder metadata and data writes.
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return nil
}

// ResolveExisting resolves symlinks in the longest existing prefix of p and
// appends the rest unchanged, so that a path about to be created can be
// compared with real (symlink-free) directory paths. When no prefix
// resolves, p is returned as it is.
func ResolveExisting(p string) string {
	rest := ""
	cur := p
	for {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// CopyFile copies the regular file src to dst with src's permissions. A
// dst that exists is an error unless replace is set, in which case it is
// truncated and rewritten.
func CopyFile(src, dst string, replace bool) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if replace {
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	out, err := os.OpenFile(dst, flag, fi.Mode().Perm())
	if err != nil {
		return err
	}
	_, cerr := io.Copy(out, in)
	return errors.Join(cerr, out.Close())
}

// DropGroupOther takes the group and other permission bits off path, a
// file or directory that holds secrets (session recordings) and that an
// older version created readable by others; the owner's bits stay as the
// user set them.
func DropGroupOther(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	return os.Chmod(path, fi.Mode().Perm()&0o700)
}
