package blobstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sync/errgroup"
)

// A compaction makes its writes reach the disk in three steps
// (writeFold): the files it changes and state.json are written under
// temporary names, then the files are renamed over the old ones, then
// state.json over its own, saying that they hold the journal; a barrier
// after each step makes it durable before the next begins, and the
// entries are dropped only after the last. The compactions that run at
// the same moment (every task's at shutdown: the A2A server saves its
// tasks side by side, and Close folds side by side) share their
// barriers: each barrier syncs every path asked for while the previous
// one ran, with fsyncs in parallel, which the file system commits
// together, or, once there are many of them, with one syncfs of the whole
// file system on Linux. So a thousand tasks cost a few dozen barriers
// rather than five fsyncs one after the other each.

// syncBarrier makes barriers asked for at the same moment share one
// sync: each caller adds the paths it needs synced and waits for a sync
// that starts after it asked (one already running may have missed its
// writes), which syncs every path asked for until then.
type syncBarrier struct {
	mu   sync.Mutex
	cond *sync.Cond
	// started and finished count the syncs; running says whether the
	// last one started is still under way; queued are the paths the next
	// one syncs.
	started, finished uint64
	running           bool
	queued            []string
	// failed is the number of the last sync that failed, err its error.
	failed uint64
	err    error
}

// wait adds paths to the next sync and returns once it is done, with its
// error or that of a later sync that failed. The first caller to find no
// sync running runs fn on everything queued.
func (b *syncBarrier) wait(paths []string, fn func([]string) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cond == nil {
		b.cond = sync.NewCond(&b.mu)
	}
	b.queued = append(b.queued, paths...)
	ticket := b.started + 1
	for b.finished < ticket {
		if b.running {
			b.cond.Wait()
			continue
		}
		b.running = true
		b.started++
		n, batch := b.started, b.queued
		b.queued = nil
		b.mu.Unlock()
		err := fn(batch)
		b.mu.Lock()
		b.running = false
		b.finished = n
		if err != nil {
			b.failed, b.err = n, err
		}
		b.cond.Broadcast()
	}
	if b.failed >= ticket {
		return b.err
	}
	return nil
}

// durability is how a file:// store makes writes reach the disk.
type durability struct {
	barrier syncBarrier
	// perFile is set once syncfs proved unsupported.
	perFile atomic.Bool
	// syncFSMin, when set (by tests), replaces the constant.
	syncFSMin int
}

// stage writes b to a new temporary file beside key's, which a barrier
// then makes durable and commitStaged renames over key's.
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

// barrier returns once the files and directories named (by path) are on
// the disk, synced together with those of the barriers other
// compactions ask for meanwhile.
func (s *Store) barrier(paths ...string) error {
	return s.durable.barrier.wait(paths, s.syncPaths)
}

// syncFSMin is the number of paths from which one syncfs of the whole
// file system is cheaper than an fsync of each. It writes back what
// other programs wrote as well, so it only pays when many compactions
// sync at once (at shutdown), not for the one the background compactor
// runs now and then.
const syncFSMin = 256

// syncParallel is how many fsyncs a barrier has in flight: a journaling
// file system commits those that arrive together as one.
const syncParallel = 16

// syncPaths makes the files and directories named durable.
func (s *Store) syncPaths(paths []string) error {
	slices.Sort(paths)
	paths = slices.Compact(paths)
	minPaths := syncFSMin
	if s.durable.syncFSMin > 0 {
		minPaths = s.durable.syncFSMin
	}
	if syncFSSupported && len(paths) >= minPaths && !s.durable.perFile.Load() {
		err := syncFS(s.dir)
		if !errors.Is(err, errors.ErrUnsupported) && !errors.Is(err, syscall.ENOSYS) {
			return err
		}
		s.durable.perFile.Store(true)
	}
	var g errgroup.Group
	g.SetLimit(syncParallel)
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
