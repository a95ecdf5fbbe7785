package blobstore

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gocloud.dev/gcerrors"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/a2a"
)

// The two lists that grow with a task, history.json and conversation.json,
// are not rewritten on every save: what a save adds to them goes into a
// journal object of its own,
//
//	tasks/<id>/journal/<seq>.json  {"h": n, "history": [...], "c": m, "conversation": [...]}
//
// meaning "the history from index n on is these messages, the
// conversation from index m on these contents", so that a save's cost
// does not grow with the task. Load applies the entries in order on top of
// history.json and conversation.json. A compactor folds them back into
// those two files in the background (and Close does so for every task),
// so that a store at rest has the layout of the package documentation.
// state.json's "journal" field, written only once a journal was used,
// says from which entry on the journal applies: entries before it are
// already in the two files (a compaction or full rewrite that died before
// deleting them).
//
// A save appends only when what this process last saved (or loaded) of a
// list is still its start. The A2A server only ever appends to both lists
// outside three cases: the last agent message grows while its text
// streams, compression replaces the conversation's start, and a
// conversation repair rewrites the content after a model response left
// without answers, which is its last element. So the check compares the
// digests of the first and last elements saved before; any other change
// rewrites both files whole, as every save used to.

// A task's journal is folded in by the compactor once it is as large as
// the files it adds to (at least compactMin bytes) or has compactEntries
// entries, so that the work of folding stays in proportion to the turns
// that grew it: a save costs the same at any task length, on average
// including compaction, and a load reads at most about twice the task. A
// save folds the journal in itself only when the compactor fell far
// behind (four times over).
const (
	compactMin     = 64 << 10
	compactEntries = 512
)

// due reports whether a journal should be folded in; over reports
// whether a save must do it itself.
func (j *journal) due(factor int) bool {
	return j.entries >= factor*compactEntries || j.logBytes >= factor*max(j.baseBytes, compactMin)
}

// listMark is what a store remembers of a list it saved: its length and
// the digests of its first and last elements.
type listMark struct {
	n           int
	first, last [32]byte
}

func digest(v any) [32]byte {
	b, _ := json.Marshal(v)
	return sha256.Sum256(b)
}

func markOf[T any](l []T) listMark {
	m := listMark{n: len(l)}
	if len(l) > 0 {
		m.first, m.last = digest(l[0]), digest(l[len(l)-1])
	}
	return m
}

// extends reports whether l starts with the list m was taken of.
func extends[T any](m listMark, l []T) bool {
	if len(l) < m.n {
		return false
	}
	return m.n == 0 || (digest(l[0]) == m.first && digest(l[m.n-1]) == m.last)
}

// journal is what a store knows of one task's journal.
type journal struct {
	// from is the first entry that applies, next the next entry's number,
	// and entries how many apply.
	from, next, entries int
	hist, conv          listMark
	// baseBytes is the size of the two files (0: unknown), logBytes
	// that of the entries that apply.
	baseBytes, logBytes int
}

type journalEntry struct {
	H            int              `json:"h"`
	History      []a2a.Message    `json:"history"`
	C            int              `json:"c"`
	Conversation []*genai.Content `json:"conversation"`
}

func journalKey(p string, seq int) string { return fmt.Sprintf("%sjournal/%08d.json", p, seq) }

// saveLists writes the task's history and conversation: an entry with
// what was added since the last save when that is all that changed, both
// files otherwise. It returns the journal field for state.json. The
// task's lock is held.
func (s *Store) saveLists(ctx context.Context, p string, t *a2a.StoredTask) (int, error) {
	s.mu.Lock()
	j := s.journals[p]
	s.mu.Unlock()
	if j != nil && !j.due(4) && extends(j.hist, t.History) && extends(j.conv, t.Conversation) {
		e := journalEntry{H: j.hist.n, History: t.History[j.hist.n:], C: j.conv.n, Conversation: t.Conversation[j.conv.n:]}
		if len(e.History) > 0 || len(e.Conversation) > 0 {
			b, err := json.Marshal(e)
			if err != nil {
				return 0, err
			}
			if err := s.write(ctx, journalKey(p, j.next), b); err != nil {
				return 0, err
			}
			nj := *j
			nj.next++
			nj.entries++
			nj.logBytes += len(b)
			nj.hist, nj.conv = markOf(t.History), markOf(t.Conversation)
			s.mu.Lock()
			s.journals[p] = &nj
			s.mu.Unlock()
			if nj.due(1) {
				s.compactLater(p)
			}
		}
		return j.from, nil
	}
	// The first save of the task in this process, a change other than an
	// append, or a journal too long: both files whole.
	h, err := encodeJSON(orEmpty(t.History))
	if err != nil {
		return 0, err
	}
	c, err := encodeJSON(orEmpty(t.Conversation))
	if err != nil {
		return 0, err
	}
	if err := s.writeEncoded(ctx, p+"history.json", h); err != nil {
		return 0, err
	}
	if err := s.writeEncoded(ctx, p+"conversation.json", c); err != nil {
		return 0, err
	}
	next := 0
	if j != nil {
		next = j.next
	} else if stale, err := s.keys(ctx, p+"journal/"); err != nil {
		return 0, err
	} else if len(stale) > 0 {
		// A journal from another process: numbering goes on after it.
		next = seqOf(stale[len(stale)-1]) + 1
	}
	s.mu.Lock()
	s.journals[p] = &journal{from: next, next: next, hist: markOf(t.History), conv: markOf(t.Conversation), baseBytes: len(h) + len(c)}
	s.mu.Unlock()
	if next > 0 {
		s.compactLater(p) // deletes the entries the files now hold
	}
	return next, nil
}

// seqOf is the number of a journal key; -1 for anything else.
func seqOf(key string) int {
	name := key[strings.LastIndex(key, "/")+1:]
	n, err := strconv.Atoi(strings.TrimSuffix(name, ".json"))
	if err != nil || !strings.HasSuffix(name, ".json") {
		return -1
	}
	return n
}

// applyJournal applies the task's journal entries from from on to what
// history.json and conversation.json hold, and returns the journal as it
// is now with the number of entry objects found. The task's lock is held.
func (s *Store) applyJournal(ctx context.Context, p string, from int, t *a2a.StoredTask) (*journal, int, error) {
	return s.applyJournalTo(ctx, p, from, -1, t)
}

// applyJournalTo is applyJournal for the entries before upto (-1: all).
func (s *Store) applyJournalTo(ctx context.Context, p string, from, upto int, t *a2a.StoredTask) (*journal, int, error) {
	keys, err := s.keys(ctx, p+"journal/")
	if err != nil {
		return nil, 0, err
	}
	sort.Strings(keys)
	j := &journal{from: from, next: from}
	found := 0
	for _, k := range keys {
		seq := seqOf(k)
		if seq < 0 {
			continue // a temporary file of a write that died
		}
		found++
		if seq < from || (upto >= 0 && seq >= upto) {
			continue
		}
		j.next = max(j.next, seq+1)
		b, err := s.b.ReadAll(ctx, k)
		if err != nil {
			if gcerrors.Code(err) == gcerrors.NotFound {
				continue
			}
			return nil, 0, err
		}
		var e journalEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", k, err)
		}
		if e.H < 0 || e.C < 0 || e.H > len(t.History) || e.C > len(t.Conversation) {
			return nil, 0, fmt.Errorf("%s: continues a history of %d messages and a conversation of %d contents, but the task has %d and %d", k, e.H, e.C, len(t.History), len(t.Conversation))
		}
		t.History = append(t.History[:e.H:e.H], e.History...)
		t.Conversation = append(t.Conversation[:e.C:e.C], e.Conversation...)
		j.entries++
		j.logBytes += len(b)
	}
	j.hist, j.conv = markOf(t.History), markOf(t.Conversation)
	return j, found, nil
}

// loadJournal is applyJournal for Load: it remembers the journal and
// queues a long or stale one for compaction.
func (s *Store) loadJournal(ctx context.Context, p string, from int, t *a2a.StoredTask) error {
	j, found, err := s.applyJournal(ctx, p, from, t)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.journals[p] = j
	s.mu.Unlock()
	if j.due(1) || found > j.entries {
		s.compactLater(p)
	}
	return nil
}

// compactor folds journals into the files in the background.
type compactor struct {
	once    sync.Once
	mu      sync.Mutex
	closed  bool
	queued  map[string]bool
	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
}

// compactLater queues the task under prefix p for compaction.
func (s *Store) compactLater(p string) {
	c := &s.compact
	c.once.Do(func() {
		c.queued = map[string]bool{}
		c.wake = make(chan struct{}, 1)
		c.stop = make(chan struct{})
		c.stopped = make(chan struct{})
		go s.compactLoop()
	})
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.queued[p] = true
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (s *Store) compactLoop() {
	c := &s.compact
	defer close(c.stopped)
	for {
		select {
		case <-c.stop:
			return
		case <-c.wake:
		}
		for _, p := range c.take() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			s.compactTask(ctx, p)
			cancel()
		}
	}
}

func (c *compactor) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := make([]string, 0, len(c.queued))
	for p := range c.queued {
		ps = append(ps, p)
	}
	clear(c.queued)
	sort.Strings(ps)
	return ps
}

// closeCompactor stops the background compactor and compacts every task
// with a journal, so that the store is left in the plain layout.
func (s *Store) closeCompactor(ctx context.Context) {
	c := &s.compact
	c.once.Do(func() {}) // no compactor starts after this
	c.mu.Lock()
	again := c.closed
	c.closed = true
	c.mu.Unlock()
	if again {
		return
	}
	if c.stop != nil {
		close(c.stop)
		<-c.stopped
	}
	s.mu.Lock()
	var ps []string
	for p, j := range s.journals {
		if j.entries > 0 || j.next > j.from {
			ps = append(ps, p)
		}
	}
	s.mu.Unlock()
	sort.Strings(ps)
	for _, p := range ps {
		s.compactTask(ctx, p)
		if s.dir != "" {
			// fileblob leaves the emptied directory behind; os.Remove
			// takes it only if empty. Nothing saves once Close runs.
			id := strings.TrimSuffix(strings.TrimPrefix(p, "tasks/"), "/")
			os.Remove(filepath.Join(s.dir, "tasks", id, "journal"))
		}
	}
}

// compactTask folds the task's journal into history.json and
// conversation.json, records in state.json that they hold it, and deletes
// the entries. The reading and encoding happen without the task's lock,
// so that saves go on meanwhile (they only add entries after the ones
// folded); only the writes hold it. Failures leave the journal in place,
// where Load reads it.
func (s *Store) compactTask(ctx context.Context, p string) {
	id := strings.TrimSuffix(strings.TrimPrefix(p, "tasks/"), "/")
	s.mu.Lock()
	j := s.journals[p]
	s.mu.Unlock()
	if j == nil {
		return // deleted meanwhile
	}
	snap := *j
	var h, c []byte
	if snap.entries > 0 {
		t := &a2a.StoredTask{}
		for key, v := range map[string]any{p + "history.json": &t.History, p + "conversation.json": &t.Conversation} {
			// Not readJSON: what this reads may be older than a save
			// under way, and must not be remembered as what the bucket holds.
			b, err := s.b.ReadAll(ctx, key)
			if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
				return
			}
			if err == nil && json.Unmarshal(b, v) != nil {
				return
			}
		}
		if _, _, err := s.applyJournalTo(ctx, p, snap.from, snap.next, t); err != nil {
			return
		}
		var err error
		if h, err = encodeJSON(orEmpty(t.History)); err != nil {
			return
		}
		if c, err = encodeJSON(orEmpty(t.Conversation)); err != nil {
			return
		}
	}
	unlock := s.locks.lock(id)
	s.mu.Lock()
	cur := s.journals[p]
	s.mu.Unlock()
	if cur == nil || cur.from != snap.from {
		// Deleted, rewritten whole or folded in meanwhile.
		unlock()
		return
	}
	var st stateFile
	if err := s.readJSON(ctx, p+"state.json", &st); err != nil {
		unlock()
		return
	}
	if snap.entries > 0 {
		if s.writeEncoded(ctx, p+"history.json", h) != nil || s.writeEncoded(ctx, p+"conversation.json", c) != nil {
			unlock()
			return
		}
	}
	st.Journal = snap.next
	if err := s.writeJSON(ctx, p+"state.json", st); err != nil {
		unlock()
		return
	}
	nj := *cur
	nj.from = snap.next
	nj.entries -= snap.entries
	nj.logBytes -= snap.logBytes
	if snap.entries > 0 {
		nj.baseBytes = len(h) + len(c)
	}
	s.mu.Lock()
	s.journals[p] = &nj
	s.mu.Unlock()
	unlock()
	keys, err := s.keys(ctx, p+"journal/")
	if err != nil {
		return
	}
	// In order, so that entries left by a crash midway are a run the
	// next load skips (they are before state.json's mark).
	sort.Strings(keys)
	for _, k := range keys {
		if seq := seqOf(k); seq >= 0 && seq < snap.next {
			if err := s.b.Delete(ctx, k); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
				return
			}
		}
	}
}
