package blobstore

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// tempFiles lists the store's temporary files under dir, relative to it.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !tempName.Get().MatchString(d.Name()) {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSweepTemps: Open removes the temporary files of the store's own
// names that a crash left, when no other process has the directory open;
// while one has, only those older than staleTemp, since the others may
// be its writes in flight. Files of other names stay.
func TestSweepTemps(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	s := openFile(t, dir)
	if err := s.Save(ctx, newTask("t1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	td := filepath.Join(dir, "tasks", "t1")
	old := time.Now().Add(-2 * staleTemp)
	write := func(t *testing.T, rel string, mtime time.Time) {
		p := filepath.Join(td, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		if !mtime.IsZero() {
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
	ours := []struct {
		rel string
		old bool
	}{
		{"history.json.123456.tmp", false},         // stage (os.CreateTemp)
		{"state.json.18a3f00c2b.tmp", true},        // fileblob (hex time)
		{"artifacts/0003.json.77.tmp", false},      // an artifact
		{"journal/00000012.jsonl.1f.tmp", true},    // a journal segment
		{"conversation.json.9a0b1c2d3e.tmp", true}, //
	}
	others := []string{"notes.tmp", "history.json.tmp", "history.json.bak", "x.json.zz.tmp"}
	reset := func(t *testing.T) {
		for _, f := range ours {
			var m time.Time
			if f.old {
				m = old
			}
			write(t, f.rel, m)
		}
		for _, f := range others {
			write(t, f, old)
		}
	}
	kept := func() []string {
		var got []string
		for _, f := range append([]string{}, others...) {
			if _, err := os.Stat(filepath.Join(td, f)); err == nil {
				got = append(got, f)
			}
		}
		for _, f := range ours {
			if _, err := os.Stat(filepath.Join(td, f.rel)); err == nil {
				got = append(got, f.rel)
			}
		}
		return got
	}

	t.Run("alone", func(t *testing.T) {
		reset(t)
		s := openFile(t, dir)
		defer s.Close()
		if got := kept(); !slices.Equal(got, others) {
			t.Errorf("kept %v, want only %v", got, others)
		}
		if _, err := s.Load(ctx, "t1"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("shared", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("Windows cannot lock a directory: every store sweeps by age")
		}
		live := openFile(t, dir) // another process's store, open
		defer live.Close()
		reset(t)
		s := openFile(t, dir)
		defer s.Close()
		want := slices.Clone(others)
		for _, f := range ours {
			if !f.old {
				want = append(want, f.rel)
			}
		}
		if got := kept(); !slices.Equal(got, want) {
			t.Errorf("kept %v, want %v (only old temporary files go)", got, want)
		}
	})
}
