package chats

import (
	"io/fs"
	"os"
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

// TestOlderOpenRecordingsAreClosed: a recording and chats folder an older
// version left readable by others become the user's alone when the
// session is continued.
func TestOlderOpenRecordingsAreClosed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix permission bits")
	}
	s := testStore(t, "2026-01-02T03:04:05.000Z")
	r := recordSample(t, s)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	path := r.Path()
	for p, mode := range map[string]fs.FileMode{path: 0o644, s.Dir(): 0o755} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	infos, err := s.List()
	if err != nil || len(infos) != 1 {
		t.Fatalf("List: %v, %v", infos, err)
	}
	r, err = s.Continue(infos[0])
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	for p, want := range map[string]fs.FileMode{path: 0o600, s.Dir(): 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", p, fi, err, want)
		}
	}
}
