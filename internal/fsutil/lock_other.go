//go:build !unix && !windows

package fsutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// staleLock is how old a fallback lock file must be before a waiter takes
// it as left by a process that died: the fallback has no kernel to
// release it. Holders keep the lock for one small read and write.
const staleLock = 30 * time.Second

// lockFile, where the system has no file locks, creates path exclusively
// (O_EXCL) and polls while it exists. Shared and non-blocking locks are
// not offered.
func lockFile(path string, mode lockMode) (*FileLock, error) {
	if mode != lockExclusive {
		return nil, fmt.Errorf("lock %s: %w", path, errors.ErrUnsupported)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	wait := time.Millisecond
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			// Kept open for its name, which Unlock removes.
			return &FileLock{f: f}, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if fi, serr := os.Stat(path); serr == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(path)
			continue
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}

func (l *FileLock) unlock() error {
	l.f.Close()
	return os.Remove(l.f.Name())
}
