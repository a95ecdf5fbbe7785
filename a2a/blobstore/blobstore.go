// Package blobstore keeps A2A tasks in a bucket of objects: a local
// directory (file://), memory (mem://) or, in binaries built with the
// cloudstore tag, Google Cloud Storage (gs://) and S3 (s3://) through
// gocloud.dev/blob (see Bucket).
//
// Objects follow the layout of Gemini CLI's task store, which the
// removed a2a.FileStore also wrote, byte for byte:
//
//	tasks/<id>/metadata.json      the task metadata (__persistedState, _contextId)
//	tasks/<id>/history.json       the A2A message history
//	tasks/<id>/state.json         state, timestamp, context id, last status, settings
//	tasks/<id>/conversation.json  the model conversation
//	tasks/<id>/push.json          push notification configs
//	tasks/<id>/pending.json       calls of a turn paused for confirmation (only then)
//	tasks/<id>/artifacts/<n>.json one object per artifact
//
// (conversation.json and pending.json are Castor's additions: Gemini CLI
// loses the model conversation, and pending confirmations, on restart).
// A directory written by a FileStore opens as a
// file:// bucket, and a task saved by one replica continues, with its
// conversation, on another. The file:// bucket is Castor's one disk store.
//
// A task this process saved or loaded before is saved as one journal
// entry with what changed, appended to tasks/<id>/journal/ (journal.go),
// so that a save costs the same at any task length. A compactor folds
// the journal into the files above in the background: once the task has
// been left alone for two seconds, and while it is busy whenever the
// journal grows as large as the task. Close folds every journal, so a
// store at rest, and every task left alone for a moment, has exactly the
// layout above for tools that read it; the journal only ever holds the
// last seconds of a task.
//
// # Durability
//
// A save returns once its entry is written to the file (or object),
// without fsync: the data is in the kernel's page cache, which survives
// the process. So everything saved before the server told the client
// about it survives kill -9, a crash or an out-of-memory kill; a write
// cut short by the kill leaves a torn last line, which the next load
// leaves out with a warning (it is the save that did not return). A power
// loss or kernel crash can lose what the kernel had not yet written back
// to the disk: the entries of the last seconds (up to the writeback
// interval, 30 s by default on Linux) of the tasks busy at that moment,
// and a torn last line again, as well as files a save wrote whole (the
// first save of a task in a process, or one after a change other than
// an append) in those seconds. What a compaction folded into the files
// stays: it fsyncs the files it writes, and their directory, before
// state.json says they hold the entries, and state.json before the
// entries are dropped; so a task left alone for a few seconds is on the
// disk (durable.go says in which steps). Remote buckets (gs://, s3://)
// hold an object durably once its write returns.
//
// # Concurrency
//
// Within a process, a task's saves, loads and deletes are serialised, so a
// load never sees half of a save, and compactions wait for loads. Across
// processes sharing a bucket the store does not lock: each object is
// replaced atomically, state.json is written last, and the last writer
// wins. Only a process that saves a task folds its journal in, so one
// that only reads it (a tool, a replica answering a stray request) drops
// nothing the saving process writes, and a load that finds state.json
// rewritten while it read (the other process folded the journal in)
// reads again. Two replicas saving the same task at the same moment can
// leave objects from both saves, and a load racing a save can read a
// newer history than state. The A2A server already needs
// a task's requests to reach one replica at a time (running turns and
// pending confirmations live in that replica's memory), so route by task
// id, as a sticky load balancer does, and the race does not arise.
// Generation preconditions (GCS ifGenerationMatch, S3 If-Match) would make
// conflicting saves fail instead; they need driver-specific hooks and a
// version field in state.json, and are not implemented.
//
// A file:// store sweeps the temporary files a crash left when it opens:
// all of them when no other process has the directory open (it holds a
// shared lock on the directory while open), only those an hour old when
// one has, since those may be its writes in flight (sweep.go).
package blobstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/internal/lazy"
)

// validTaskID is a2a's rule for task ids: ids become object names, and
// this keeps them from escaping tasks/.
var validTaskID = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`) }}

// parallel bounds the object reads and writes one Save or Load has in
// flight: remote buckets answer in tens of milliseconds each, and a task
// is half a dozen objects or more.
const parallel = 8

// Store is an a2a.TaskStore over a blob bucket. It is safe for concurrent
// use.
type Store struct {
	b     Bucket
	locks keyedMutex
	// fileLocks guard a task's files (as opposed to its journal): a
	// compaction writing them holds one, as do Load, a whole save and
	// Delete, which take it inside the task's lock.
	fileLocks keyedMutex
	// compactLocks keep a task's compactions one at a time.
	compactLocks keyedMutex
	// dir is the directory of a file:// store, whose emptied task
	// directories Delete removes; "" for other buckets.
	dir string
	// dirLock is the shared lock a file:// store holds on dir while open
	// (sweep.go); nil elsewhere.
	dirLock *fsutil.FileLock

	// A task is saved after every turn but most of its objects do not
	// change: written keeps a digest of what this process last wrote or
	// read under each key, so unchanged objects are not rewritten, and
	// artifacts the last artifact count of each task, so the stale-artifact
	// listing only runs when the count shrank.
	mu        sync.Mutex
	written   map[string][32]byte
	artifacts map[string]int
	// journals is what the store knows of each task's journal (see
	// journal.go), by task prefix; compact folds journals into the files.
	journals map[string]*journal
	openSegs int // journals with a segment file open
	gen      uint64
	compact  compactor
	// others says another process had the store open (presence.go);
	// presence is a bucket store's own presence object.
	others   string
	presence *presenceState
}

var (
	_ a2a.TaskStore  = (*Store)(nil)
	_ a2a.TaskPruner = (*Store)(nil)
)

// New returns a store over b. The store owns b: Close closes it.
func New(b Bucket) *Store {
	return &Store{b: b, written: map[string][32]byte{}, artifacts: map[string]int{}, journals: map[string]*journal{}}
}

// Close folds every journal this process knows of into its task's files
// (bounded by a minute), so that the store is left in the plain layout,
// and closes the bucket.
func (s *Store) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s.closeCompactor(ctx)
	s.leave()
	err := s.b.Close()
	s.dirLock.Unlock()
	return err
}

// stateFile is state.json, field for field what a2a.FileStore wrote, so
// that directories from before its removal still load.
type stateFile struct {
	State     a2a.TaskState     `json:"state"`
	Timestamp string            `json:"timestamp"`
	ContextID string            `json:"contextId"`
	Status    a2a.TaskStatus    `json:"status"`
	Settings  a2a.AgentSettings `json:"agentSettings"`
	// Journal is the first journal entry history.json and
	// conversation.json do not hold (journal.go); absent until a task's
	// journal was first folded in.
	Journal int `json:"journal,omitempty"`
	// HistoryBytes and ConversationBytes are the sizes of history.json
	// and conversation.json as of the mark, in a file:// store whose
	// compaction appends to them in place (0: unknown, the whole file
	// holds): what lies past them is an append a crash cut short, which
	// the journal's entries still hold.
	HistoryBytes      int `json:"historyBytes,omitempty"`
	ConversationBytes int `json:"conversationBytes,omitempty"`
}

func taskPrefix(id string) string { return "tasks/" + id + "/" }

// Save saves the task: as one journal entry holding what changed when
// this process saved or loaded the task before (journal.go), else by
// writing every object of the task. Those are written concurrently;
// state.json is written once they all are, so a task whose state.json
// exists is complete.
func (s *Store) Save(ctx context.Context, t *a2a.StoredTask) error {
	if !validTaskID.Get().MatchString(t.ID) {
		return fmt.Errorf("invalid task id %q", t.ID)
	}
	unlock := s.locks.lock(t.ID)
	p := taskPrefix(t.ID)
	did, err := s.appendEntry(ctx, p, t)
	if err == nil && did == whole {
		err = s.saveWhole(ctx, p, t)
	}
	unlock()
	if err == nil && did == unchanged {
		s.flush(ctx, p)
	}
	return err
}

// flush folds the task's journal into its files now, if it has entries:
// a save that changes nothing (the A2A server's as it evicts a task or
// shuts down) leaves the files current for tools that read them.
func (s *Store) flush(ctx context.Context, p string) {
	s.mu.Lock()
	j := s.journals[p]
	s.mu.Unlock()
	if j != nil && (j.entries > 0 || j.next > j.from) {
		s.compactTask(ctx, p, false)
	}
}

// saveWhole writes every object of the task and starts its journal over.
func (s *Store) saveWhole(ctx context.Context, p string, t *a2a.StoredTask) error {
	defer s.fileLocks.lock(t.ID)()
	s.mu.Lock()
	j := s.journals[p]
	s.mu.Unlock()
	next := 0
	if j != nil {
		next = j.next
	} else {
		// A journal from another process (or from before a delete):
		// numbering goes on after it, and state.json's mark skips it.
		files, err := s.readJournal(ctx, p, -1, "", 0)
		if err != nil {
			return err
		}
		for _, f := range files {
			next = max(next, f.start+1, f.maxSeq+1)
		}
	}
	// Empty lists are written as [], not null, as FileStore wrote them.
	h, err := encodeJSON(orEmpty(t.History))
	if err != nil {
		return err
	}
	c, err := encodeJSON(orEmpty(t.Conversation))
	if err != nil {
		return err
	}
	encoded := map[string][]byte{"history.json": h, "conversation.json": c}
	objects := map[string]any{
		"metadata.json": t.Metadata,
		"push.json":     orEmpty(t.PushConfigs),
	}
	if len(t.Pending) > 0 {
		objects["pending.json"] = t.Pending
	} else if err := s.dropKnown(ctx, p+"pending.json"); err != nil {
		return err
	}
	keep := map[string]bool{}
	for i, a := range t.Artifacts {
		name := artifactName(i)
		keep[p+name] = true
		objects[name] = a
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for name, b := range encoded {
		g.Go(func() error { return s.writeEncoded(gctx, p+name, b) })
	}
	for name, v := range objects {
		g.Go(func() error { return s.writeJSON(gctx, p+name, v) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	// Artifacts past the current count belong to an earlier save.
	s.mu.Lock()
	before, known := s.artifacts[p]
	s.mu.Unlock()
	if !known || len(t.Artifacts) < before {
		stale, err := s.keys(ctx, p+"artifacts/")
		if err != nil {
			return err
		}
		for _, k := range stale {
			if !keep[k] {
				if err := s.b.Delete(ctx, k); err != nil && !notFound(err) {
					return err
				}
				s.forget(k)
			}
		}
	}
	s.mu.Lock()
	s.artifacts[p] = len(t.Artifacts)
	s.mu.Unlock()
	st := stateOf(t)
	st.Journal = next
	if err := s.writeJSON(ctx, p+"state.json", st); err != nil {
		return err
	}
	nj := &journal{from: next, next: next, baseBytes: len(h) + len(c), seg: -1, owned: true}
	nj.remember(t)
	s.setJournal(p, nj)
	if next > 0 {
		s.compactAfter(p, 0) // deletes the entries the files now hold
	}
	return nil
}

// setJournal records j as the task's journal, a new generation of it.
func (s *Store) setJournal(p string, j *journal) {
	s.mu.Lock()
	s.gen++
	j.gen = s.gen
	s.putJournalLocked(p, j)
	s.mu.Unlock()
}

// Load reads a task back; it returns a2a.ErrNotFound for a task without a
// state.json. Missing optional objects read as empty, and an artifact that
// does not decode is skipped, as FileStore did; any other read error
// fails the load, since dropping an artifact here would delete it on the
// next save.
func (s *Store) Load(ctx context.Context, id string) (*a2a.StoredTask, error) {
	if !validTaskID.Get().MatchString(id) {
		return nil, a2a.ErrNotFound
	}
	unlock := s.locks.lock(id)
	defer unlock()
	defer s.fileLocks.lock(id)()
	p := taskPrefix(id)
	var d *doc
	var files []journalFile
	for attempt := 0; ; attempt++ {
		var err error
		d, err = s.readBase(ctx, p, partAll, true)
		if err != nil {
			if notFound(err) {
				return nil, a2a.ErrNotFound
			}
			return nil, fmt.Errorf("task %s: %w", id, err)
		}
		if files, err = s.readJournal(ctx, p, -1, "", 0); err != nil {
			return nil, fmt.Errorf("task %s: %w", id, err)
		}
		// Another process folding the journal in meanwhile (this one's
		// compactions wait for the file lock) may have dropped entries
		// the files read do not hold yet; it rewrote state.json first.
		if b, err := s.b.ReadAll(ctx, p+"state.json"); err != nil || bytes.Equal(b, d.stateRaw) || attempt == 4 {
			break
		}
	}
	s.mu.Lock()
	s.artifacts[p] = d.artsCount
	s.mu.Unlock()
	j := &journal{from: d.st.Journal, next: d.st.Journal, baseBytes: d.historyBytes + d.conversationBytes, seg: -1}
	stale := false
	for _, f := range files {
		j.next = max(j.next, f.start+1, f.maxSeq+1)
		stale = stale || f.maxSeq < j.from
	}
	j.stale = stale
	es := entriesFrom(files, j.from, -1)
	for i := range es {
		if err := d.apply(&es[i]); err != nil {
			return nil, fmt.Errorf("task %s: %w", id, err)
		}
		j.entries++
		j.logBytes += es[i].size
	}
	t, err := d.task(id)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", id, err)
	}
	j.remember(t)
	// The metadata is a map: structs the saving process put in it come
	// back as maps, whose JSON sorts their keys, so its digest is taken
	// of the bytes read, which are what that process encoded. Otherwise
	// the first save of a task only loaded (tasks/get of an evicted task,
	// then shutdown) would append an entry, and cost a compaction.
	var meta bytes.Buffer
	if d.metadata != nil && json.Compact(&meta, d.metadata) == nil {
		j.meta = sha256.Sum256(meta.Bytes())
	}
	s.mu.Lock()
	j.owned = s.journals[p] != nil && s.journals[p].owned
	s.mu.Unlock()
	s.setJournal(p, j)
	// A task only read is left as it is (journal.owned); one this
	// process saves gets its journal folded in by the compactions its
	// saves ask for.
	if j.owned {
		switch {
		case j.due(1) || stale:
			s.compactAfter(p, 0)
		case j.entries > 0:
			s.compactAfter(p, settle)
		}
	}
	return t, nil
}

// task decodes the task d holds.
func (d *doc) task(id string) (*a2a.StoredTask, error) {
	ts, _ := time.Parse(time.RFC3339Nano, d.st.Timestamp)
	t := &a2a.StoredTask{
		ID: id, ContextID: d.st.ContextID, State: d.st.State, Timestamp: ts,
		Status: d.st.Status, Settings: d.st.Settings,
	}
	for _, o := range []struct {
		name string
		raw  json.RawMessage
		into any
	}{{"metadata.json", d.metadata, &t.Metadata}, {"push.json", d.push, &t.PushConfigs}, {"pending.json", d.pending, &t.Pending}} {
		if o.raw != nil {
			if err := json.Unmarshal(o.raw, o.into); err != nil {
				return nil, fmt.Errorf("%s: %w", o.name, err)
			}
		}
	}
	if err := decodeList(d.history, &t.History, "history"); err != nil {
		return nil, err
	}
	if err := decodeList(d.conversation, &t.Conversation, "conversation"); err != nil {
		return nil, err
	}
	decodeEach(d.artifacts, &t.Artifacts)
	return t, nil
}

// List returns the ids of the complete tasks (those with a state.json),
// sorted, without reading any object (taskIDs says how).
func (s *Store) List(ctx context.Context) ([]string, error) {
	ids, _, err := s.taskIDs(ctx)
	return ids, err
}

// Delete removes every object of the task; deleting an unknown task is not
// an error. state.json goes first, so that a concurrent List or Load sees
// the task gone rather than incomplete. A file:// store opened by Open
// also removes the task's emptied directories.
func (s *Store) Delete(ctx context.Context, id string) error {
	if !validTaskID.Get().MatchString(id) {
		return fmt.Errorf("invalid task id %q", id)
	}
	unlock := s.locks.lock(id)
	defer unlock()
	return s.deleteLocked(ctx, id)
}

func (s *Store) deleteLocked(ctx context.Context, id string) error {
	defer s.fileLocks.lock(id)()
	p := taskPrefix(id)
	s.forgetTask(p)
	if err := s.b.Delete(ctx, p+"state.json"); err != nil && !notFound(err) {
		return err
	}
	keys, err := s.keys(ctx, p)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := s.b.Delete(ctx, k); err != nil && !notFound(err) {
			return err
		}
	}
	if s.dir != "" {
		// Deleting files leaves directories behind, one per task ever
		// deleted.
		// os.Remove takes empty directories only, so anything written
		// there meanwhile stays.
		td := s.localPath("tasks/" + id)
		os.Remove(filepath.Join(td, "artifacts"))
		os.Remove(filepath.Join(td, "journal"))
		os.Remove(td)
	}
	return nil
}

// Prune deletes the tasks last active before cutoff that keep (which may
// be nil) does not claim, and returns their ids (a2a.TaskPruner). It lists
// tasks/ once; only tasks whose state.json and journal objects were all
// last written before cutoff are candidates, since a save writes one or
// the other whenever the task's activity time changes, so a remote bucket
// is read for old tasks only. A candidate's own timestamp then decides,
// which guards against clocks that differ between the replicas writing a
// shared bucket.
func (s *Store) Prune(ctx context.Context, cutoff time.Time, keep func(id string) bool) ([]string, error) {
	latest := map[string]time.Time{}
	hasState := map[string]bool{}
	err := s.list(ctx, "tasks/", func(obj Object) {
		id, rest, _ := strings.Cut(strings.TrimPrefix(obj.Key, "tasks/"), "/")
		if rest != "state.json" && !strings.HasPrefix(rest, "journal/") {
			return
		}
		hasState[id] = hasState[id] || rest == "state.json"
		if obj.ModTime.After(latest[id]) {
			latest[id] = obj.ModTime
		}
	})
	if err != nil {
		return nil, err
	}
	var candidates []string
	for id, ok := range hasState {
		if ok && validTaskID.Get().MatchString(id) && latest[id].Before(cutoff) {
			candidates = append(candidates, id)
		}
	}
	sort.Strings(candidates)
	var deleted []string
	for _, id := range candidates {
		if old, err := s.expired(ctx, id, cutoff); err != nil || !old {
			if err != nil {
				return deleted, fmt.Errorf("task %s: %w", id, err)
			}
			continue
		}
		// keep is asked without the task's lock: it takes the server's
		// locks, under which the server saves into this store.
		if keep != nil && keep(id) {
			continue
		}
		gone, err := s.pruneTask(ctx, id, cutoff)
		if err != nil {
			return deleted, fmt.Errorf("task %s: %w", id, err)
		}
		if gone {
			deleted = append(deleted, id)
		}
	}
	return deleted, nil
}

// expired reports whether the task's state (state.json and the entries of
// its journal after it) says it was last active before cutoff; a task
// without a state.json is not (it is gone, or not complete yet). A state
// that does not decode counts as expired: the task cannot be loaded
// either, and its age is the objects', which the caller checked.
func (s *Store) expired(ctx context.Context, id string, cutoff time.Time) (bool, error) {
	p := taskPrefix(id)
	d, err := s.readBase(ctx, p, 0, false)
	if err != nil {
		if notFound(err) {
			return false, nil
		}
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syn) || errors.As(err, &typ) {
			return true, nil
		}
		return false, err
	}
	files, err := s.readJournal(ctx, p, -1, "", 0)
	var bad *journalError
	if errors.As(err, &bad) {
		files = nil // a task that cannot be loaded: its state.json's age decides
	} else if err != nil {
		return false, err
	}
	es := entriesFrom(files, d.st.Journal, -1)
	for i := range es {
		d.apply(&es[i])
	}
	ts, err := time.Parse(time.RFC3339Nano, d.st.Timestamp)
	return err != nil || ts.Before(cutoff), nil
}

// pruneTask deletes the task if it is still expired under its lock: a
// save since the first look may have made it young again.
func (s *Store) pruneTask(ctx context.Context, id string, cutoff time.Time) (bool, error) {
	unlock := s.locks.lock(id)
	defer unlock()
	if old, err := s.expired(ctx, id, cutoff); err != nil || !old {
		return false, err
	}
	return true, s.deleteLocked(ctx, id)
}

// keys lists every key under prefix, at any depth.
func (s *Store) keys(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	err := s.list(ctx, prefix, func(obj Object) {
		keys = append(keys, obj.Key)
	})
	return keys, err
}

// list calls fn for every object under prefix, at any depth. A bucket
// may fail a listing when an object goes while it lists (a file between
// the reading of its directory and the look at it), which the
// compactor's deletions make happen: a listing that fails so starts over
// (a few times).
func (s *Store) list(ctx context.Context, prefix string, fn func(Object)) error {
	for attempt := 0; ; attempt++ {
		objs, err := s.b.List(ctx, prefix)
		if err != nil {
			if notFound(err) && attempt < 3 {
				continue
			}
			return err
		}
		for _, o := range objs {
			fn(o)
		}
		return nil
	}
}

// writeJSON writes v as FileStore did: indented, with a final newline.
func (s *Store) writeJSON(ctx context.Context, key string, v any) error {
	b, err := encodeJSON(v)
	if err != nil {
		return err
	}
	return s.writeEncoded(ctx, key, b)
}

// encodeJSON encodes v as FileStore did: indented, with a final newline.
func encodeJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// writeEncoded writes b under key unless this process knows the bucket
// holds it already.
func (s *Store) writeEncoded(ctx context.Context, key string, b []byte) error {
	sum := sha256.Sum256(b)
	s.mu.Lock()
	same := s.written[key] == sum
	s.mu.Unlock()
	if same {
		return nil
	}
	if err := s.write(ctx, key, b); err != nil {
		s.forget(key)
		return err
	}
	s.mu.Lock()
	s.written[key] = sum
	s.mu.Unlock()
	return nil
}

// dropKnown deletes key if this process wrote or read it: optional
// objects are absent rather than empty, as in the layout FileStore wrote,
// and a bucket is not asked about objects it is known not to hold.
func (s *Store) dropKnown(ctx context.Context, key string) error {
	s.mu.Lock()
	_, known := s.written[key]
	s.mu.Unlock()
	if !known {
		return nil
	}
	if err := s.b.Delete(ctx, key); err != nil && !notFound(err) {
		return err
	}
	s.forget(key)
	return nil
}

// forgetTask drops what the store remembers of the task under prefix p.
func (s *Store) forgetTask(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.written {
		if strings.HasPrefix(k, p) {
			delete(s.written, k)
		}
	}
	delete(s.artifacts, p)
	s.putJournalLocked(p, nil)
}

// forget drops what the store remembers of key.
func (s *Store) forget(key string) {
	s.mu.Lock()
	delete(s.written, key)
	s.mu.Unlock()
}

func (s *Store) write(ctx context.Context, key string, b []byte) error {
	// Conversations and push tokens are private: a file:// store's files
	// are 0600; remote buckets keep their own access control.
	return s.b.WriteAll(ctx, key, b, true)
}

func (s *Store) readJSON(ctx context.Context, key string, v any) error {
	b, err := s.b.ReadAll(ctx, key)
	if err != nil {
		s.forget(key)
		return err
	}
	// What was read is what the store holds now (another process may have
	// written it): remember it so that the next save compares against it.
	s.mu.Lock()
	s.written[key] = sha256.Sum256(b)
	s.mu.Unlock()
	return json.Unmarshal(b, v)
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// keyedMutex is one mutex per task id, created on first use and dropped
// when nobody holds or waits for it, so memory follows the tasks in
// flight rather than every task ever seen.
type keyedMutex struct {
	mu sync.Mutex
	m  map[string]*refMutex
}

type refMutex struct {
	sync.Mutex
	refs int
}

func (k *keyedMutex) lock(id string) (unlock func()) {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[string]*refMutex{}
	}
	e := k.m[id]
	if e == nil {
		e = &refMutex{}
		k.m[id] = e
	}
	e.refs++
	k.mu.Unlock()
	e.Lock()
	return func() {
		e.Unlock()
		k.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(k.m, id)
		}
		k.mu.Unlock()
	}
}
