package pgstore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/castor-dev/castor/a2a/pgstore/internal/pgwire"
)

// The store's connections are Castor's own PostgreSQL client's
// (internal/pgwire) in a pool of its own: pgx's pool, its Conn and even
// its pgconn link type systems, database/sql and encoding/xml into the
// binary, which every start of castor paid for.

// pingAfter is how long a connection stays idle before it is pinged
// before use (the server may have restarted), as pgxpool does.
const pingAfter = time.Second

// errClosed is what a closed store's calls return.
var errClosed = errors.New("the task store is closed")

// errNoRows is queryRow's error for a statement that returned no row.
var errNoRows = errors.New("no rows in result set")

// poolKeys are the URL parameters pgxpool and pgx read for themselves;
// they are not the server's, which refuses settings it does not know.
// pool_max_conns, pool_max_conn_idle_time and pool_max_conn_lifetime mean
// here what they meant to pgxpool.
var poolKeys = []string{"pool_max_conns", "pool_max_conn_lifetime", "pool_max_conn_idle_time"}

// unfollowedKeys are pgxpool's and pgx's other URL parameters: this pool
// opens connections as needed, checks an idle one before use and
// prepares each statement once per connection, so they have nothing to
// tune. They are taken off the URL and named in a warning.
var unfollowedKeys = []string{
	"pool_min_conns", "pool_min_idle_conns", "pool_max_conn_lifetime_jitter", "pool_health_check_period",
	"statement_cache_capacity", "description_cache_capacity", "default_query_exec_mode",
}

// limits bound a pool: its size, how long a connection may stay idle
// and how long it may live (pgxpool's defaults: 30 minutes, an hour).
type limits struct {
	size                 int
	maxIdle, maxLifetime time.Duration
}

// parseConfig parses a connection URL and the pool limits it sets (size
// 0: not set), and names the URL's parameters it does not follow.
func parseConfig(url string) (*pgwire.Config, limits, []string, error) {
	l := limits{maxIdle: 30 * time.Minute, maxLifetime: time.Hour}
	cfg, err := pgwire.ParseConfig(url)
	if err != nil {
		return nil, l, nil, err
	}
	if v, ok := cfg.RuntimeParams["pool_max_conns"]; ok {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 1 {
			return nil, l, nil, fmt.Errorf("pool_max_conns=%q: want a number of connections, at least 1", v)
		}
		l.size = int(n)
	}
	for k, d := range map[string]*time.Duration{"pool_max_conn_idle_time": &l.maxIdle, "pool_max_conn_lifetime": &l.maxLifetime} {
		if v, ok := cfg.RuntimeParams[k]; ok {
			if *d, err = time.ParseDuration(v); err != nil || *d <= 0 {
				return nil, l, nil, fmt.Errorf("%s=%q: want a duration such as 30m", k, v)
			}
		}
	}
	for _, k := range poolKeys {
		delete(cfg.RuntimeParams, k)
	}
	var unfollowed []string
	for _, k := range unfollowedKeys {
		if _, ok := cfg.RuntimeParams[k]; ok {
			unfollowed = append(unfollowed, k)
			delete(cfg.RuntimeParams, k)
		}
	}
	return cfg, l, unfollowed, nil
}

// defaultMaxConns is pgxpool's default pool size.
func defaultMaxConns() int { return max(4, runtime.NumCPU()) }

// pool holds up to cap(slots) connections; a connection is taken with a
// slot and given back with it.
type pool struct {
	cfg   *pgwire.Config
	lim   limits
	slots chan struct{}
	done  chan struct{}

	mu     sync.Mutex
	idle   []*poolConn // most recently used last
	closed bool
}

type poolConn struct {
	pg          *pgwire.Conn
	born, since time.Time
}

func newPool(cfg *pgwire.Config, lim limits) *pool {
	return &pool{cfg: cfg, lim: lim, slots: make(chan struct{}, lim.size), done: make(chan struct{})}
}

// acquire takes an idle connection, pinged first when it was idle a while,
// or opens a new one, waiting while all are in use.
func (p *pool) acquire(ctx context.Context) (*poolConn, error) {
	select {
	case p.slots <- struct{}{}:
	case <-p.done:
		return nil, errClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			<-p.slots
			return nil, errClosed
		}
		var c *poolConn
		if n := len(p.idle); n > 0 {
			c = p.idle[n-1]
			p.idle = p.idle[:n-1]
		}
		p.mu.Unlock()
		if c == nil {
			break
		}
		idle := time.Since(c.since)
		if idle > p.lim.maxIdle || time.Since(c.born) > p.lim.maxLifetime {
			closeConn(c.pg)
			continue
		}
		if idle > pingAfter {
			if err := c.pg.Ping(ctx); err != nil {
				closeConn(c.pg)
				if ctx.Err() != nil {
					<-p.slots
					return nil, ctx.Err()
				}
				continue
			}
		}
		return c, nil
	}
	pg, err := pgwire.Connect(ctx, p.cfg)
	if err != nil {
		<-p.slots
		return nil, err
	}
	now := time.Now()
	return &poolConn{pg: pg, born: now, since: now}, nil
}

// release gives a connection back, or closes it when it is broken (a
// cancelled statement closes it), still busy or in a transaction: what
// a failed call left behind must not reach the next.
func (p *pool) release(c *poolConn) {
	now := time.Now()
	p.mu.Lock()
	keep := !p.closed && !c.pg.IsClosed() && !c.pg.IsBusy() && c.pg.TxStatus() == 'I' && now.Sub(c.born) < p.lim.maxLifetime
	if keep {
		c.since = now
		p.idle = append(p.idle, c)
	}
	// The connections left idle for too long are the oldest, at the
	// bottom of the stack, which a light load never reaches.
	var expired []*poolConn
	for len(p.idle) > 0 && now.Sub(p.idle[0].since) > p.lim.maxIdle {
		expired = append(expired, p.idle[0])
		p.idle = p.idle[1:]
	}
	p.mu.Unlock()
	if !keep {
		closeConn(c.pg)
	}
	for _, e := range expired {
		closeConn(e.pg)
	}
	<-p.slots
}

// close refuses new acquires, waits for the connections in use to come
// back, and closes them all.
func (p *pool) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.done)
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, c := range idle {
		closeConn(c.pg)
	}
	for range cap(p.slots) {
		p.slots <- struct{}{}
	}
}

// closeConn says goodbye to the server, or just closes the socket when
// the server does not take it at once.
func closeConn(c *pgwire.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = c.Close(ctx)
}

// withConn runs fn on a pooled connection.
func (s *Store) withConn(ctx context.Context, fn func(c *pgwire.Conn) error) error {
	c, err := s.pool.acquire(ctx)
	if err != nil {
		return err
	}
	defer s.pool.release(c)
	return fn(c.pg)
}

// inTx runs fn in a transaction that begin starts (BEGIN and its
// options), committed when fn returns nil and rolled back otherwise. A
// connection left in the transaction (the rollback failed) is closed by
// release.
func (s *Store) inTx(ctx context.Context, begin string, fn func(c *pgwire.Conn) error) error {
	return s.withConn(ctx, func(c *pgwire.Conn) error {
		if _, err := simple(ctx, c, begin); err != nil {
			return err
		}
		if err := fn(c); err != nil {
			_, _ = simple(ctx, c, "ROLLBACK")
			return err
		}
		tag, err := simple(ctx, c, "COMMIT")
		if err == nil && tag.String() == "ROLLBACK" {
			return errors.New("commit unexpectedly resulted in rollback")
		}
		return err
	})
}

// simple runs SQL without parameters (one statement or several, as a
// migration is) and returns the last statement's command tag.
func simple(ctx context.Context, c *pgwire.Conn, sql string) (pgwire.CommandTag, error) {
	return c.Simple(ctx, sql)
}

// The connection prepares each statement the first time it runs it, in
// the same round trip, and by name afterwards: the server parses and
// plans a statement once a connection, as pgx's statement cache had it
// do. A statement prepared before another process changed the tables
// fails once (0A000, 26000) and is prepared again at its next use.

// exec runs a statement and returns its command tag.
func exec(ctx context.Context, c *pgwire.Conn, sql string, args ...any) (pgwire.CommandTag, error) {
	return c.Run(ctx, []pgwire.Statement{{SQL: sql, Args: params(args)}}, nil)
}

// query runs a statement and calls row with each row's values, which are
// valid only during the call. The first error row returns ends the query.
func query(ctx context.Context, c *pgwire.Conn, sql string, args []any, row func(values [][]byte) error) error {
	_, err := c.Run(ctx, []pgwire.Statement{{SQL: sql, Args: params(args)}}, row)
	return err
}

// queryRow runs a statement and scans its first row into dst, or returns
// errNoRows.
func queryRow(ctx context.Context, c *pgwire.Conn, sql string, args []any, dst ...any) error {
	found := false
	err := query(ctx, c, sql, args, func(values [][]byte) error {
		if found {
			return nil
		}
		found = true
		return scan(values, dst...)
	})
	if err == nil && !found {
		return errNoRows
	}
	return err
}

// collect runs a statement and scans each row with one function. No rows
// is an empty slice, not nil, as pgx.CollectRows had it.
func collect[T any](ctx context.Context, c *pgwire.Conn, sql string, args []any, scanRow func(values [][]byte) (T, error)) ([]T, error) {
	out := []T{}
	err := query(ctx, c, sql, args, func(values [][]byte) error {
		v, err := scanRow(values)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// one scans a row of one column.
func one[T any](values [][]byte) (T, error) {
	var v T
	err := scan(values, &v)
	return v, err
}

// batch is statements sent at once and run in one implicit transaction
// (in the caller's, within one): one round trip for a save, statements
// not yet prepared on the connection included.
type batch struct {
	stmts []pgwire.Statement
}

func (b *batch) queue(sql string, args ...any) {
	b.stmts = append(b.stmts, pgwire.Statement{SQL: sql, Args: params(args)})
}

// send runs the batch and returns its first error.
func (b *batch) send(ctx context.Context, c *pgwire.Conn) error {
	_, err := c.Run(ctx, b.stmts, nil)
	return err
}

// exec runs a statement on a pooled connection.
func (s *Store) exec(ctx context.Context, sql string, args ...any) (pgwire.CommandTag, error) {
	var tag pgwire.CommandTag
	err := s.withConn(ctx, func(c *pgwire.Conn) error {
		var err error
		tag, err = exec(ctx, c, sql, args...)
		return err
	})
	return tag, err
}

// collectPooled runs collect on a pooled connection.
func collectPooled[T any](ctx context.Context, s *Store, sql string, args []any, scanRow func(values [][]byte) (T, error)) ([]T, error) {
	var out []T
	err := s.withConn(ctx, func(c *pgwire.Conn) error {
		var err error
		out, err = collect(ctx, c, sql, args, scanRow)
		return err
	})
	return out, err
}

// queryRow runs queryRow on a pooled connection.
func (s *Store) queryRow(ctx context.Context, sql string, args []any, dst ...any) error {
	return s.withConn(ctx, func(c *pgwire.Conn) error { return queryRow(ctx, c, sql, args, dst...) })
}
