package chats

import (
	"io/fs"
	"path/filepath"
	"runtime"
	"testing"
)

// TestRecordingsAreOwnerOnly: a session recording holds everything the
// user and the model said, file contents and command output included, so
// other users of the machine must not read it.
func TestRecordingsAreOwnerOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix permission bits")
	}
	home := t.TempDir()
	tmp, err := ProjectTempDir(home, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(filepath.Join(tmp, "chats"), ProjectHash("p"))
	s.now = newFakeClock("2026-01-02T03:04:05.000Z").now
	s.newID = seqIDs("msg")
	r := recordSample(t, s)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == home {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		n++
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v, want owner-only", p, fi.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		t.Fatalf("only %d entries under %s: the recording was not written there", n, home)
	}
}
