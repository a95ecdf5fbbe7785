package blobstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/castor-dev/castor/a2a"
)

// A save of a task this process saved or loaded before does not rewrite
// the task's files: what changed goes into the task's journal as one
// entry, one JSON line,
//
//	{"seq":7,"h":12,"history":[...],"c":8,"conversation":[...],"state":{...},
//	 "metadata":{...},"push":[...],"pending":[...],"artifacts":{"n":3,"set":[{"i":2,"a":{...}}]}}
//
// meaning "entry 7: the history from index 12 on is these messages, the
// conversation from index 8 on these contents, state.json, metadata.json,
// push.json and pending.json now hold these values, and there are 3
// artifacts, of which the third is this one". Every part is optional: an
// entry holds the parts that changed. A file:// store appends the lines of
// a task to one segment file,
//
//	tasks/<id>/journal/<seq>.jsonl   entries from <seq> on, one line each
//
// with one write and no fsync, which is what makes a save cost the same
// at any task length (see the package documentation for what survives
// what). The segment is created by the first such save after a load or a
// whole save, and a compaction empties it rather than deleting it, so
// that the next turn's saves create no file either. Other buckets cannot append: each entry is an
// object of its own, tasks/<id>/journal/<seq>.json, as every entry was
// before segments (that format, with history and conversation only and
// the number in the name, still loads).
//
// Load applies the entries in order on top of the files. A compactor
// folds them into the files in the background: once a task has had no
// save for a moment (settle), so that a store at rest has the layout of
// the package documentation, and while it is busy once its journal is
// as large as the files it adds to (at least compactMin bytes) or has
// compactEntries entries, so that the work of folding stays in
// proportion to the turns that grew it. state.json's "journal" field,
// written only once a journal was used, says from which entry on the
// journal applies:
// entries before it are in the files. A compaction writes the files it
// changes, then state.json with the new mark, and only then drops the
// entries it folded, so a crash at any point leaves either entries the
// mark skips or entries that apply again on top of files that already
// hold them; an entry says what a part is from an index on, not what to
// add, so applying it twice gives the same task.
//
// A chunk of streamed text the server saves before sending it
// (SaveText) is an entry of its own, {"seq":8,"t":{"i":13,"at":120,
// "text":"…"}}: history message 13's text is its first 120 bytes and
// this; or {"t":{"i":13,"at":0,"m":{…}}}, the message the chunk starts.
// A file:// store appends it to the segment (about 30 µs); other buckets
// write it as an object of its own, one request per chunk.
//
// In a file:// store a fold appends, in place, what the entries added
// to history.json and conversation.json when they only added to them:
// the elements are written over the file's closing line, the file is
// synced with the other folded files, and state.json then records the
// files' new sizes (historyBytes, conversationBytes). A load reads a
// list file as of those sizes (its start, and the closing line the
// append wrote over), so an append a crash cut short, or one under way,
// is not read; the entries still hold it. A fold thus writes what the
// turns added whatever the task's length.
//
// An entry records the lists' change from the first index that differs.
// A save appends only when what this process last saved (or loaded) of a
// list is still its start, save perhaps for its last element. The A2A
// server only ever appends to both lists outside three cases: the last
// agent message grows while its text streams, compression replaces the
// conversation's start, and a conversation repair rewrites the content
// after a model response left without answers, which is its last
// element. So the check compares the digests of the first, the next to
// last and the last elements saved before; a change at the start rewrites
// every file, as every save used to.

const (
	compactMin     = 256 << 10
	compactEntries = 1024
	// settle is how long a task goes without saves before its journal is
	// folded in: long enough that the back-to-back saves of a turn and of
	// a quick follow-up do not each pay for a compaction.
	settle = 2 * time.Second
)

// due reports whether a journal should be folded in (factor 1) or is so
// far behind that a save rewrites the files itself (factor 4).
func (j *journal) due(factor int) bool {
	return j.entries >= factor*compactEntries || j.logBytes >= factor*max(j.baseBytes, compactMin)
}

// listMark is what a store remembers of a list it saved: its length and
// the digests of its first, next to last and last elements.
type listMark struct {
	n                 int
	first, prev, last [32]byte
}

// digest is the digest of v's JSON. Elements are encoded through a
// pointer, as they are inside a list, so that a method on the pointer
// gives the same bytes.
func digest(v any) [32]byte {
	b, _ := json.Marshal(v)
	return sha256.Sum256(b)
}

func markOf[T any](l []T) listMark {
	m := listMark{n: len(l)}
	if len(l) > 0 {
		m.first, m.last = digest(&l[0]), digest(&l[len(l)-1])
	}
	if len(l) > 1 {
		m.prev = digest(&l[len(l)-2])
	}
	return m
}

// kept is how many elements at the start of l the marks say are still
// those m was taken of: m.n when l extends that list, m.n-1 when only its
// last element changed, -1 when its start changed.
func kept[T any](m listMark, l []T) int {
	if m.n == 0 {
		return 0
	}
	if len(l) < m.n-1 || len(l) == 0 || digest(&l[0]) != m.first {
		return -1
	}
	if len(l) >= m.n && digest(&l[m.n-1]) == m.last {
		return m.n
	}
	if m.n >= 2 && digest(&l[m.n-2]) == m.prev {
		return m.n - 1
	}
	return -1
}

// encodeTail encodes the elements of l from k on (k as kept gives it)
// as a JSON list, and returns it with the mark of l, taken from the
// encodings and from m rather than by encoding elements again.
func encodeTail[T any](m listMark, k int, l []T) ([]byte, listMark, error) {
	n := listMark{n: len(l)}
	b := make([]byte, 0, 256*(len(l)-k)+2)
	b = append(b, '[')
	sums := make([][32]byte, 0, len(l)-k)
	for i := k; i < len(l); i++ {
		e, err := json.Marshal(&l[i])
		if err != nil {
			return nil, n, err
		}
		if i > k {
			b = append(b, ',')
		}
		b = append(b, e...)
		sums = append(sums, sha256.Sum256(e))
	}
	b = append(b, ']')
	// sum is the digest of l[i]: from the encodings from k on, else one
	// of the kept elements m knows (k is m.n or m.n-1).
	sum := func(i int) [32]byte {
		switch {
		case i >= k:
			return sums[i-k]
		case i == m.n-1:
			return m.last
		case i == m.n-2:
			return m.prev
		case i == 0:
			return m.first
		}
		return digest(&l[i])
	}
	if len(l) > 0 {
		n.first, n.last = sum(0), sum(len(l)-1)
	}
	if len(l) > 1 {
		n.prev = sum(len(l) - 2)
	}
	return b, n, nil
}

// journal is what a store knows of one task's journal. Values are
// replaced, never changed, under Store.mu.
type journal struct {
	// from is the first entry that applies, next the next entry's number,
	// and entries how many apply.
	from, next, entries int
	hist, conv          listMark
	// baseBytes is the size of history.json and conversation.json (0:
	// unknown), logBytes that of the entries that apply.
	baseBytes, logBytes int
	// The digests of the compact JSON of the parts last saved.
	state, meta, push, pending [32]byte
	arts                       [][32]byte
	// seg is the segment file a file:// store appends to (-1: the next
	// append starts one, named after its first entry) and segSize its
	// size.
	seg     int
	segSize int64
	// f is the segment file, open for appending, or nil. It is used
	// under the task's lock only.
	f *os.File
	// stale: Load found journal objects the mark skips (an emptied
	// segment, or entries a compaction that died folded in), which only
	// a compaction deletes.
	stale bool
	// owned: this process saved the task. Only then does it fold the
	// journal in: a process that only loads a task (a tool, a replica
	// answering a stray request) must not drop entries, or the segment,
	// of the process saving it.
	owned bool
	// pendingSeq is the last entry that changed pending.json, which
	// saves write at once (mirrorPending).
	pendingSeq int
	// gen tells a journal from one the task had before it was deleted,
	// rewritten whole or loaded again, which a compaction under way must
	// not write over.
	gen uint64
}

// remember records the marks and digests of t as saved or loaded.
func (j *journal) remember(t *a2a.StoredTask) {
	j.hist, j.conv = markOf(t.History), markOf(t.Conversation)
	j.state = digest(stateOf(t))
	j.meta = digest(t.Metadata)
	j.push = digest(orEmpty(t.PushConfigs))
	j.pending = digest(orEmpty(t.Pending))
	j.arts = make([][32]byte, len(t.Artifacts))
	for i := range t.Artifacts {
		j.arts[i] = digest(&t.Artifacts[i])
	}
}

func stateOf(t *a2a.StoredTask) stateFile {
	return stateFile{
		State: t.State, Timestamp: t.Timestamp.UTC().Format(time.RFC3339Nano), ContextID: t.ContextID,
		Status: t.Status, Settings: t.Settings,
	}
}

// entry is one journal entry as read. A nil part did not change.
type entry struct {
	Seq          *int              `json:"seq"`
	H            *int              `json:"h"`
	History      []json.RawMessage `json:"history"`
	C            *int              `json:"c"`
	Conversation []json.RawMessage `json:"conversation"`
	State        *stateFile        `json:"state"`
	Metadata     json.RawMessage   `json:"metadata"`
	Push         json.RawMessage   `json:"push"`
	Pending      json.RawMessage   `json:"pending"`
	Artifacts    *artifactsDelta   `json:"artifacts"`
	// T is streamed text (SaveText).
	T *textDelta `json:"t"`

	// where names the entry in errors: key, or key:line.
	where string
	size  int
}

// textDelta is a chunk of streamed text: history message I is M (when
// the chunk starts it), or its text is its first At bytes followed by
// Text. Applied twice, it gives the same message.
type textDelta struct {
	I    int             `json:"i"`
	At   int             `json:"at"`
	Text string          `json:"text,omitempty"`
	M    json.RawMessage `json:"m,omitempty"`
}

type artifactsDelta struct {
	N   int          `json:"n"`
	Set []artifactAt `json:"set,omitempty"`
}

type artifactAt struct {
	I int             `json:"i"`
	A json.RawMessage `json:"a"`
}

// parts is a set of a task's objects, saying what an entry changes or
// what a read needs.
type parts uint8

const (
	partHistory parts = 1 << iota
	partConversation
	partMetadata
	partPush
	partPending
	partArtifacts
	partAll = 1<<iota - 1
)

func (e *entry) parts() parts {
	var p parts
	if e.H != nil || e.T != nil {
		p |= partHistory
	}
	if e.C != nil {
		p |= partConversation
	}
	if e.Metadata != nil {
		p |= partMetadata
	}
	if e.Push != nil {
		p |= partPush
	}
	if e.Pending != nil {
		p |= partPending
	}
	if e.Artifacts != nil {
		p |= partArtifacts
	}
	return p
}

func journalKey(p string, seq int) string { return fmt.Sprintf("%sjournal/%08d.json", p, seq) }

func segmentKey(p string, seq int) string { return fmt.Sprintf("%sjournal/%08d.jsonl", p, seq) }

// seqOf is the number of a journal key and whether it is a segment; -1
// for anything else (a temporary file of a write that died).
func seqOf(key string) (int, bool) {
	name := key[strings.LastIndex(key, "/")+1:]
	base, seg := strings.CutSuffix(name, ".jsonl")
	if !seg {
		var ok bool
		if base, ok = strings.CutSuffix(name, ".json"); !ok {
			return -1, false
		}
	}
	n, err := strconv.Atoi(base)
	if err != nil || n < 0 {
		return -1, false
	}
	return n, seg
}

// appendOutcome is what appendEntry did.
type appendOutcome int

const (
	// appended: the save is an entry in the journal.
	appended appendOutcome = iota
	// unchanged: nothing changed since the last save; nothing written.
	unchanged
	// whole: the change is not one an entry records, or the store knows
	// nothing of the task yet; nothing written, the files are to be
	// rewritten.
	whole
)

// appendEntry saves what changed in t since the task's last save as one
// journal entry. The task's lock is held.
func (s *Store) appendEntry(ctx context.Context, p string, t *a2a.StoredTask) (appendOutcome, error) {
	s.mu.Lock()
	j := s.journals[p]
	s.mu.Unlock()
	if j == nil || j.due(4) {
		return whole, nil
	}
	h, c := kept(j.hist, t.History), kept(j.conv, t.Conversation)
	// Artifacts are only ever added or updated; fewer of them is a change
	// the files take whole, which deletes the ones past the count.
	if h < 0 || c < 0 || len(t.Artifacts) < len(j.arts) {
		return whole, nil
	}
	nj := *j
	var pendingWas [32]byte
	line := make([]byte, 0, 512)
	line = append(line, `{"seq":`...)
	line = strconv.AppendInt(line, int64(j.next), 10)
	changed := false
	add := func(name string, b []byte) {
		line = append(line, `,"`...)
		line = append(line, name...)
		line = append(line, `":`...)
		line = append(line, b...)
		changed = true
	}
	raw := func(name string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		add(name, b)
		return nil
	}
	if h < j.hist.n || len(t.History) > h {
		b, m, err := encodeTail(j.hist, h, t.History)
		if err != nil {
			return whole, fmt.Errorf("history: %w", err)
		}
		line = append(line, `,"h":`...)
		line = strconv.AppendInt(line, int64(h), 10)
		add("history", b)
		nj.hist = m
	}
	if c < j.conv.n || len(t.Conversation) > c {
		b, m, err := encodeTail(j.conv, c, t.Conversation)
		if err != nil {
			return whole, fmt.Errorf("conversation: %w", err)
		}
		line = append(line, `,"c":`...)
		line = strconv.AppendInt(line, int64(c), 10)
		add("conversation", b)
		nj.conv = m
	}
	// The small parts are encoded whole and compared with what was saved.
	for _, part := range []struct {
		name string
		v    any
		sum  *[32]byte
	}{
		{"state", stateOf(t), &nj.state},
		{"metadata", t.Metadata, &nj.meta},
		{"push", orEmpty(t.PushConfigs), &nj.push},
		{"pending", orEmpty(t.Pending), &nj.pending},
	} {
		if part.name == "pending" {
			pendingWas = *part.sum
		}
		b, err := json.Marshal(part.v)
		if err != nil {
			return whole, fmt.Errorf("%s: %w", part.name, err)
		}
		if sum := sha256.Sum256(b); sum != *part.sum {
			*part.sum = sum
			add(part.name, b)
		}
	}
	pendingChanged := nj.pending != pendingWas
	if pendingChanged {
		nj.pendingSeq = j.next
	}
	var set []artifactAt
	arts, copied := j.arts, false
	for i := range t.Artifacts {
		b, err := json.Marshal(&t.Artifacts[i])
		if err != nil {
			return whole, fmt.Errorf("artifact %d: %w", i, err)
		}
		if sum := sha256.Sum256(b); i >= len(j.arts) || sum != j.arts[i] {
			if !copied {
				arts, copied = append([][32]byte(nil), j.arts...), true
			}
			if i < len(arts) {
				arts[i] = sum
			} else {
				arts = append(arts, sum)
			}
			set = append(set, artifactAt{I: i, A: b})
		}
	}
	if len(set) > 0 || len(t.Artifacts) != len(j.arts) {
		if err := raw("artifacts", artifactsDelta{N: len(t.Artifacts), Set: set}); err != nil {
			return whole, err
		}
		nj.arts = arts[:len(t.Artifacts):len(t.Artifacts)]
	}
	if !changed {
		if !j.owned {
			s.mu.Lock()
			if s.journals[p] == j {
				oj := *j
				oj.owned = true
				s.putJournalLocked(p, &oj)
			}
			s.mu.Unlock()
		}
		return unchanged, nil
	}
	line = append(line, "}\n"...)
	if err := s.appendLine(ctx, p, j, &nj, line); err != nil {
		return whole, err
	}
	if pendingChanged {
		// pending.json is kept current at once: it is there exactly while
		// a confirmation waits, which tools and tests look for, and
		// changes only when one is asked or answered. After the entry, so
		// that a crash between the two leaves the entry to say it.
		if err := s.mirrorPending(ctx, p, t); err != nil {
			return appended, err
		}
	}
	return appended, nil
}

// mirrorPending writes pending.json for t, or deletes it when no call
// waits, under the task's file lock (a compaction writing an older one
// holds it).
func (s *Store) mirrorPending(ctx context.Context, p string, t *a2a.StoredTask) error {
	defer s.fileLocks.lock(t.ID)()
	if len(t.Pending) == 0 {
		if err := s.b.Delete(ctx, p+"pending.json"); err != nil && !notFound(err) {
			return err
		}
		s.forget(p + "pending.json")
		return nil
	}
	return s.writeJSON(ctx, p+"pending.json", t.Pending)
}

// maxOpenSegments bounds the segment files kept open between saves (one
// per task saved in the last seconds); past it a save opens and closes
// its segment.
const maxOpenSegments = 256

// appendSegment appends line to the task's segment file, starting one if
// j has none, and records the new size in j, and in j.f the open file
// when it stays open.
func (s *Store) appendSegment(p string, j *journal, line []byte) error {
	if j.seg < 0 {
		j.seg, j.segSize, j.f = j.next, 0, nil
	}
	path := s.localPath(segmentKey(p, j.seg))
	f := j.f
	if f == nil {
		var err error
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if errors.Is(err, fs.ErrNotExist) {
			if err = os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
				f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			}
		}
		if err != nil {
			return err
		}
	}
	_, err := f.Write(line)
	if err != nil {
		if f != j.f {
			f.Close()
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	j.segSize += int64(len(line))
	if f != j.f {
		s.mu.Lock()
		keep := s.openSegs < maxOpenSegments
		s.mu.Unlock()
		if keep {
			j.f = f
		} else if err := f.Close(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

// putJournalLocked records j (nil: none) as the task's journal, closing
// the segment file the one it replaces kept open unless j keeps it. s.mu
// is held.
func (s *Store) putJournalLocked(p string, j *journal) {
	old := s.journals[p]
	if old != nil && old.f != nil && (j == nil || j.f != old.f) {
		old.f.Close()
		s.openSegs--
	}
	if j != nil && j.f != nil && (old == nil || old.f != j.f) {
		s.openSegs++
	}
	if j == nil {
		delete(s.journals, p)
	} else {
		s.journals[p] = j
	}
}

// localPath is the file of a key in a file:// store, escaped as the
// bucket escapes the keys it writes (escapeKey): the journal's appends
// and the bucket's writes of one task must meet in one directory.
func (s *Store) localPath(key string) string {
	// A key ending in "/" is a task's directory, whose final slash
	// escapeKey would write as part of a file name.
	return filepath.Join(s.dir, escapeKey(strings.TrimSuffix(key, "/")))
}

// journalFile is one journal object as read: its entries and the
// highest entry number in it (-1: none).
type journalFile struct {
	key     string
	start   int
	maxSeq  int
	entries []entry
}

// journalError is a journal entry that does not decode.
type journalError struct{ err error }

func (e *journalError) Error() string { return e.err.Error() }
func (e *journalError) Unwrap() error { return e.err }

// readJournal reads the journal objects of the task, in order. A
// compaction passes upto, the first entry it leaves alone, and skips the
// objects that start at it or later, which saves may be writing; limit
// bounds the bytes read of the one segment before that they may be
// appending to, whose last line may be half written. Others pass -1 and
// "".
func (s *Store) readJournal(ctx context.Context, p string, upto int, limit string, size int64) ([]journalFile, error) {
	keys, err := s.keys(ctx, p+"journal/")
	if err != nil {
		return nil, err
	}
	var files []journalFile
	for _, k := range keys {
		if seq, _ := seqOf(k); seq >= 0 && (upto < 0 || seq < upto) {
			files = append(files, journalFile{key: k, start: seq, maxSeq: -1})
		}
	}
	sort.SliceStable(files, func(a, b int) bool { return files[a].start < files[b].start })
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for i := range files {
		f := &files[i]
		g.Go(func() error {
			var b []byte
			var err error
			if f.key == limit {
				b, err = s.readPrefix(gctx, f.key, size)
			} else {
				b, err = s.b.ReadAll(gctx, f.key)
			}
			if err != nil {
				if notFound(err) {
					return nil // folded in meanwhile
				}
				return err
			}
			_, seg := seqOf(f.key)
			es, err := parseJournal(f.key, f.start, b, seg)
			if err != nil {
				return &journalError{err}
			}
			f.entries = es
			for _, e := range es {
				f.maxSeq = max(f.maxSeq, *e.Seq)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return files, nil
}

// readPrefix reads the first n bytes of key.
func (s *Store) readPrefix(ctx context.Context, key string, n int64) ([]byte, error) {
	return s.b.ReadPrefix(ctx, key, n)
}

// parseJournal decodes one journal object. An object (.json) is one
// entry, written whole, numbered by its name unless it says otherwise; a
// segment (.jsonl) holds lines, each with its number. The last line of a
// segment may be torn by a write cut short (a process killed in the
// middle of it, a power loss): a last line without its newline, or one
// that does not decode, is left out with a warning. Any other entry that
// does not decode is an error naming it, since skipping it would lose
// the entries after it.
func parseJournal(key string, start int, b []byte, segment bool) ([]entry, error) {
	if !segment {
		var e entry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if e.Seq == nil {
			e.Seq = &start
		}
		e.where, e.size = key, len(b)
		return []entry{e}, nil
	}
	var es []entry
	for n := 1; len(b) > 0; n++ {
		line, rest, whole := bytes.Cut(b, []byte{'\n'})
		b = rest
		where := key + ":" + strconv.Itoa(n)
		if len(bytes.TrimSpace(line)) == 0 && whole {
			continue
		}
		var e entry
		err := json.Unmarshal(line, &e)
		if err == nil && e.Seq == nil {
			err = errors.New(`no "seq"`)
		}
		last := len(bytes.TrimSpace(b)) == 0
		if last && (!whole || err != nil) {
			if !whole && err == nil {
				err = errors.New("no newline")
			}
			slog.Warn("a2a/blobstore: ignoring a torn last journal line (a write cut short)", "entry", where, "error", err)
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		e.where, e.size = where, len(line)+1
		es = append(es, e)
	}
	return es, nil
}

// entriesFrom gathers the entries numbered from from up to (not
// including) upto (-1: all), in order.
func entriesFrom(files []journalFile, from, upto int) []entry {
	var es []entry
	for _, f := range files {
		for _, e := range f.entries {
			if *e.Seq >= from && (upto < 0 || *e.Seq < upto) {
				es = append(es, e)
			}
		}
	}
	sort.SliceStable(es, func(a, b int) bool { return *es[a].Seq < *es[b].Seq })
	return es
}

// doc is a task as JSON: the files, with entries applied on top. Lists
// and artifacts are kept element by element.
type doc struct {
	st                      stateFile
	metadata, push, pending json.RawMessage
	history, conversation   []json.RawMessage
	artifacts               []json.RawMessage
	// have is what was read; changed what entries changed, with
	// artsSet the artifacts they set and artsN whether the count did.
	have, changed parts
	artsSet       map[int]bool
	artsCount     int
	// historyBytes and conversationBytes are the sizes of the files read.
	historyBytes, conversationBytes int
	// baseHist and baseConv are the lengths of the lists the files hold,
	// histFrom and convFrom the first index an entry changed (-1: none),
	// and histClose and convClose the offsets of the files' closing
	// brackets: what appending in place needs (appendable).
	baseHist, baseConv   int
	histFrom, convFrom   int
	histClose, convClose int
	// stateRaw is state.json as read.
	stateRaw []byte
}

// apply applies e to the parts d holds.
func (d *doc) apply(e *entry) error {
	if e.H != nil && d.have&partHistory != 0 {
		if *e.H < 0 || *e.H > len(d.history) {
			return fmt.Errorf("%s: continues a history of %d messages, but the task has %d", e.where, *e.H, len(d.history))
		}
		d.history = append(d.history[:*e.H:*e.H], e.History...)
	}
	if e.H != nil {
		d.histFrom = lowest(d.histFrom, *e.H)
	}
	if e.T != nil {
		d.histFrom = lowest(d.histFrom, e.T.I)
	}
	if e.C != nil {
		d.convFrom = lowest(d.convFrom, *e.C)
	}
	if e.T != nil && d.have&partHistory != 0 {
		if err := d.applyText(e); err != nil {
			return err
		}
	}
	if e.C != nil && d.have&partConversation != 0 {
		if *e.C < 0 || *e.C > len(d.conversation) {
			return fmt.Errorf("%s: continues a conversation of %d contents, but the task has %d", e.where, *e.C, len(d.conversation))
		}
		d.conversation = append(d.conversation[:*e.C:*e.C], e.Conversation...)
	}
	if e.State != nil {
		was := d.st
		d.st = *e.State
		d.st.Journal, d.st.HistoryBytes, d.st.ConversationBytes = was.Journal, was.HistoryBytes, was.ConversationBytes
	}
	if e.Metadata != nil {
		d.metadata = e.Metadata
	}
	if e.Push != nil {
		d.push = e.Push
	}
	if e.Pending != nil {
		d.pending = e.Pending
		if string(bytes.TrimSpace(d.pending)) == "[]" {
			d.pending = nil // no pending.json, as a save without one writes
		}
	}
	if a := e.Artifacts; a != nil && d.have&partArtifacts != 0 {
		if a.N < 0 || a.N > 1<<20 {
			return fmt.Errorf("%s: %d artifacts", e.where, a.N)
		}
		if a.N < len(d.artifacts) {
			d.artifacts = d.artifacts[:a.N]
		}
		for len(d.artifacts) < a.N {
			d.artifacts = append(d.artifacts, nil)
		}
		for _, s := range a.Set {
			if s.I < 0 || s.I >= a.N {
				return fmt.Errorf("%s: artifact %d of %d", e.where, s.I, a.N)
			}
			d.artifacts[s.I] = s.A
			if d.artsSet == nil {
				d.artsSet = map[int]bool{}
			}
			d.artsSet[s.I] = true
		}
	}
	d.changed |= e.parts()
	return nil
}

// lowest is the lower of a first index so far (-1: none) and i.
func lowest(from, i int) int {
	if from < 0 {
		return i
	}
	return min(from, i)
}

// applyText applies a text entry to the history.
func (d *doc) applyText(e *entry) error {
	c := e.T
	switch {
	case c.M != nil && c.I <= len(d.history):
		d.history = append(d.history[:c.I:c.I], c.M)
		return nil
	case c.I < 0 || c.I >= len(d.history):
		return fmt.Errorf("%s: streamed text for message %d of a history of %d", e.where, c.I, len(d.history))
	}
	var m a2a.Message
	if err := json.Unmarshal(d.history[c.I], &m); err != nil {
		return fmt.Errorf("%s: history message %d: %w", e.where, c.I, err)
	}
	if len(m.Parts) != 1 || len(m.Parts[0].Text) < c.At {
		return fmt.Errorf("%s: streamed text at %d of message %d, which is not that long a text", e.where, c.At, c.I)
	}
	m.Parts = []a2a.Part{a2a.TextPart(m.Parts[0].Text[:c.At] + c.Text)}
	b, err := json.Marshal(&m)
	if err != nil {
		return err
	}
	d.history[c.I] = b
	return nil
}

// SaveText saves a chunk of streamed text as one journal entry holding
// the chunk (a2a.TextSaver): the message when the chunk starts it, else
// the text it adds. A task this process did not save or load before is
// saved whole by the next Save; its chunks wait for that (the server
// saves a task as its turn starts).
func (s *Store) SaveText(ctx context.Context, id string, _ int64, c a2a.TextChunk) error {
	if !validTaskID.Get().MatchString(id) {
		return fmt.Errorf("invalid task id %q", id)
	}
	unlock := s.locks.lock(id)
	defer unlock()
	p := taskPrefix(id)
	s.mu.Lock()
	j := s.journals[p]
	s.mu.Unlock()
	if j == nil || c.Index > j.hist.n || c.Index < j.hist.n-1 || c.Index == 0 {
		// Not a chunk of the history's last message as this process
		// saved it: the next save writes it.
		return nil
	}
	td := textDelta{I: c.Index, At: c.At}
	if c.Index == j.hist.n || c.At == 0 {
		b, err := json.Marshal(c.Message)
		if err != nil {
			return err
		}
		td.M = b
	} else {
		td.Text = c.Message.Parts[0].Text[c.At:]
	}
	body, err := json.Marshal(&td)
	if err != nil {
		return err
	}
	line := make([]byte, 0, len(body)+32)
	line = append(line, `{"seq":`...)
	line = strconv.AppendInt(line, int64(j.next), 10)
	line = append(line, `,"t":`...)
	line = append(line, body...)
	line = append(line, "}\n"...)
	// The history's marks end with the message as the chunk leaves it.
	nj := *j
	if c.Index == j.hist.n {
		nj.hist.prev = nj.hist.last
		nj.hist.n++
	}
	nj.hist.last = digest(c.Message)
	return s.appendLine(ctx, p, j, &nj, line)
}

// appendLine appends an entry's line to the task's journal j, and
// records nj, j as the entry leaves it, as the task's journal. On a
// failure the entry may be in the bucket, whole or torn: its number is
// not used again, and a file:// store starts a new segment, so that
// nothing is ever written after a torn line; the marks stay those of the
// last entry that surely holds.
func (s *Store) appendLine(ctx context.Context, p string, j, nj *journal, line []byte) error {
	var err error
	if s.dir != "" {
		err = s.appendSegment(p, nj, line)
	} else {
		err = s.write(ctx, journalKey(p, j.next), line)
	}
	if err != nil {
		bad := *j
		bad.next++
		bad.seg, bad.f = -1, nil
		if nj.f != nil && nj.f != j.f {
			nj.f.Close() // opened by this save, not yet counted
		}
		s.mu.Lock()
		s.putJournalLocked(p, &bad)
		s.mu.Unlock()
		return err
	}
	nj.next++
	nj.entries++
	nj.logBytes += len(line)
	nj.owned = true
	s.mu.Lock()
	s.putJournalLocked(p, nj)
	s.mu.Unlock()
	if nj.due(1) {
		s.compactAfter(p, 0)
	} else {
		s.compactAfter(p, settle)
	}
	return nil
}

// readBase reads state.json and the parts in need of the task's files.
// remember records what was read as what the bucket holds (Load, under
// the task's lock; not the compactor, which may read older files than a
// save under way writes).
func (s *Store) readBase(ctx context.Context, p string, need parts, remember bool) (*doc, error) {
	d := &doc{have: need, histFrom: -1, convFrom: -1}
	read := func(key string) ([]byte, error) {
		b, err := s.b.ReadAll(ctx, key)
		if err != nil {
			s.forget(key)
			return nil, err
		}
		if remember {
			s.mu.Lock()
			s.written[key] = sha256.Sum256(b)
			s.mu.Unlock()
		}
		return b, nil
	}
	b, err := read(p + "state.json")
	if err != nil {
		return nil, err
	}
	d.stateRaw = b
	if err := json.Unmarshal(b, &d.st); err != nil {
		return nil, fmt.Errorf("%sstate.json: %w", p, err)
	}
	var arts []string
	if need&partArtifacts != 0 {
		if arts, err = s.keys(ctx, p+"artifacts/"); err != nil {
			return nil, err
		}
		// Skips temporary files (<name>.json.<hex>.tmp) of a save that
		// died.
		arts = slices.DeleteFunc(arts, func(k string) bool { return !strings.HasSuffix(k, ".json") })
		d.artifacts = make([]json.RawMessage, len(arts))
		d.artsCount = len(arts)
	}
	type object struct {
		part parts
		name string
		into func([]byte) error
	}
	// A list file of a recorded size was, as of the mark, that many
	// bytes ending with its closing bracket's line: an append in place
	// under way, or one a crash cut short, wrote over that line and on
	// (appendable), so the file as of the mark is its start and that line.
	list := func(to *[]json.RawMessage, size, n, closing *int, recorded int) func([]byte) error {
		return func(b []byte) error {
			if recorded >= len(listEnd) && len(b) >= recorded-len(listEnd) {
				// Unless the file was rewritten whole since state.json was
				// read (Load reads again then).
				if asOfMark := append(b[:recorded-len(listEnd):recorded-len(listEnd)], listEnd...); json.Valid(asOfMark) {
					b = asOfMark
				}
			}
			*size = len(b)
			*closing = -1
			if len(b) > len(listEnd) && bytes.HasSuffix(b, []byte(listEnd)) {
				*closing = len(b) - 2
			}
			if err := json.Unmarshal(b, to); err != nil {
				return err
			}
			*n = len(*to)
			return nil
		}
	}
	rawInto := func(to *json.RawMessage) func([]byte) error {
		return func(b []byte) error {
			if !json.Valid(b) {
				var v any
				return json.Unmarshal(b, &v)
			}
			*to = bytes.TrimSpace(b)
			return nil
		}
	}
	objects := []object{
		{partHistory, "history.json", list(&d.history, &d.historyBytes, &d.baseHist, &d.histClose, d.st.HistoryBytes)},
		{partConversation, "conversation.json", list(&d.conversation, &d.conversationBytes, &d.baseConv, &d.convClose, d.st.ConversationBytes)},
		{partMetadata, "metadata.json", rawInto(&d.metadata)},
		{partPush, "push.json", rawInto(&d.push)},
		{partPending, "pending.json", rawInto(&d.pending)},
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	ctx = gctx
	for _, o := range objects {
		if need&o.part == 0 {
			continue
		}
		g.Go(func() error {
			b, err := read(p + o.name)
			if err != nil {
				if notFound(err) {
					return nil
				}
				return err
			}
			if err := o.into(b); err != nil {
				return fmt.Errorf("%s%s: %w", p, o.name, err)
			}
			return nil
		})
	}
	for i, k := range arts {
		g.Go(func() error {
			b, err := s.b.ReadAll(ctx, k)
			if err != nil {
				if notFound(err) {
					return nil
				}
				return err
			}
			d.artifacts[i] = b
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return d, nil
}

// decodeList decodes raw elements into a list.
func decodeList[T any](raws []json.RawMessage, into *[]T, name string) error {
	if raws == nil {
		return nil
	}
	n := 2
	for _, r := range raws {
		n += len(r) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, r := range raws {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, r...)
	}
	b = append(b, ']')
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// decodeEach decodes the elements that decode, as FileStore read
// artifacts: one that does not is skipped.
func decodeEach[T any](raws []json.RawMessage, into *[]T) {
	for _, r := range raws {
		var v T
		if r != nil && json.Unmarshal(r, &v) == nil {
			*into = append(*into, v)
		}
	}
}

// indentList is what encodeJSON gives for a list of these elements.
func indentList(raws []json.RawMessage) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, r := range raws {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(r)
	}
	b.WriteByte(']')
	return indentRaw(b.Bytes())
}

// indentRaw is what encodeJSON gives for a value of this JSON.
func indentRaw(raw []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(raw) * 3 / 2)
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// compactor folds journals into the files in the background.
type compactor struct {
	once   sync.Once
	mu     sync.Mutex
	closed bool
	due    map[string]time.Time
	// sleepUntil is when the loop wakes next by itself.
	sleepUntil time.Time
	wake       chan struct{}
	stop       chan struct{}
	stopped    chan struct{}
}

// compactAfter queues the task under prefix p for compaction once it had
// no save for d (0: as soon as possible).
func (s *Store) compactAfter(p string, d time.Duration) {
	c := &s.compact
	c.once.Do(func() {
		c.due = map[string]time.Time{}
		c.wake = make(chan struct{}, 1)
		c.stop = make(chan struct{})
		c.stopped = make(chan struct{})
		go s.compactLoop()
	})
	now := time.Now()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	// A compaction asked for now is not put off by a save.
	at, ok := c.due[p]
	if !ok || d == 0 || at.After(now) {
		at = now.Add(d)
		c.due[p] = at
	}
	// The loop is woken only when it would sleep past this task: most
	// saves put off a compaction that is later than one already due.
	wake := at.Before(c.sleepUntil)
	c.mu.Unlock()
	if wake {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

func (s *Store) compactLoop() {
	c := &s.compact
	defer close(c.stopped)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		ready, wait := c.take(time.Now())
		for _, p := range ready {
			select {
			case <-c.stop:
				return // Close folds the rest, side by side
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			s.compactTask(ctx, p, false)
			cancel()
		}
		if len(ready) > 0 {
			continue
		}
		timer.Reset(wait)
		select {
		case <-c.stop:
			return
		case <-c.wake:
		case <-timer.C:
		}
	}
}

// take returns the tasks due by now and how long until the next one is.
func (c *compactor) take(now time.Time) ([]string, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ready []string
	wait := time.Hour
	for p, at := range c.due {
		if !at.After(now) {
			ready = append(ready, p)
			delete(c.due, p)
		} else {
			wait = min(wait, at.Sub(now))
		}
	}
	sort.Strings(ready)
	if len(ready) > 0 {
		c.sleepUntil = now // compacting: not sleeping; take runs again after
	} else {
		c.sleepUntil = now.Add(wait)
	}
	return ready, wait
}

// closeParallel is how many tasks Close folds at once.
const closeParallel = 16

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
	for p := range s.journals {
		ps = append(ps, p)
	}
	s.mu.Unlock()
	sort.Strings(ps)
	// The tasks are folded side by side, so that their fsyncs are in
	// flight together (durable.go).
	var g errgroup.Group
	g.SetLimit(closeParallel)
	for _, p := range ps {
		g.Go(func() error {
			s.mu.Lock()
			j := s.journals[p]
			s.mu.Unlock()
			if j != nil && j.owned && (j.entries > 0 || j.next > j.from || j.seg >= 0 || j.stale) {
				s.compactTask(ctx, p, true)
			}
			if s.dir != "" {
				// Deleting files leaves their directory behind; os.Remove
				// takes it only if empty. Nothing saves once Close runs.
				os.Remove(s.localPath(p + "journal"))
			}
			return nil
		})
	}
	g.Wait()
	s.mu.Lock()
	for p, j := range s.journals {
		if j.f != nil {
			nj := *j
			nj.f = nil
			s.putJournalLocked(p, &nj)
		}
	}
	s.mu.Unlock()
}

// compactHook, when set by a test, runs at each step of a compaction
// ("written": the files, "marked": state.json) and stops it there by
// returning false, as a crash would.
var compactHook func(step string) bool

// compactTask folds the task's journal into its files, records in
// state.json that they hold it, and drops the entries. The reading and
// encoding happen without the task's lock, so that saves go on meanwhile
// (they only add entries after the ones folded); only the writes hold it.
// Failures leave the journal in place, where Load reads it. final (Close)
// also removes the segment saves append to.
func (s *Store) compactTask(ctx context.Context, p string, final bool) {
	id := strings.TrimSuffix(strings.TrimPrefix(p, "tasks/"), "/")
	// One compaction of a task at a time (the compactor's, a flush's,
	// Close's): two could commit in either order, the older fold last,
	// and the newer one then drop entries the files do not hold.
	defer s.compactLocks.lock(id)()
	s.mu.Lock()
	j := s.journals[p]
	s.mu.Unlock()
	if j == nil {
		return // deleted meanwhile
	}
	snap := *j
	limit := ""
	if snap.seg >= 0 {
		limit = segmentKey(p, snap.seg)
	}
	files, err := s.readJournal(ctx, p, snap.next, limit, snap.segSize)
	if err != nil {
		s.warnCompact(p, err)
		return
	}
	es := entriesFrom(files, snap.from, snap.next)
	var need parts
	for i := range es {
		need |= es[i].parts()
	}
	var d *doc
	var enc map[string][]byte
	var appends map[string]*inPlaceAppend
	if len(es) > 0 {
		if d, err = s.readBase(ctx, p, need, false); err != nil {
			s.warnCompact(p, err)
			return
		}
		for i := range es {
			if err := d.apply(&es[i]); err != nil {
				s.warnCompact(p, err)
				return
			}
		}
		if enc, appends, err = d.encode(p, s.dir != ""); err != nil {
			s.warnCompact(p, err)
			return
		}
	}

	// The files are written under the task's file lock only: saves that
	// append go on meanwhile, and only what reads or rewrites the files
	// (Load, a whole save, Delete) waits for the fsyncs.
	if d != nil {
		unlockFiles := s.fileLocks.lock(id)
		s.mu.Lock()
		cur := s.journals[p]
		s.mu.Unlock()
		if cur == nil || cur.gen != snap.gen || cur.from != snap.from {
			// Deleted, rewritten whole, loaded again or folded in meanwhile.
			unlockFiles()
			return
		}
		if cur.pendingSeq >= snap.next {
			delete(enc, p+"pending.json") // a save since wrote a newer one
		}
		err := s.writeFold(ctx, p, d, enc, appends, snap.next)
		unlockFiles()
		if err != nil {
			s.warnCompact(p, err)
			return
		}
	}
	// state.json says the entries are in the files: the journal can drop
	// them. That needs the task's lock, so that no save appends while the
	// segment is emptied.
	unlock := s.locks.lock(id)
	s.mu.Lock()
	cur := s.journals[p]
	s.mu.Unlock()
	if cur == nil || cur.gen != snap.gen || cur.from != snap.from {
		unlock()
		return
	}
	nj := *cur
	nj.from = snap.next
	nj.stale = false // deleted below
	nj.entries -= len(es)
	for i := range es {
		nj.logBytes -= es[i].size
	}
	nj.logBytes = max(nj.logBytes, 0)
	if d != nil && d.changed&(partHistory|partConversation) != 0 {
		nj.baseBytes = 0
		for _, k := range []string{p + "history.json", p + "conversation.json"} {
			if a := appends[k]; a != nil {
				nj.baseBytes += a.size
			} else {
				nj.baseBytes += len(enc[k])
			}
		}
	}
	// The segment being appended to is emptied when nothing was appended
	// since the snapshot (every line in it is folded in now; Close
	// deletes it instead). Otherwise it stays for the next compaction,
	// saves going on in a new one; so does the segment of the snapshot,
	// which may hold lines this compaction did not read.
	keep := map[string]bool{}
	if snap.seg >= 0 {
		keep[segmentKey(p, snap.seg)] = true
	}
	if cur.seg >= 0 {
		keep[segmentKey(p, cur.seg)] = true
		if cur.seg == snap.seg && cur.segSize == snap.segSize {
			if final {
				delete(keep, segmentKey(p, cur.seg))
				nj.seg = -1
			} else if os.Truncate(s.localPath(segmentKey(p, cur.seg)), 0) == nil {
				nj.segSize = 0
			} else {
				nj.seg = -1
			}
		} else {
			nj.seg = -1
		}
	}
	// The file is closed either way: a task busy again reopens it, one
	// left alone does not hold a descriptor.
	nj.f = nil
	s.mu.Lock()
	s.putJournalLocked(p, &nj)
	s.mu.Unlock()
	defer unlock()
	// Journal objects holding folded entries only go, in order, so that
	// entries left by a crash midway are a run the next load skips (they
	// are before state.json's mark). Objects written after the listing
	// are not among files. Still under the task's lock: a task deleted
	// and saved anew meanwhile could have an object of the same name.
	for _, f := range files {
		if f.maxSeq < snap.next && !keep[f.key] {
			if err := s.b.Delete(ctx, f.key); err != nil && !notFound(err) {
				s.warnCompact(p, err)
				return
			}
		}
	}
}

func (s *Store) warnCompact(p string, err error) {
	if closedBucket(err) {
		return // the bucket was closed under a store that was not
	}
	slog.Warn("a2a/blobstore: folding a task's journal into its files failed; it stays in the journal", "task", strings.TrimSuffix(strings.TrimPrefix(p, "tasks/"), "/"), "error", err)
}

// encode gives the files the entries changed, by key, in the layout's
// encoding; pending.json and artifacts past the count map to nil
// (deleted).
//
// In a file:// store (inPlace), a list the entries only appended to is
// not written whole: appends holds, by key, what to write in place of its
// closing bracket (appendable), so that a fold writes what the turns
// added whatever the task's length.
func (d *doc) encode(p string, inPlace bool) (out map[string][]byte, appends map[string]*inPlaceAppend, err error) {
	out = map[string][]byte{}
	appends = map[string]*inPlaceAppend{}
	for _, l := range []struct {
		part                        parts
		name                        string
		list                        []json.RawMessage
		base, from, closing, stored int
	}{
		{partHistory, "history.json", d.history, d.baseHist, d.histFrom, d.histClose, d.st.HistoryBytes},
		{partConversation, "conversation.json", d.conversation, d.baseConv, d.convFrom, d.convClose, d.st.ConversationBytes},
	} {
		if d.changed&l.part == 0 {
			continue
		}
		if inPlace && l.stored > 0 && l.base > 0 && l.from >= l.base && l.closing > 0 && len(l.list) >= l.base {
			a, err := appendTail(l.list[l.base:], l.closing)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", l.name, err)
			}
			appends[p+l.name] = a
			continue
		}
		if out[p+l.name], err = indentList(l.list); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", l.name, err)
		}
	}
	for _, o := range []struct {
		part parts
		name string
		raw  json.RawMessage
	}{{partMetadata, "metadata.json", d.metadata}, {partPush, "push.json", d.push}, {partPending, "pending.json", d.pending}} {
		if d.changed&o.part == 0 {
			continue
		}
		if o.raw == nil {
			out[p+o.name] = nil
			continue
		}
		if out[p+o.name], err = indentRaw(o.raw); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", o.name, err)
		}
	}
	if d.changed&partArtifacts != 0 {
		for i, r := range d.artifacts {
			if !d.artsSet[i] || r == nil {
				continue
			}
			if out[p+artifactName(i)], err = indentRaw(r); err != nil {
				return nil, nil, fmt.Errorf("artifact %d: %w", i, err)
			}
		}
		for i := len(d.artifacts); i < d.artsCount; i++ {
			out[p+artifactName(i)] = nil
		}
	}
	return out, appends, nil
}

// listEnd is how a list file indentList writes ends, when the list has
// elements.
const listEnd = "\n]\n"

// inPlaceAppend is an append to a list file in place: tail written at
// offset at (the closing bracket's line break), the file then size
// bytes long.
type inPlaceAppend struct {
	at, size int
	tail     []byte
}

// appendTail is what makes a list file ending with its closing bracket
// at closing hold the elements added too, byte for byte as indentList
// writes the whole list.
func appendTail(added []json.RawMessage, closing int) (*inPlaceAppend, error) {
	var b bytes.Buffer
	for _, r := range added {
		b.WriteString(",\n  ")
		if err := json.Indent(&b, r, "  ", "  "); err != nil {
			return nil, err
		}
	}
	b.WriteString("\n]\n")
	// The line break before the bracket goes: the tail starts with the
	// comma after the last element.
	at := closing - 1
	return &inPlaceAppend{at: at, size: at + b.Len(), tail: b.Bytes()}, nil
}

func artifactName(i int) string { return fmt.Sprintf("artifacts/%04d.json", i) }

// writeFold writes the files a compaction changed and then state.json
// with the mark next. In a file:// store the files and state.json are
// first written under temporary names and made durable (a barrier), then
// the files take their names and their directories reach the disk (a
// second), and only then state.json (a third), before the entries are
// dropped: so neither a crash nor a power loss at any step loses or
// repeats a folded entry (durable.go).
func (s *Store) writeFold(ctx context.Context, p string, d *doc, enc map[string][]byte, appends map[string]*inPlaceAppend, next int) error {
	keys := make([]string, 0, len(enc))
	for k := range enc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	st := d.st
	st.Journal = next
	if s.dir != "" {
		// The sizes of the list files as this fold leaves them.
		for _, l := range []struct {
			key  string
			part parts
			read int
			size *int
		}{
			{p + "history.json", partHistory, d.historyBytes, &st.HistoryBytes},
			{p + "conversation.json", partConversation, d.conversationBytes, &st.ConversationBytes},
		} {
			// Recorded only for a file ending as appendTail expects.
			switch a, b := appends[l.key], enc[l.key]; {
			case a != nil:
				*l.size = a.size
			case b != nil && len(b) > len(listEnd) && bytes.HasSuffix(b, []byte(listEnd)):
				*l.size = len(b)
			case b != nil:
				*l.size = 0
			case d.have&l.part != 0 && (l.part == partHistory && d.histClose > 0 || l.part == partConversation && d.convClose > 0):
				*l.size = l.read
			}
		}
	}
	sb, err := encodeJSON(st)
	if err != nil {
		return err
	}
	if s.dir == "" {
		return s.writeFoldRemote(ctx, p, keys, enc, sb)
	}
	// tmp is the temporary file of each key still to be renamed; what a
	// failure leaves of them goes (a crash leaves them to no one: loads
	// and listings skip *.tmp, Delete takes them with the task, and the
	// next Open sweeps them, sweep.go).
	tmp := map[string]string{}
	stopped := false
	defer func() {
		if !stopped {
			for _, t := range tmp {
				os.Remove(t)
			}
		}
	}()
	staged := make([]string, 0, len(keys)+len(appends)+1)
	// Appends in place go first, synced with the staged files: until
	// state.json records their sizes, loads read the files as of the
	// mark, and the entries hold what was appended.
	for k, a := range appends {
		path := s.localPath(k)
		s.forget(k)
		if err := writeInPlace(path, a); err != nil {
			return err
		}
		staged = append(staged, path)
	}
	for _, k := range append(keys, p+"state.json") {
		b := enc[k]
		if k == p+"state.json" {
			b = sb
		} else if b == nil {
			continue
		}
		t, err := s.stage(k, b)
		if err != nil {
			return err
		}
		tmp[k] = t
		staged = append(staged, t)
	}
	if err := s.barrier(staged...); err != nil {
		return err
	}
	if compactHook != nil && !compactHook("staged") {
		stopped = true
		return errors.New("stopped by the test")
	}
	commit := func(k string, b []byte) error {
		if err := os.Rename(tmp[k], s.localPath(k)); err != nil {
			s.forget(k)
			return err
		}
		delete(tmp, k)
		s.mu.Lock()
		s.written[k] = sha256.Sum256(b)
		s.mu.Unlock()
		return nil
	}
	for _, k := range keys {
		b := enc[k]
		if b == nil {
			if err := s.b.Delete(ctx, k); err != nil && !notFound(err) {
				return err
			}
			s.forget(k)
			continue
		}
		if err := commit(k, b); err != nil {
			return err
		}
	}
	dirs := []string{s.localPath(p)}
	if len(d.artsSet) > 0 {
		dirs = append(dirs, s.localPath(p+"artifacts"))
	}
	if err := s.barrier(dirs...); err != nil {
		return err
	}
	if compactHook != nil && !compactHook("written") {
		stopped = true
		return errors.New("stopped by the test")
	}
	if err := commit(p+"state.json", sb); err != nil {
		return err
	}
	if err := s.barrier(dirs[0]); err != nil {
		return err
	}
	if compactHook != nil && !compactHook("marked") {
		return errors.New("stopped by the test")
	}
	return nil
}

// writeInPlace writes a's tail into the file at path, at its offset,
// and cuts the file to its new size (past which a cut-short append of an
// earlier fold may have left bytes).
func writeInPlace(path string, a *inPlaceAppend) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(a.tail, int64(a.at))
	if err == nil {
		err = f.Truncate(int64(a.size))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writeFoldRemote is writeFold for buckets other than file://, which
// hold an object durably once its write returns.
func (s *Store) writeFoldRemote(ctx context.Context, p string, keys []string, enc map[string][]byte, state []byte) error {
	for _, k := range keys {
		b := enc[k]
		if b == nil {
			if err := s.b.Delete(ctx, k); err != nil && !notFound(err) {
				return err
			}
			s.forget(k)
			continue
		}
		if err := s.writeEncoded(ctx, k, b); err != nil {
			return err
		}
	}
	for _, step := range []string{"staged", "written"} {
		if compactHook != nil && !compactHook(step) {
			return errors.New("stopped by the test")
		}
	}
	if err := s.writeEncoded(ctx, p+"state.json", state); err != nil {
		return err
	}
	if compactHook != nil && !compactHook("marked") {
		return errors.New("stopped by the test")
	}
	return nil
}
