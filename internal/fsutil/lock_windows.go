//go:build windows

package fsutil

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
)

// lockFile uses LockFileEx on the first byte of the file; closing the
// handle (or dying) releases it.
func lockFile(path string, mode lockMode) (*FileLock, error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
	}
	var flags uint32
	if mode&lockExclusive != 0 {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	if mode&lockNoWait != 0 {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, ol); err != nil {
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return nil, ErrWouldBlock
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &FileLock{f: f}, nil
}

func (l *FileLock) unlock() error {
	ol := new(windows.Overlapped)
	err := windows.UnlockFileEx(windows.Handle(l.f.Fd()), 0, 1, 0, ol)
	return errors.Join(err, l.f.Close())
}
