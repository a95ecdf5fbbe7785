// Package pgstore keeps A2A tasks in PostgreSQL, for replicas of the A2A
// server behind a load balancer: it is an a2a.SharedStore.
//
// A task is one row of castor_tasks (state, status, settings, metadata,
// push configs, and a version every save raises), its history,
// conversation and artifacts one row per entry in castor_items, and the
// calls its paused turn waits on one row each in castor_pending. A save
// writes the task row and only the entries that changed since the version
// this process last saved or loaded, so a turn writes what it adds
// whatever the task's length, and nothing is compacted later. Saves are
// conditional on the version (SaveVersioned): a replica holding a stale
// copy fails instead of writing over another's turn.
//
// A replica running a task's turns holds its lease (castor_leases), which
// it renews every third of the lease time; a replica that dies leaves a
// lease that expires, and the task is then shown interrupted and
// continuable. A pending confirmation is claimed with one DELETE, so that
// it runs once whichever replica receives it. Saves and lease releases
// NOTIFY channel castor_task with the task id, which wakes replicas
// waiting for a lease.
//
// The replica running a turn appends each of its events to
// castor_events before sending it, with the text a chunk streams (so a
// load applies the text streamed since the task's last save), and
// NOTIFYs castor_event: replicas with clients subscribed to the task read
// the events after the last they read (a2a.EventLog).
//
// Castor creates the tables itself and migrates them, versioned
// (castor_schema), under an advisory lock so that replicas starting
// together migrate once.
package pgstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/pgstore/internal/pgwire"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/lazy"
)

// validTaskID is a2a's rule for task ids.
var validTaskID = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`) }}

// Options tune a Store; zero fields take their defaults.
type Options struct {
	// MaxConns bounds the connection pool (default: the larger of 4 and
	// the number of CPUs). A URL's pool_max_conns wins.
	MaxConns int32
	// LeaseTTL is how long a task's lease outlives its replica's last
	// renewal (30s): a replica that dies leaves its tasks running for
	// that long before another may continue them.
	LeaseTTL time.Duration
	// Holder names this process in leases (host-pid-random).
	Holder string
	// Warn, if set, is told what of the URL the store does not follow
	// (pgx's pool_min_conns, say).
	Warn func(string)
}

// Store is an a2a.SharedStore over a PostgreSQL database. It is safe for
// concurrent use.
type Store struct {
	pool *pool
	// connConfig opens the listener's and the lease renewer's
	// connections.
	connConfig *pgwire.Config
	holder     string
	ttl        time.Duration

	// known is what this process last saved or loaded of each task: its
	// version and a digest of each entry, from which a save finds the
	// entries that changed. A task whose stored version differs is
	// written whole.
	mu    sync.Mutex
	known map[string]*known
	// onCancel is OnCancel's function; held are the leases this
	// process holds, which renewLeases renews.
	onCancel func(id string)
	held     map[string]*lease

	notes *notifier
	stop  context.CancelFunc
	// bg is the listener and the lease renewer, which Close waits for.
	bg sync.WaitGroup
}

type known struct {
	version int64
	lists   [nLists][][32]byte
	pending [32]byte
}

// The lists kept as rows in castor_items, by kind.
const (
	kindHistory = iota
	kindConversation
	kindArtifacts
	nLists
)

var (
	_ a2a.SharedStore    = (*Store)(nil)
	_ a2a.TaskPruner     = (*Store)(nil)
	_ a2a.TaskSummarizer = (*Store)(nil)
	_ a2a.EventLog       = (*Store)(nil)
	_ a2a.TextSaver      = (*Store)(nil)
)

// Open connects to the database a postgres:// URL names, creates or
// migrates Castor's tables, and starts listening for other replicas'
// changes. Errors name the URL without its password.
func Open(ctx context.Context, url string, o Options) (*Store, error) {
	cfg, lim, unfollowed, err := parseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("task store %s: %v", Redact(url), err)
	}
	if len(unfollowed) > 0 && o.Warn != nil {
		o.Warn(fmt.Sprintf("task store %s: %s not used: Castor's pool opens connections as needed, pings one idle over a second and prepares each statement once per connection", Redact(url), strings.Join(unfollowed, ", ")))
	}
	if lim.size == 0 {
		lim.size = int(o.MaxConns)
	}
	if lim.size <= 0 {
		lim.size = defaultMaxConns()
	}
	s := &Store{pool: newPool(cfg, lim), connConfig: cfg}
	if err := s.migrate(ctx); err != nil {
		s.pool.close()
		return nil, fmt.Errorf("task store %s: %v", Redact(url), err)
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 30 * time.Second
	}
	if o.Holder == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		o.Holder = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
	}
	lctx, stop := context.WithCancel(context.Background())
	s.holder, s.ttl, s.known, s.held, s.notes, s.stop = o.Holder, o.LeaseTTL, map[string]*known{}, map[string]*lease{}, newNotifier(), stop
	s.bg.Go(func() { s.listen(lctx) })
	s.bg.Go(func() { s.renewLeases(lctx) })
	return s, nil
}

// Close stops listening and closes the pool.
func (s *Store) Close() error {
	s.stop()
	s.bg.Wait()
	s.pool.close()
	return nil
}

// Holder is the name this process's leases carry.
func (s *Store) Holder() string { return s.holder }

// Ready pings the database.
func (s *Store) Ready(ctx context.Context) error {
	return s.withConn(ctx, func(c *pgwire.Conn) error { return c.Ping(ctx) })
}

// encoded is a task as its rows hold it.
type encoded struct {
	status, settings, metadata, push []byte
	lists                            [nLists][][]byte
	pendingIDs                       []string
	pending                          [][]byte
}

func encodeList[T any](list []T) ([][]byte, error) {
	out := make([][]byte, len(list))
	for i := range list {
		b, err := json.Marshal(list[i])
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func encode(t *a2a.StoredTask) (*encoded, error) {
	var e encoded
	var err error
	for _, f := range []struct {
		dst *[]byte
		v   any
	}{{&e.status, t.Status}, {&e.settings, t.Settings}, {&e.metadata, t.Metadata}, {&e.push, t.PushConfigs}} {
		if *f.dst, err = json.Marshal(f.v); err != nil {
			return nil, err
		}
	}
	if e.lists[kindHistory], err = encodeList(t.History); err != nil {
		return nil, err
	}
	if e.lists[kindConversation], err = encodeList(t.Conversation); err != nil {
		return nil, err
	}
	if e.lists[kindArtifacts], err = encodeList(t.Artifacts); err != nil {
		return nil, err
	}
	if e.pending, err = encodeList(t.Pending); err != nil {
		return nil, err
	}
	for _, p := range t.Pending {
		e.pendingIDs = append(e.pendingIDs, p.ID)
	}
	return &e, nil
}

func digests(list [][]byte) [][32]byte {
	out := make([][32]byte, len(list))
	for i, b := range list {
		out[i] = sha256.Sum256(b)
	}
	return out
}

func pendingDigest(e *encoded) [32]byte {
	h := sha256.New()
	for _, b := range e.pending {
		h.Write(b)
		h.Write([]byte{0})
	}
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// Save saves t whatever version is stored (a2a.TaskStore); the server
// uses SaveVersioned.
func (s *Store) Save(ctx context.Context, t *a2a.StoredTask) error {
	_, err := s.save(ctx, t, -1)
	return err
}

// SaveVersioned saves t when the stored version is prev (0: not stored)
// and returns the new version, or a2a.ErrConcurrentModification.
func (s *Store) SaveVersioned(ctx context.Context, t *a2a.StoredTask, prev int64) (int64, error) {
	return s.save(ctx, t, prev)
}

// save writes t in one transaction: the task row, the entries of its
// lists that differ from what this process knows is stored, and its
// pending calls when they changed. prev < 0 saves unconditionally.
func (s *Store) save(ctx context.Context, t *a2a.StoredTask, prev int64) (int64, error) {
	if !validTaskID.Get().MatchString(t.ID) {
		return 0, fmt.Errorf("invalid task id %q", t.ID)
	}
	e, err := encode(t)
	if err != nil {
		return 0, fmt.Errorf("task %s: %v", t.ID, err)
	}
	s.mu.Lock()
	k := s.known[t.ID]
	s.mu.Unlock()
	next := &known{pending: pendingDigest(e)}
	for i := range nLists {
		next.lists[i] = digests(e.lists[i])
	}
	var version int64
	if prev >= 0 {
		// One round trip: the batch runs as one implicit transaction,
		// which castor_expect_version aborts when the task moved on.
		whole := k == nil || k.version != prev || prev == 0
		version = prev + 1
		b := &batch{}
		b.queue(`SELECT castor_expect_version($1, $2)`, t.ID, prev)
		s.queueWrites(b, t, e, k, next, whole, prev != 0, version)
		err = s.withConn(ctx, func(c *pgwire.Conn) error { return b.send(ctx, c) })
		var pe *pgwire.PgError
		if errors.As(err, &pe) && pe.Code == conflictCode {
			err = a2a.ErrConcurrentModification
		}
	} else {
		err = s.inTx(ctx, "BEGIN", func(c *pgwire.Conn) error {
			var cur int64
			err := queryRow(ctx, c, `SELECT version FROM castor_tasks WHERE id = $1 FOR UPDATE`, []any{t.ID}, &cur)
			if err != nil && !errors.Is(err, errNoRows) {
				return err
			}
			version = cur + 1
			b := &batch{}
			s.queueWrites(b, t, e, k, next, k == nil || k.version != cur || cur == 0, cur != 0, version)
			return b.send(ctx, c)
		})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		// What is stored is unknown now: the next save writes whole.
		delete(s.known, t.ID)
		if errors.Is(err, a2a.ErrConcurrentModification) {
			return 0, err
		}
		return 0, fmt.Errorf("task %s: %v", t.ID, err)
	}
	next.version = version
	s.known[t.ID] = next
	return version, nil
}

// queueWrites queues the statements writing t: its row at version, the
// entries of its lists that differ from k (all of them when whole), its
// pending calls when they changed, and the notification other replicas
// wait on. stored says whether the task has rows already.
func (s *Store) queueWrites(b *batch, t *a2a.StoredTask, e *encoded, k, next *known, whole, stored bool, version int64) {
	b.queue(`INSERT INTO castor_tasks (id, context_id, state, status_ts, last_active, version, status, settings, metadata, push)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (id) DO UPDATE SET context_id = $2, state = $3, status_ts = $4, last_active = $5, version = $6,
			status = $7, settings = $8, metadata = $9, push = $10`,
		t.ID, t.ContextID, string(t.State), t.Status.Timestamp, t.Timestamp.UnixNano(), version, e.status, e.settings, e.metadata, e.push)
	if whole && stored {
		b.queue(`DELETE FROM castor_items WHERE task_id = $1`, t.ID)
	}
	for kind := range nLists {
		var old [][32]byte
		if !whole {
			old = k.lists[kind]
		}
		var seqs []int32
		var bodies [][]byte
		for i, d := range next.lists[kind] {
			if i < len(old) && old[i] == d {
				continue
			}
			seqs = append(seqs, int32(i))
			bodies = append(bodies, e.lists[kind][i])
		}
		if len(seqs) > 0 {
			b.queue(`INSERT INTO castor_items (task_id, kind, seq, body)
				SELECT $1, $2, s, b FROM unnest($3::integer[], $4::bytea[]) AS u(s, b)
				ON CONFLICT (task_id, kind, seq) DO UPDATE SET body = excluded.body`, t.ID, int16(kind), seqs, bodies)
		}
		if len(old) > len(next.lists[kind]) {
			b.queue(`DELETE FROM castor_items WHERE task_id = $1 AND kind = $2 AND seq >= $3`, t.ID, int16(kind), len(next.lists[kind]))
		}
	}
	if whole || k.pending != next.pending {
		if stored {
			b.queue(`DELETE FROM castor_pending WHERE task_id = $1`, t.ID)
		}
		if len(e.pending) > 0 {
			ords := make([]int32, len(e.pending))
			for i := range ords {
				ords[i] = int32(i)
			}
			b.queue(`INSERT INTO castor_pending (task_id, ord, call_id, body)
				SELECT $1, o, c, b FROM unnest($2::integer[], $3::text[], $4::bytea[]) AS u(o, c, b)`, t.ID, ords, e.pendingIDs, e.pending)
		}
	}
	if stored {
		// The events of turns saved since, which relays have read by
		// now and loads no longer apply.
		b.queue(`DELETE FROM castor_events WHERE task_id = $1 AND version < $2 AND created < now() - interval '1 minute'`, t.ID, version-1)
	}
	b.queue(`SELECT pg_notify('castor_task', $1)`, t.ID)
}

// Load returns the task (a2a.TaskStore).
func (s *Store) Load(ctx context.Context, id string) (*a2a.StoredTask, error) {
	t, _, err := s.LoadVersioned(ctx, id)
	return t, err
}

// LoadVersioned returns the task and its version, read in one snapshot.
func (s *Store) LoadVersioned(ctx context.Context, id string) (*a2a.StoredTask, int64, error) {
	t, v, _, err := s.load(ctx, id)
	return t, v, err
}

// load reads the task, its version and the number of its last event in
// one snapshot, and applies the text streamed since its last save.
func (s *Store) load(ctx context.Context, id string) (*a2a.StoredTask, int64, int64, error) {
	if !validTaskID.Get().MatchString(id) {
		return nil, 0, 0, a2a.ErrNotFound
	}
	t := &a2a.StoredTask{ID: id}
	var version, active int64
	var raw encoded
	var chunks []chunk
	var cursor int64
	err := s.inTx(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", func(c *pgwire.Conn) error {
		var state string
		err := queryRow(ctx, c, `SELECT context_id, state, last_active, version, status, settings, metadata, push
			FROM castor_tasks WHERE id = $1`, []any{id}, &t.ContextID, &state, &active, &version, &raw.status, &raw.settings, &raw.metadata, &raw.push)
		if errors.Is(err, errNoRows) {
			return a2a.ErrNotFound
		}
		if err != nil {
			return err
		}
		t.State = a2a.TaskState(state)
		err = query(ctx, c, `SELECT kind, body FROM castor_items WHERE task_id = $1 ORDER BY kind, seq`, []any{id}, func(values [][]byte) error {
			var kind int16
			var body []byte
			if err := scan(values, &kind, &body); err != nil {
				return err
			}
			if kind >= 0 && kind < nLists {
				raw.lists[kind] = append(raw.lists[kind], body)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if raw.pending, err = collect(ctx, c, `SELECT body FROM castor_pending WHERE task_id = $1 ORDER BY ord`, []any{id}, one[[]byte]); err != nil {
			return err
		}
		if chunks, err = readChunks(ctx, c, id, version); err != nil {
			return err
		}
		return queryRow(ctx, c, `SELECT coalesce(max(seq), 0) FROM castor_events WHERE task_id = $1`, []any{id}, &cursor)
	})
	if errors.Is(err, a2a.ErrNotFound) {
		return nil, 0, 0, err
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("task %s: %v", id, err)
	}
	t.Timestamp = time.Unix(0, active).UTC()
	if err := decode(t, &raw); err != nil {
		return nil, 0, 0, fmt.Errorf("task %s: %v", id, err)
	}
	for _, c := range chunks {
		if err := c.apply(t); err != nil {
			return nil, 0, 0, fmt.Errorf("task %s: %v", id, err)
		}
	}
	k := &known{version: version, pending: pendingDigest(&raw)}
	for i := range nLists {
		k.lists[i] = digests(raw.lists[i])
	}
	s.mu.Lock()
	s.known[id] = k
	s.mu.Unlock()
	return t, version, cursor, nil
}

func decodeList[T any](raw [][]byte, what string) ([]T, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	out := make([]T, len(raw))
	for i, b := range raw {
		if err := json.Unmarshal(b, &out[i]); err != nil {
			return nil, fmt.Errorf("%s entry %d: %v", what, i, err)
		}
	}
	return out, nil
}

func decode(t *a2a.StoredTask, raw *encoded) error {
	for _, f := range []struct {
		src  []byte
		dst  any
		what string
	}{{raw.status, &t.Status, "status"}, {raw.settings, &t.Settings, "settings"}, {raw.metadata, &t.Metadata, "metadata"}, {raw.push, &t.PushConfigs, "push configs"}} {
		if err := json.Unmarshal(f.src, f.dst); err != nil {
			return fmt.Errorf("%s: %v", f.what, err)
		}
	}
	var err error
	if t.History, err = decodeList[a2a.Message](raw.lists[kindHistory], "history"); err != nil {
		return err
	}
	if t.Conversation, err = decodeList[*genai.Content](raw.lists[kindConversation], "conversation"); err != nil {
		return err
	}
	if t.Artifacts, err = decodeList[a2a.Artifact](raw.lists[kindArtifacts], "artifacts"); err != nil {
		return err
	}
	t.Pending, err = decodeList[agent.PendingCall](raw.pending, "pending calls")
	return err
}

// Version returns the stored version of a task.
func (s *Store) Version(ctx context.Context, id string) (int64, error) {
	var v int64
	err := s.queryRow(ctx, `SELECT version FROM castor_tasks WHERE id = $1`, []any{id}, &v)
	if errors.Is(err, errNoRows) {
		return 0, a2a.ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("task %s: %v", id, err)
	}
	return v, nil
}

// List returns every task id, sorted.
func (s *Store) List(ctx context.Context) ([]string, error) {
	return collectPooled(ctx, s, `SELECT id FROM castor_tasks ORDER BY id COLLATE "C"`, nil, one[string])
}

// ListSummaries summarises every task in List's order.
func (s *Store) ListSummaries(ctx context.Context) ([]a2a.TaskSummary, error) {
	return collectPooled(ctx, s, `SELECT id, context_id, state, status_ts, last_active FROM castor_tasks ORDER BY id COLLATE "C"`, nil,
		func(values [][]byte) (a2a.TaskSummary, error) {
			var ts a2a.TaskSummary
			var state string
			var active int64
			err := scan(values, &ts.ID, &ts.ContextID, &state, &ts.StatusTimestamp, &active)
			ts.State = a2a.TaskState(state)
			ts.LastActive = time.Unix(0, active).UTC()
			return ts, err
		})
}

// Delete removes a task; an unknown one is not an error.
func (s *Store) Delete(ctx context.Context, id string) error {
	if _, err := s.exec(ctx, `DELETE FROM castor_tasks WHERE id = $1`, id); err != nil {
		return fmt.Errorf("task %s: %v", id, err)
	}
	s.forget(id)
	return nil
}

func (s *Store) forget(id string) {
	s.mu.Lock()
	delete(s.known, id)
	s.mu.Unlock()
}

// Prune deletes the tasks last active before cutoff that keep does not
// claim and that no replica holds the lease of (a2a.TaskPruner).
func (s *Store) Prune(ctx context.Context, cutoff time.Time, keep func(id string) bool) ([]string, error) {
	ids, err := collectPooled(ctx, s, `SELECT id FROM castor_tasks WHERE last_active < $1 ORDER BY id COLLATE "C"`, []any{cutoff.UnixNano()}, one[string])
	if err != nil {
		return nil, err
	}
	// Leases left by replicas that died long ago.
	if _, err := s.exec(ctx, `DELETE FROM castor_leases WHERE expires < now() - interval '1 hour'`); err != nil {
		return nil, err
	}
	var deleted []string
	for _, id := range ids {
		if keep != nil && keep(id) {
			continue
		}
		// Still old, and not running anywhere, as it is deleted.
		tag, err := s.exec(ctx, `DELETE FROM castor_tasks WHERE id = $1 AND last_active < $2
			AND NOT EXISTS (SELECT 1 FROM castor_leases WHERE task_id = $1 AND expires > now())`, id, cutoff.UnixNano())
		if err != nil {
			return deleted, err
		}
		if tag.RowsAffected() == 1 {
			deleted = append(deleted, id)
			s.forget(id)
		}
	}
	return deleted, nil
}

// ClaimPending deletes the pending call's row and raises the task's
// version: of all the replicas trying, one deletes it and learns true and
// the new version, and every other copy of the task is now stale.
func (s *Store) ClaimPending(ctx context.Context, id, callID string) (bool, int64, error) {
	var version int64
	err := s.inTx(ctx, "BEGIN", func(c *pgwire.Conn) error {
		tag, err := exec(ctx, c, `DELETE FROM castor_pending WHERE task_id = $1 AND call_id = $2`, id, callID)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		return queryRow(ctx, c, `UPDATE castor_tasks SET version = version + 1 WHERE id = $1 RETURNING version`, []any{id}, &version)
	})
	if err != nil {
		return false, 0, fmt.Errorf("task %s: claiming call %s: %v", id, callID, err)
	}
	if version == 0 {
		return false, 0, nil
	}
	s.mu.Lock()
	if k := s.known[id]; k != nil && k.version == version-1 {
		// Known but for the claimed row: the next save rewrites the
		// pending calls.
		k.version = version
		k.pending = [32]byte{}
	} else {
		delete(s.known, id)
	}
	s.mu.Unlock()
	return true, version, nil
}

// IsURL reports whether a store URL names PostgreSQL (postgres:// or
// postgresql://).
func IsURL(u string) bool {
	return strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://")
}

// Redact returns a postgres:// URL with its password replaced, for
// messages.
func Redact(url string) string {
	return passwordInURL.Get().ReplaceAllString(url, "${1}xxxxx@")
}

var passwordInURL = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^(postgres(?:ql)?://[^:/@]*:)[^@]*@`) }}
