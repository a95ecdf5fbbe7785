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

	"github.com/jackc/pgx/v5/pgconn"

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
	admin, err := pgconn.Connect(ctx, base)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	name := fmt.Sprintf("castor_test_%d_%d", os.Getpid(), seq.Add(1))
	if err := admin.Exec(ctx, "CREATE DATABASE "+name).Close(); err != nil {
		admin.Close(ctx)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admin.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)").Close()
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
	admin, err := pgconn.Connect(ctx, os.Getenv(Env))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := `"` + strings.ReplaceAll(u.Path[1:], `"`, `""`) + `"`
	if err := admin.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)").Close(); err != nil {
		t.Fatal(err)
	}
}
