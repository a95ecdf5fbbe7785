package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// TestLockExcludes: exclusive locks on one file serialise goroutines
// (each opens the file anew, as another process would), and TryLock
// fails while a shared or exclusive lock is held.
func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	var wg sync.WaitGroup
	var mu sync.Mutex
	inside, most := 0, 0
	for range 16 {
		wg.Go(func() {
			for range 20 {
				l, err := Lock(path)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inside++
				most = max(most, inside)
				mu.Unlock()
				runtime.Gosched() // lets another holder in, were the lock broken
				mu.Lock()
				inside--
				mu.Unlock()
				if err := l.Unlock(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if most != 1 {
		t.Fatalf("%d holders at once, want 1", most)
	}

	for _, tc := range []struct {
		name string
		take func(string) (*FileLock, error)
	}{
		{"exclusive", Lock},
		{"shared", LockShared},
	} {
		t.Run(tc.name, func(t *testing.T) {
			held, err := tc.take(path)
			if errors.Is(err, errors.ErrUnsupported) {
				t.Skip(err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if l, err := TryLock(path); !errors.Is(err, ErrWouldBlock) {
				l.Unlock()
				t.Fatalf("TryLock while held: %v, want ErrWouldBlock", err)
			}
			held.Unlock()
			l, err := TryLock(path)
			if err != nil {
				t.Fatalf("TryLock once released: %v", err)
			}
			l.Unlock()
		})
	}
}

// TestLockDirectory: a directory is locked in place, with no sidecar.
func TestLockDirectory(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows cannot lock a directory")
	}
	dir := t.TempDir()
	held, err := LockShared(dir)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := TryLock(dir); !errors.Is(err, ErrWouldBlock) {
		l.Unlock()
		t.Fatalf("TryLock while held: %v, want ErrWouldBlock", err)
	}
	held.Unlock()
	l, err := TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left in the directory: %v", ents)
	}
}
