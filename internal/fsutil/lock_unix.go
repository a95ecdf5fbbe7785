//go:build unix

package fsutil

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// lockFile uses flock(2): the lock belongs to the open file description,
// so two opens of the file (two goroutines, two processes) exclude each
// other, and closing the descriptor (or dying) releases it.
func lockFile(path string, mode lockMode) (*FileLock, error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
	}
	how := unix.LOCK_EX
	if mode&lockShared != 0 {
		how = unix.LOCK_SH
	}
	if mode&lockNoWait != 0 {
		how |= unix.LOCK_NB
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrWouldBlock
		}
		if errors.Is(err, unix.ENOLCK) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP) {
			return nil, fmt.Errorf("lock %s: %w (%w)", path, errors.ErrUnsupported, err)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &FileLock{f: f}, nil
}

func (l *FileLock) unlock() error {
	// Closing the descriptor releases the flock.
	return l.f.Close()
}
