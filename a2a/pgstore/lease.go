package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/pgstore/internal/pgwire"
)

// notifier wakes the waiters of a task when channel castor_task names it
// (a save, a lease released).
type notifier struct {
	mu   sync.Mutex
	wake map[string]chan struct{}
}

func newNotifier() *notifier { return &notifier{wake: map[string]chan struct{}{}} }

// next returns a channel closed at the task's next notification; take it
// before looking at the task, so that a change in between is not missed.
func (n *notifier) next(id string) <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch, ok := n.wake[id]
	if !ok {
		ch = make(chan struct{})
		n.wake[id] = ch
	}
	return ch
}

func (n *notifier) notify(id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if ch, ok := n.wake[id]; ok {
		close(ch)
		delete(n.wake, id)
	}
}

// all wakes every waiter: after the listening connection broke, changes
// may have gone unheard.
func (n *notifier) all() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for id, ch := range n.wake {
		close(ch)
		delete(n.wake, id)
	}
}

// listen holds a connection LISTENing on castor_task until ctx ends,
// reconnecting after a failure.
func (s *Store) listen(ctx context.Context) {
	for ctx.Err() == nil {
		err := s.listenOnce(ctx)
		s.notes.all()
		if ctx.Err() != nil {
			return
		}
		_ = err // waiters also poll, so a broken listener only slows them
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// listenOnce listens on a connection of its own, outside the pool: it
// is busy waiting for as long as it lives.
func (s *Store) listenOnce(ctx context.Context) error {
	conn, err := pgwire.Connect(ctx, s.connConfig)
	if err != nil {
		return err
	}
	defer closeConn(conn)
	conn.OnNotification = s.notified
	if _, err := simple(ctx, conn, `LISTEN castor_task; LISTEN castor_cancel; LISTEN castor_event`); err != nil {
		return err
	}
	for {
		// The notification goes to conn.OnNotification.
		if err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
	}
}

func (s *Store) notified(n *pgwire.Notification) {
	if n.Channel == "castor_cancel" {
		s.mu.Lock()
		fn := s.onCancel
		s.mu.Unlock()
		if fn != nil {
			go fn(n.Payload)
		}
		return
	}
	s.notes.notify(n.Payload)
}

// OnCancel sets the function called with the id of each task whose
// cancellation a replica asked for (RequestCancel), in every replica.
func (s *Store) OnCancel(fn func(id string)) {
	s.mu.Lock()
	s.onCancel = fn
	s.mu.Unlock()
}

// RequestCancel notifies channel castor_cancel with the task id: the
// replica running its turn cancels it.
func (s *Store) RequestCancel(ctx context.Context, id string) error {
	if _, err := s.exec(ctx, `SELECT pg_notify('castor_cancel', $1)`, id); err != nil {
		return fmt.Errorf("task %s: asking for its cancellation: %v", id, err)
	}
	return nil
}

// lease is a task's lease held by this process. The store's renewer
// renews every held lease in one statement (renewLeases).
type lease struct {
	s        *Store
	id       string
	lost     chan struct{}
	lostOnce sync.Once
	// taken is when the lease was taken, renewed when it was last taken
	// or renewed (under s.mu).
	taken, renewed time.Time
}

func (l *lease) markLost() { l.lostOnce.Do(func() { close(l.lost) }) }

// Lease takes the task's lease, waiting while another replica holds a
// live one; the store renews it every third of the lease time until
// Release.
func (s *Store) Lease(ctx context.Context, id string) (a2a.Lease, error) {
	for {
		wake := s.notes.next(id)
		expires, err := s.tryLease(ctx, id)
		if err != nil {
			return nil, err
		}
		if expires.IsZero() {
			break
		}
		if err := s.waitUntil(ctx, wake, expires); err != nil {
			return nil, fmt.Errorf("task %s runs on another replica: %w", id, err)
		}
	}
	now := time.Now()
	l := &lease{s: s, id: id, lost: make(chan struct{}), taken: now, renewed: now}
	s.mu.Lock()
	s.held[id] = l
	s.mu.Unlock()
	return l, nil
}

// tryLease takes the lease when it is free, expired or already this
// process's, and returns the zero time; else the other holder's expiry.
func (s *Store) tryLease(ctx context.Context, id string) (time.Time, error) {
	var holder string
	err := s.queryRow(ctx, `INSERT INTO castor_leases (task_id, holder, expires)
		VALUES ($1, $2, now() + $3 * interval '1 millisecond')
		ON CONFLICT (task_id) DO UPDATE SET holder = excluded.holder, expires = excluded.expires
		WHERE castor_leases.expires < now() OR castor_leases.holder = excluded.holder
		RETURNING holder`, []any{id, s.holder, s.ttl.Milliseconds()}, &holder)
	if err == nil {
		return time.Time{}, nil
	}
	if !errors.Is(err, errNoRows) {
		return time.Time{}, fmt.Errorf("task %s: taking its lease: %v", id, err)
	}
	var left time.Duration
	var ms float64
	err = s.queryRow(ctx, `SELECT extract(epoch FROM expires - now()) * 1000 FROM castor_leases WHERE task_id = $1`, []any{id}, &ms)
	switch {
	case errors.Is(err, errNoRows):
		// Released in between: try again at once.
		return time.Now(), nil
	case err != nil:
		return time.Time{}, fmt.Errorf("task %s: reading its lease: %v", id, err)
	}
	left = time.Duration(ms * float64(time.Millisecond))
	// The database's clock decides expiry; this process waits by its own
	// for as long as the database said was left.
	return time.Now().Add(max(left, 0)), nil
}

// waitUntil waits for a notification about the task, for the time at, or
// for a second (a notification may be lost while the listener
// reconnects), whichever comes first.
func (s *Store) waitUntil(ctx context.Context, wake <-chan struct{}, at time.Time) error {
	d := min(time.Until(at)+10*time.Millisecond, time.Second)
	timer := time.NewTimer(max(d, time.Millisecond))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-wake:
	case <-timer.C:
	}
	return nil
}

// renewLeases renews the leases this process holds, all in one
// statement, every third of the lease time, until ctx ends. A lease the
// database no longer gives this process, or one left unrenewed for a
// whole lease time (the database did not answer), is lost.
//
// Renewals run on a connection of their own (renewConn), not the pool's:
// under load every pooled connection may be busy with saves for longer
// than a lease lasts, and a renewal queued behind them lost leases whose
// turns were running well.
func (s *Store) renewLeases(ctx context.Context) {
	tick := time.NewTicker(s.ttl / 3)
	defer tick.Stop()
	var conn *pgwire.Conn
	defer func() {
		if conn != nil {
			closeConn(conn)
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s.mu.Lock()
		ids := make([]string, 0, len(s.held))
		for id := range s.held {
			ids = append(ids, id)
		}
		s.mu.Unlock()
		if len(ids) == 0 {
			continue
		}
		// Only leases taken before the statement starts are judged by it:
		// one released and taken again meanwhile has a row the statement
		// may not have seen.
		start := time.Now()
		rctx, cancel := context.WithTimeout(ctx, s.ttl/2)
		renewed := map[string]bool{}
		var err error
		if conn == nil {
			conn, err = pgwire.Connect(rctx, s.connConfig)
		}
		if err == nil {
			var got []string
			got, err = collect(rctx, conn, `UPDATE castor_leases SET expires = now() + $3 * interval '1 millisecond'
				WHERE holder = $1 AND task_id = ANY($2) RETURNING task_id`, []any{s.holder, ids, s.ttl.Milliseconds()}, one[string])
			for _, id := range got {
				renewed[id] = true
			}
			if err != nil {
				// Connected again at the next tick.
				closeConn(conn)
				conn = nil
			}
		}
		cancel()
		if ctx.Err() != nil {
			return
		}
		now := time.Now()
		s.mu.Lock()
		for _, id := range ids {
			l := s.held[id]
			switch {
			case l == nil || !l.taken.Before(start):
			case renewed[id]:
				l.renewed = now
			case err == nil || now.Sub(l.renewed) > s.ttl:
				delete(s.held, id)
				l.markLost()
			}
		}
		s.mu.Unlock()
	}
}

// Release deletes the lease, waking the replicas waiting for it.
func (l *lease) Release() {
	l.s.mu.Lock()
	if l.s.held[l.id] == l {
		delete(l.s.held, l.id)
	}
	l.s.mu.Unlock()
	l.markLost()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = l.s.exec(ctx, `WITH d AS (DELETE FROM castor_leases WHERE task_id = $1 AND holder = $2)
		SELECT pg_notify('castor_task', $1)`, l.id, l.s.holder)
}

// Lost is closed when a renewal failed, or by Release.
func (l *lease) Lost() <-chan struct{} { return l.lost }

// LeasedElsewhere reports whether another replica holds a live lease.
func (s *Store) LeasedElsewhere(ctx context.Context, id string) (bool, error) {
	var n int64
	err := s.queryRow(ctx, `SELECT count(*) FROM castor_leases WHERE task_id = $1 AND holder <> $2 AND expires > now()`, []any{id, s.holder}, &n)
	if err != nil {
		return false, fmt.Errorf("task %s: reading its lease: %v", id, err)
	}
	return n > 0, nil
}

// WaitReleased waits until no other replica holds a live lease.
func (s *Store) WaitReleased(ctx context.Context, id string) error {
	for {
		wake := s.notes.next(id)
		var ms float64
		err := s.queryRow(ctx, `SELECT extract(epoch FROM expires - now()) * 1000 FROM castor_leases
			WHERE task_id = $1 AND holder <> $2 AND expires > now()`, []any{id, s.holder}, &ms)
		if errors.Is(err, errNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("task %s: reading its lease: %v", id, err)
		}
		if err := s.waitUntil(ctx, wake, time.Now().Add(time.Duration(ms*float64(time.Millisecond)))); err != nil {
			return err
		}
	}
}
