package fsutil

import (
	"errors"
	"os"
	"path/filepath"
)

// FileLock is an advisory lock on a file, held by this process until
// Unlock or until the process ends (the operating system releases the
// locks of a process that dies, so a crash never leaves one held).
// Advisory means only code that takes the lock is kept out: it guards a
// read-modify-write among cooperating writers, not against other
// programs. The lock file is a sidecar: its content is never read.
//
// Two FileLocks on the same file exclude each other even within one
// process, so goroutines and processes are serialised alike.
type FileLock struct {
	f *os.File
}

// ErrWouldBlock is returned by TryLock when another holder has the lock.
var ErrWouldBlock = errors.New("lock is held by another process")

// Lock takes the exclusive lock on path, creating the file (and its
// directory) if needed, and waits for other holders to release it. path
// may also name an existing directory.
func Lock(path string) (*FileLock, error) { return lockFile(path, lockExclusive) }

// LockShared takes a shared lock on path: many shared holders may hold
// it at once, and an exclusive TryLock fails while any does. Platforms
// without shared locks return an error wrapping errors.ErrUnsupported.
func LockShared(path string) (*FileLock, error) { return lockFile(path, lockShared) }

// TryLock takes the exclusive lock on path if no one holds it, shared or
// exclusive, and fails with ErrWouldBlock otherwise. Platforms that
// cannot tell return an error wrapping errors.ErrUnsupported.
func TryLock(path string) (*FileLock, error) { return lockFile(path, lockExclusive|lockNoWait) }

type lockMode int

const (
	lockExclusive lockMode = 1 << iota
	lockShared
	lockNoWait
)

// openLockFile opens the file to lock, creating it if needed. An existing
// directory is opened for reading: locking a directory itself leaves no
// sidecar in it (Unix systems lock directories; Windows cannot, and
// there locking one fails).
func openLockFile(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return os.Open(path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}

// Unlock releases the lock. With kernel locks the lock file stays:
// removing it would let a process that opened it just before lock a file
// no one else can see. (The fallback of systems without them removes it,
// since there its existence is the lock.)
func (l *FileLock) Unlock() error {
	if l == nil {
		return nil
	}
	return l.unlock()
}
