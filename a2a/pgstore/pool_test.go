package pgstore

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a/pgstore/internal/pgwire"
	"github.com/castor-dev/castor/a2a/pgstore/pgtest"
)

func testPool(t *testing.T, size int) (*pool, *pgwire.Conn) {
	t.Helper()
	url := pgtest.Database(t)
	cfg, lim, _, err := parseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	lim.size = size
	p := newPool(cfg, lim)
	t.Cleanup(p.close)
	return p, testConn(t, url)
}

// testConn connects to url outside any pool.
func testConn(t *testing.T, url string) *pgwire.Conn {
	t.Helper()
	cfg, err := pgwire.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	c, err := pgwire.Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeConn(c) })
	return c
}

func idleCount(p *pool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

func acquire(t *testing.T, p *pool) *poolConn {
	t.Helper()
	c, err := p.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// What a failed call leaves behind (a statement cancelled midway, a
// transaction left open, a connection the server ended) is closed, not
// handed to the next call.
func TestPoolDropsBrokenConns(t *testing.T) {
	p, admin := testPool(t, 2)
	ctx := context.Background()

	// A statement cancelled while it runs.
	c := acquire(t, p)
	pid := c.pg.PID()
	qctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := exec(qctx, c.pg, `SELECT pg_sleep(60)`)
		done <- err
	}()
	for {
		var n int64
		if err := queryRow(ctx, admin, `SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND query LIKE '%pg_sleep(60)%' AND state = 'active'`,
			[]any{int32(pid)}, &n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled statement succeeded")
	}
	p.release(c)
	if n := idleCount(p); n != 0 {
		t.Fatalf("%d idle connections after a cancelled statement, want 0", n)
	}

	// A transaction left open.
	c = acquire(t, p)
	if _, err := simple(ctx, c.pg, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	p.release(c)
	if n := idleCount(p); n != 0 {
		t.Fatalf("%d idle connections after a transaction left open, want 0", n)
	}

	// A connection the server ended while it was idle (a restart): the
	// ping before its next use finds it closed, and a new one is opened.
	c = acquire(t, p)
	pid = c.pg.PID()
	p.release(c)
	if _, err := exec(ctx, admin, `SELECT pg_terminate_backend($1)`, int32(pid)); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.idle[0].since = time.Now().Add(-2 * pingAfter)
	p.mu.Unlock()
	c = acquire(t, p)
	err := c.pg.Ping(ctx)
	p.release(c)
	if c.pg.PID() == pid || err != nil {
		t.Fatalf("the pool handed out the connection the server ended (%v)", err)
	}

	// Idle for less than the ping's threshold, it fails once and is
	// dropped.
	pid = c.pg.PID()
	if _, err := exec(ctx, admin, `SELECT pg_terminate_backend($1)`, int32(pid)); err != nil {
		t.Fatal(err)
	}
	c = acquire(t, p)
	_, err = exec(ctx, c.pg, `SELECT 1`)
	p.release(c)
	if err == nil {
		t.Fatal("a statement on a connection the server ended succeeded")
	}
	if n := idleCount(p); n != 0 {
		t.Fatalf("%d idle connections after the server ended one, want 0", n)
	}

	// A healthy connection is kept and used again.
	c = acquire(t, p)
	pid = c.pg.PID()
	p.release(c)
	c = acquire(t, p)
	p.release(c)
	if c.pg.PID() != pid {
		t.Fatal("a healthy connection was not used again")
	}

	// One older than pool_max_conn_lifetime is closed as it comes back,
	// one idle for longer than pool_max_conn_idle_time before its use.
	p.lim.maxLifetime = time.Nanosecond
	c = acquire(t, p)
	p.release(c)
	if n := idleCount(p); n != 0 || !c.pg.IsClosed() {
		t.Fatalf("%d idle connections after one outlived its lifetime, want 0", n)
	}
	p.lim.maxLifetime, p.lim.maxIdle = time.Hour, time.Nanosecond
	c = acquire(t, p)
	p.release(c)
	c2 := acquire(t, p)
	p.release(c2)
	if c2.pg == c.pg || !c.pg.IsClosed() {
		t.Fatal("a connection idle for longer than its limit was used again")
	}
	// Left at the bottom of the stack, it is closed as another comes back.
	p.lim.maxIdle = time.Hour
	c, c2 = acquire(t, p), acquire(t, p)
	p.release(c)
	p.lim.maxIdle = time.Nanosecond
	p.release(c2)
	if n := idleCount(p); n != 1 || !c.pg.IsClosed() {
		t.Fatalf("%d idle connections, the oldest closed: %v; want the one just back", n, c.pg.IsClosed())
	}
}

// The pool holds at most its size; an acquire waits for a release or
// its context, and a closed pool refuses.
func TestPoolSize(t *testing.T) {
	p, _ := testPool(t, 1)
	c := acquire(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.acquire(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire beyond the size = %v, want context.Canceled", err)
	}
	got := make(chan *poolConn)
	go func() {
		c, err := p.acquire(context.Background())
		if err != nil {
			t.Error(err)
		}
		got <- c
	}()
	p.release(c)
	c2 := <-got
	if c2.pg != c.pg {
		t.Fatal("the waiting acquire did not get the released connection")
	}
	closed := make(chan struct{})
	go func() { p.close(); close(closed) }()
	// close waits for c2.
	p.release(c2)
	<-closed
	if !c2.pg.IsClosed() {
		t.Fatal("close left a connection open")
	}
	if _, err := p.acquire(context.Background()); !errors.Is(err, errClosed) {
		t.Fatalf("acquire on a closed pool = %v, want errClosed", err)
	}
}

func TestParseConfig(t *testing.T) {
	cfg, lim, unfollowed, err := parseConfig("postgres://u:pw@127.0.0.1:5/db?sslmode=disable&pool_max_conns=3&pool_max_conn_idle_time=1m&pool_min_conns=1&application_name=castor&default_query_exec_mode=simple_protocol")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(unfollowed, []string{"pool_min_conns", "default_query_exec_mode"}) {
		t.Fatalf("unfollowed %q, want pool_min_conns and default_query_exec_mode named", unfollowed)
	}
	if lim != (limits{3, time.Minute, time.Hour}) {
		t.Fatalf("limits %+v", lim)
	}
	if len(cfg.Targets) != 1 || cfg.Targets[0].Host != "127.0.0.1" || cfg.Targets[0].Port != 5 || cfg.Targets[0].TLS != nil ||
		cfg.Database != "db" || cfg.User != "u" || cfg.Password != "pw" {
		t.Fatalf("config %+v", cfg)
	}
	if len(cfg.RuntimeParams) != 1 || cfg.RuntimeParams["application_name"] != "castor" {
		t.Fatalf("runtime params %v: the pool's are not the server's", cfg.RuntimeParams)
	}
	if _, lim, unfollowed, err := parseConfig("postgres://127.0.0.1/db?pool_max_conn_lifetime=90s"); err != nil || unfollowed != nil || lim != (limits{0, 30 * time.Minute, 90 * time.Second}) {
		t.Fatalf("no pool_max_conns: %+v, %v", lim, err)
	}
	for _, bad := range []string{"pool_max_conns=0", "pool_max_conns=x", "pool_max_conns=-1", "pool_max_conn_lifetime=1", "pool_max_conn_idle_time=-1s"} {
		key, _, _ := strings.Cut(bad, "=")
		if _, _, _, err := parseConfig("postgres://127.0.0.1/db?" + bad); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// A statement prepared before another process changed its table fails
// once, and is prepared again at its next use: a replica of a newer
// Castor may migrate the tables under running ones.
func TestStaleStatement(t *testing.T) {
	p, admin := testPool(t, 1)
	ctx := context.Background()
	c := acquire(t, p)
	defer p.release(c)
	if _, err := simple(ctx, c.pg, `CREATE TABLE t (a integer); INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	var a, b *int32
	if err := queryRow(ctx, c.pg, `SELECT * FROM t`, nil, &a); err != nil {
		t.Fatal(err)
	}
	if _, err := simple(ctx, admin, `ALTER TABLE t ADD COLUMN b integer`); err != nil {
		t.Fatal(err)
	}
	if err := queryRow(ctx, c.pg, `SELECT * FROM t`, nil, &a, &b); err == nil {
		t.Log("the server planned the statement again by itself")
	}
	if err := queryRow(ctx, c.pg, `SELECT * FROM t`, nil, &a, &b); err != nil || a == nil || *a != 1 || b != nil {
		t.Fatalf("after the change: %v, %v, %v", a, b, err)
	}
}
