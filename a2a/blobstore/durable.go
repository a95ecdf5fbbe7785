package blobstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"

	"golang.org/x/sync/errgroup"
)

// A compaction makes its writes reach the disk in three steps
// (writeFold): the files it changes and state.json are written under
// temporary names, then the files are renamed over the old ones, then
// state.json over its own, saying that they hold the journal; a barrier
// after each step makes it durable before the next begins, and the
// entries are dropped only after the last. A barrier fsyncs what its step
// wrote side by side, so a compaction waits for three rounds of fsyncs
// rather than five fsyncs one after the other; and the compactions of
// many tasks (the A2A server saves its tasks side by side at shutdown,
// and Close folds side by side) have theirs in flight together, which
// the file system and the disk serve together.
//
// One syncfs of the whole file system (Linux) would serve a thousand
// tasks' barriers in one call, but it writes back whatever other
// programs left in the page cache too, which on a busy machine costs
// more than the fsyncs it replaces, and sharing one barrier between
// compactions makes each wait for the slowest.

// stage writes b to a new temporary file beside key's, which a barrier
// then makes durable and writeFold renames over key's.
func (s *Store) stage(key string, b []byte) (string, error) {
	dir, name := filepath.Split(s.localPath(key))
	f, err := os.CreateTemp(dir, name+".*.tmp")
	if errors.Is(err, fs.ErrNotExist) {
		// The first artifact of a task whose artifacts the journal held.
		if err = os.MkdirAll(dir, 0o700); err == nil {
			f, err = os.CreateTemp(dir, name+".*.tmp")
		}
	}
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// barrierParallel is how many fsyncs one barrier has in flight.
const barrierParallel = 8

// barrier returns once the files and directories named (by path) are on
// the disk.
func (s *Store) barrier(paths ...string) error {
	paths = slices.Compact(slices.Sorted(slices.Values(paths)))
	if len(paths) == 1 {
		return fsyncPath(paths[0])
	}
	var g errgroup.Group
	g.SetLimit(barrierParallel)
	for _, p := range paths {
		g.Go(func() error { return fsyncPath(p) })
	}
	return g.Wait()
}

// fsyncPath fsyncs a file or directory by its path; fsync on any
// descriptor of a file writes back all of its data.
func fsyncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	f.Close()
	// Some file systems (and Windows) cannot sync a directory; the files
	// in it are synced.
	if err != nil && (errors.Is(err, syscall.EINVAL) || runtime.GOOS == "windows") {
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return nil
		}
	}
	return err
}
