package builtin

// Race-resistant file access. resolvePath checks a path when a call is
// built and again when it runs, but a directory of the path can still be
// swapped for a symlink pointing elsewhere between that check and the
// moment the file is opened. The helpers here close that window:
//
//   - reads open the file first and then check where the opened file
//     really is (the kernel's name for the descriptor, or a re-resolution
//     compared by identity where the kernel offers none);
//   - writes open the target directory first, check where that directory
//     really is, and then create the temporary file and rename it through
//     the directory handle (os.Root), so no path component can be
//     redirected afterwards. A symlink as the last component is followed
//     by hand, and its target goes through the same checks: a link to a
//     file inside the workspace is written through, one pointing outside
//     is refused.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/castor-dev/castor/tool"
)

// errOutsideWorkspace reports that a path, once opened, turned out to lie
// outside every allowed directory: one of its components is (or became) a
// symlink leading out.
var errOutsideWorkspace = errors.New("path resolves outside the allowed directories")

// maxSymlinkHops bounds how many final-component symlinks a write follows,
// as the kernel's own limit does for lookups.
const maxSymlinkHops = 40

// testHookBeforeOpen, when set by a test, runs just before a checked path
// is opened, so tests can swap a component for a symlink at the worst
// possible moment without relying on timing.
var testHookBeforeOpen func(path string)

// kernelPath is fdPath; tests replace it to exercise the fallback used
// where the kernel cannot name a descriptor.
var kernelPath = fdPath

func beforeOpen(path string) {
	if testHookBeforeOpen != nil {
		testHookBeforeOpen(path)
	}
}

// realAllowed returns the check that opened files and directories must
// pass: their symlink-free path lies inside a workspace directory or the
// project temp directory. The roots are resolved once, so checking many
// files (a search) costs no system calls beyond finding each file's path.
func (e *Env) realAllowed() func(real string) bool {
	var roots []string
	add := func(d string) {
		if d == "" {
			return
		}
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		roots = append(roots, filepath.Clean(d))
	}
	if e != nil && e.Workspace != nil {
		for _, d := range e.Workspace.Dirs() {
			add(d)
		}
	}
	if e != nil {
		add(e.TempDir)
	}
	return func(real string) bool {
		for _, r := range roots {
			if within(r, real) {
				return true
			}
		}
		return false
	}
}

// within reports whether p is dir or lies below it (both clean).
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// openVerified opens path for reading and then checks, on the opened file
// itself, that it lies where allowed says it may; nil allowed checks
// nothing. FIFOs and devices open without blocking, so callers can refuse
// them after a Stat.
func openVerified(path string, allowed func(string) bool) (*os.File, error) {
	beforeOpen(path)
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	if allowed != nil {
		if _, err := verifyOpened(f, path, allowed); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// verifyOpened returns the real path of the open file f, opened as path,
// or errOutsideWorkspace when allowed refuses it.
func verifyOpened(f *os.File, path string, allowed func(string) bool) (string, error) {
	real, err := kernelPath(f)
	if err != nil {
		// No kernel name for the descriptor here: resolve the name again
		// and accept it only if it still leads to the very file opened.
		real, err = filepath.EvalSymlinks(path)
		if err != nil {
			return "", errOutsideWorkspace
		}
		a, err1 := f.Stat()
		b, err2 := os.Stat(real)
		if err1 != nil || err2 != nil || !os.SameFile(a, b) {
			return "", errOutsideWorkspace
		}
	}
	if allowed != nil && !allowed(filepath.Clean(real)) {
		return real, errOutsideWorkspace
	}
	return real, nil
}

// readFileVerified reads a whole regular file through openVerified.
func readFileVerified(path string, allowed func(string) bool) ([]byte, error) {
	f, err := openVerified(path, allowed)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	return io.ReadAll(f)
}

// readFileSafe reads a file the model named, refusing one that is not
// (any longer) inside the workspace.
func (e *Env) readFileSafe(path string) ([]byte, error) {
	b, err := readFileVerified(path, e.realAllowed())
	if err == nil && e != nil && e.Files != nil {
		return e.readText(path)
	}
	return b, err
}

// writeFileSafe is writeFileAtomic confined to the workspace and the
// project temp directory: a path that leads out, through a symlinked
// directory or a symlink as the file itself, fails with
// errOutsideWorkspace and nothing is written.
func (e *Env) writeFileSafe(path string, data []byte) error {
	if e != nil && e.Files != nil {
		return e.writeText(path, data)
	}
	return writeAtomic(path, data, e.realAllowed(), 0)
}

// writeFileAtomic writes data to path so that readers only ever see the old
// or the new content, never a half-written file: it writes a temporary file
// in the same directory, syncs it and renames it over path. Missing parent
// directories are created. An existing file keeps its permission bits; a new
// one gets 0666 minus the umask, like any file the user creates. When path is
// a symlink the link's target is replaced, so the link survives.
//
// It is not confined to the workspace (save_memory writes the global
// memory file); the tools that write where the model says use
// Env.writeFileSafe.
func writeFileAtomic(path string, data []byte) error {
	return writeAtomic(path, data, nil, 0)
}

// writeAtomic implements writeFileAtomic and writeFileSafe; allowed nil
// means unconfined, hops counts the symlinks followed so far.
func writeAtomic(path string, data []byte, allowed func(string) bool, hops int) error {
	dir, base := filepath.Dir(path), filepath.Base(path)
	root, realDir, err := openDirRoot(dir, allowed)
	if err != nil {
		return err
	}
	defer root.Close()

	var keepMode fs.FileMode
	existing := false
	fi, err := root.Lstat(base)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		// Follow the link by hand: os.Root refuses absolute links and
		// links leaving the directory, but a link elsewhere inside the
		// workspace is legitimate. The target is checked from scratch.
		if hops >= maxSymlinkHops {
			return &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
		}
		target, err := root.Readlink(base)
		if err != nil {
			return rootedError(err, dir)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(realDir, target)
		}
		return writeAtomic(filepath.Clean(target), data, allowed, hops+1)
	case err == nil && fi.IsDir():
		return &fs.PathError{Op: "open", Path: path, Err: syscall.EISDIR}
	case err == nil:
		keepMode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		existing = true
		if fi.Mode().IsRegular() {
			// Renaming over a file needs only a writable directory; refuse
			// files the user could not write in place, as a plain write
			// would.
			f, err := root.OpenFile(base, os.O_WRONLY|openNonblock, 0)
			if err != nil {
				return rootedError(err, dir)
			}
			f.Close()
		}
	case !errors.Is(err, fs.ErrNotExist):
		return rootedError(err, dir)
	}

	f, tmp, err := createTempIn(root, base)
	if err != nil {
		return rootedError(err, dir)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return rootedError(err, dir)
	}
	if existing {
		if err := f.Chmod(keepMode); err != nil {
			return rootedError(err, dir)
		}
	}
	// Sync before rename: otherwise a crash can leave an empty file under
	// the final name on filesystems that reorder metadata and data writes.
	if err := f.Sync(); err != nil {
		return rootedError(err, dir)
	}
	if err := f.Close(); err != nil {
		return rootedError(err, dir)
	}
	if err := root.Rename(tmp, base); err != nil {
		return rootedError(err, dir)
	}
	ok = true
	return nil
}

// openDirRoot opens dir as an os.Root, creating it (and missing parents)
// first, and checks where the opened directory really is. It returns the
// root and the directory's real path, against which relative symlink
// targets resolve.
func openDirRoot(dir string, allowed func(string) bool) (*os.Root, string, error) {
	// Find the deepest existing ancestor; the missing rest is created
	// through its handle, so it cannot be redirected either.
	anc := dir
	var missing []string
	for {
		fi, err := os.Stat(anc)
		if err == nil {
			if !fi.IsDir() {
				return nil, "", &fs.PathError{Op: "mkdir", Path: anc, Err: syscall.ENOTDIR}
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, "", err
		}
		parent := filepath.Dir(anc)
		if parent == anc {
			return nil, "", err
		}
		missing = append([]string{filepath.Base(anc)}, missing...)
		anc = parent
	}
	beforeOpen(anc)
	root, err := os.OpenRoot(anc)
	if err != nil {
		return nil, "", err
	}
	real, err := verifyRoot(root, anc, allowed)
	if err != nil {
		root.Close()
		return nil, "", err
	}
	if len(missing) == 0 {
		return root, real, nil
	}
	rel := filepath.Join(missing...)
	if err := root.MkdirAll(rel, 0o755); err != nil {
		root.Close()
		return nil, "", rootedError(err, anc)
	}
	sub, err := root.OpenRoot(rel)
	root.Close()
	if err != nil {
		return nil, "", rootedError(err, anc)
	}
	// The new directories lie inside the checked one (os.Root sees to
	// that), but the real path is needed for relative link targets.
	real, err = verifyRoot(sub, filepath.Join(anc, rel), allowed)
	if err != nil {
		sub.Close()
		return nil, "", err
	}
	return sub, real, nil
}

// verifyRoot returns the real path of the directory root holds (opened as
// path) and checks it against allowed.
func verifyRoot(root *os.Root, path string, allowed func(string) bool) (string, error) {
	d, err := root.Open(".")
	if err != nil {
		return "", err
	}
	defer d.Close()
	real, err := verifyOpened(d, path, allowed)
	if err != nil {
		if allowed == nil {
			// Unconfined writes only need the path for relative links.
			return path, nil
		}
		return "", err
	}
	return real, nil
}

// rootedError puts dir back in front of the relative names os.Root
// reports, so error texts name the file as the user knows it.
func rootedError(err error, dir string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && !filepath.IsAbs(pe.Path) {
		pe.Path = filepath.Join(dir, pe.Path)
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		if !filepath.IsAbs(le.Old) {
			le.Old = filepath.Join(dir, le.Old)
		}
		if !filepath.IsAbs(le.New) {
			le.New = filepath.Join(dir, le.New)
		}
	}
	return err
}

// createTempIn creates an exclusive temporary file next to base inside
// root. It does not use os.CreateTemp because that forces mode 0600, and a
// new file should get the user's umask like any other.
func createTempIn(root *os.Root, base string) (*os.File, string, error) {
	for range 100 {
		name := "." + base + ".castor-tmp-" + randomHex(6)
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("cannot create a temporary file beside %s", base)
}

// writeFailure is the result of a failed write of abs: the workspace error
// when the path led out of it, otherwise the classified write error.
func (e *Env) writeFailure(abs string, err error) *tool.Result {
	if errors.Is(err, errOutsideWorkspace) {
		te := e.pathNotInWorkspaceError(abs)
		return &tool.Result{LLMText: te.Message, Display: "Error: Path not in workspace.", Error: te}
	}
	te := writeError(abs, err)
	return &tool.Result{LLMText: te.Message, Display: te.Message, Error: te}
}
