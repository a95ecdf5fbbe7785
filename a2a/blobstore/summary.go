package blobstore

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/castor-dev/castor/a2a"
)

var _ a2a.TaskSummarizer = (*Store)(nil)

// ListSummaries summarises every complete task (a2a.TaskSummarizer), in
// List's order, from its state.json and the entries of its journal after
// it: never its history, conversation or artifacts. It lists tasks/ once,
// as List does, and reads a task's journal only when that listing showed
// one. The task files stay the only record (no index that could go
// stale). A task whose state.json or journal does not decode is left out,
// as is one deleted meanwhile: its load would fail too.
func (s *Store) ListSummaries(ctx context.Context) ([]a2a.TaskSummary, error) {
	ids, journaled, err := s.taskIDs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]a2a.TaskSummary, len(ids))
	ok := make([]bool, len(ids))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for i, id := range ids {
		g.Go(func() error {
			sum, err := s.summary(gctx, id, journaled[id])
			switch {
			case err == nil:
				out[i], ok[i] = sum, true
			case notFound(err), undecodable(err):
			default:
				return err
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	kept := out[:0]
	for i := range out {
		if ok[i] {
			kept = append(kept, out[i])
		}
	}
	return kept, nil
}

// summary reads the task's state as Load would see it, under the same
// locks, so that it never sees a compaction halfway or a save's torn
// entry.
func (s *Store) summary(ctx context.Context, id string, journaled bool) (a2a.TaskSummary, error) {
	defer s.locks.lock(id)()
	defer s.fileLocks.lock(id)()
	p := taskPrefix(id)
	d, err := s.readBase(ctx, p, 0, false)
	if err != nil {
		return a2a.TaskSummary{}, err
	}
	if journaled {
		files, err := s.readJournal(ctx, p, -1, "", 0)
		if err != nil {
			return a2a.TaskSummary{}, err
		}
		es := entriesFrom(files, d.st.Journal, -1)
		for i := range es {
			if err := d.apply(&es[i]); err != nil {
				return a2a.TaskSummary{}, err
			}
		}
	}
	ts, _ := time.Parse(time.RFC3339Nano, d.st.Timestamp)
	return a2a.TaskSummary{
		ID: id, ContextID: d.st.ContextID, State: d.st.State,
		StatusTimestamp: d.st.Status.Timestamp, LastActive: ts,
	}, nil
}

// undecodable reports whether err is a file or journal entry that does
// not decode, which fails the task's load as well.
func undecodable(err error) bool {
	var bad *journalError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &bad) || errors.As(err, &syn) || errors.As(err, &typ)
}

// taskIDs returns the ids of the complete tasks (those with a
// state.json), sorted, and which of them have journal objects. A file://
// store reads the tasks directory and stats two names in each task's;
// other buckets are listed under tasks/ in one pass, which on a remote
// bucket is one request per thousand objects instead of one per task
// (a listing of the directory would stat every file of every task).
func (s *Store) taskIDs(ctx context.Context) ([]string, map[string]bool, error) {
	var ids []string
	journaled := map[string]bool{}
	if s.dir != "" {
		ents, err := os.ReadDir(filepath.Join(s.dir, "tasks"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		for _, e := range ents {
			// The directory is the id as the bucket writes keys: an id
			// holding what reads as an escape ("__0x41__") is escaped.
			id := unescapeKey(e.Name())
			if !e.IsDir() || !validTaskID.Get().MatchString(id) {
				continue
			}
			td := filepath.Join(s.dir, "tasks", e.Name())
			if fi, err := os.Stat(filepath.Join(td, "state.json")); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			ids = append(ids, id)
			if _, err := os.Stat(filepath.Join(td, "journal")); err == nil {
				journaled[id] = true
			}
		}
		return ids, journaled, nil // ReadDir sorts by name
	}
	err := s.list(ctx, "tasks/", func(obj Object) {
		id, rest, _ := strings.Cut(strings.TrimPrefix(obj.Key, "tasks/"), "/")
		switch {
		case !validTaskID.Get().MatchString(id):
		case rest == "state.json":
			ids = append(ids, id)
		case strings.HasPrefix(rest, "journal/"):
			journaled[id] = true
		}
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(ids) // keys sort "b-2/state.json" before "b/state.json"
	return ids, journaled, nil
}
