package blobstore

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/internal/lazy"
)

// A crash in the middle of a write or a compaction can leave temporary
// files behind: a compaction's staged files (stage: <name>.<digits>.tmp)
// and the file bucket's own (<name>.<hex time>.tmp, named as gocloud's
// fileblob named them), beside the object they were to replace. Loads
// and listings skip them and Delete takes them with the task, but a task
// that lives on keeps them; so a file:// store sweeps them when it opens
// (sweepTemps).
//
// Several processes may share a directory (the package documentation
// says how), and a temporary file may be another live process's write in
// flight: removing it would fail that write. So Open holds a shared lock
// on the directory itself for as long as the store is open (flock; no
// file is added to the directory), and sweeps every temporary file only
// when it can take the lock exclusively, that is when no other store has
// the directory open. Otherwise, and where directories cannot be locked
// (Windows, some network file systems), it removes only those older than
// staleTemp, which no live write keeps that long.

// staleTemp is how old a temporary file must be to be swept while other
// processes may be writing: a write or a compaction keeps one for the
// time of a few fsyncs.
const staleTemp = time.Hour

// tempName matches the temporary names the store and its file bucket
// give the objects of a task (history.json.123.tmp, 0003.json.18a3f.tmp,
// 00000012.jsonl.9.tmp), and nothing a user would name so.
var tempName = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-z]+\.jsonl?\.[0-9a-f]+\.tmp$`) }}

// openDir sweeps the temporary files a crash left in the store's
// directory and takes the shared lock Close releases.
func (s *Store) openDir() {
	if l, err := fsutil.TryLock(s.dir); err == nil {
		s.sweepTemps(time.Time{})
		l.Unlock()
	} else {
		if errors.Is(err, fsutil.ErrWouldBlock) {
			s.setOthers("it holds a lock on " + s.dir)
		} else {
			slog.Debug("a2a/blobstore: cannot lock the store directory; sweeping old temporary files only", "dir", s.dir, "error", err)
		}
		s.sweepTemps(time.Now().Add(-staleTemp))
	}
	// Between the two locks another process may sweep too; this one has
	// written nothing yet.
	if l, err := fsutil.LockShared(s.dir); err == nil {
		s.dirLock = l
	}
}

// sweepTemps removes the temporary files under tasks/ last modified
// before cutoff (all of them for a zero cutoff) and returns how many.
// Only a task's own directory and its artifacts/ and journal/ are
// looked in: the store writes nowhere else.
func (s *Store) sweepTemps(cutoff time.Time) int {
	root := filepath.Join(s.dir, "tasks")
	tasks, err := os.ReadDir(root)
	if err != nil {
		return 0
	}
	n := 0
	sweep := func(dir string) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if !e.Type().IsRegular() || !tempName.Get().MatchString(e.Name()) {
				continue
			}
			if !cutoff.IsZero() {
				fi, err := e.Info()
				if err != nil || !fi.ModTime().Before(cutoff) {
					continue
				}
			}
			if os.Remove(filepath.Join(dir, e.Name())) == nil {
				n++
			}
		}
	}
	for _, t := range tasks {
		if !t.IsDir() || !validTaskID.Get().MatchString(t.Name()) {
			continue
		}
		td := filepath.Join(root, t.Name())
		sweep(td)
		sweep(filepath.Join(td, "artifacts"))
		sweep(filepath.Join(td, "journal"))
	}
	if n > 0 {
		slog.Info("a2a/blobstore: removed temporary files a crash left", "dir", s.dir, "count", n)
	}
	return n
}
