// Package pgtest gives tests a PostgreSQL database of their own: an empty
// database created in the server CASTOR_TEST_POSTGRES names (.ci/run
// starts one with .ci/postgres.sh) and dropped when the test ends. Without
// the variable a test skips with a one-line reason, or fails under CI=true
// (internal/npmtest).
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/castor-dev/castor/a2a/pgstore/internal/pgwire"
	"github.com/castor-dev/castor/internal/npmtest"
)

// Env is the variable naming the test server.
const Env = "CASTOR_TEST_POSTGRES"

var seq atomic.Int64

// Database returns the URL of a new empty database for t.
func Database(t testing.TB) string {
	t.Helper()
	base := os.Getenv(Env)
	if base == "" {
		npmtest.Missing(t, "%s is not set (.ci/postgres.sh start DIR starts a server and prints its URL)", Env)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	ctx := context.Background()
	admin, err := connect(ctx, base)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	name := fmt.Sprintf("castor_test_%d_%d", os.Getpid(), seq.Add(1))
	if _, err := admin.Simple(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close(ctx)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Simple(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
		admin.Close(ctx)
	})
	u.Path = "/" + name
	return u.String()
}

// Drop drops the database url names (from Database) at once, closing its
// connections: what a store sees when its database goes away.
func Drop(t testing.TB, dbURL string) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	admin, err := connect(ctx, os.Getenv(Env))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := `"` + strings.ReplaceAll(u.Path[1:], `"`, `""`) + `"`
	if _, err := admin.Simple(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
}

func connect(ctx context.Context, url string) (*pgwire.Conn, error) {
	cfg, err := pgwire.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	return pgwire.Connect(ctx, cfg)
}

// Conn is a connection for a test's own statements.
type Conn struct {
	tb testing.TB
	c  *pgwire.Conn
}

// Connect connects to url (from Database) until the test ends.
func Connect(tb testing.TB, url string) *Conn {
	tb.Helper()
	c, err := connect(context.Background(), url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close(context.Background()) })
	return &Conn{tb, c}
}

// Text runs a statement, its arguments given as text, and returns the
// first column of its first row as text ("" for none or NULL); an error
// fails the test.
func (c *Conn) Text(sql string, args ...string) string {
	c.tb.Helper()
	stmt := pgwire.Statement{SQL: sql}
	for _, a := range args {
		stmt.Args = append(stmt.Args, []byte(a))
	}
	var out string
	found := false
	_, err := c.c.Run(context.Background(), []pgwire.Statement{stmt}, func(values [][]byte) error {
		if !found && len(values) > 0 {
			out = string(values[0])
		}
		found = true
		return nil
	})
	if err != nil {
		c.tb.Fatal(err)
	}
	return out
}
