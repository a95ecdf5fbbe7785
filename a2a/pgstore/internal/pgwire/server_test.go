package pgwire_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a/pgstore/internal/pgwire"
	"github.com/castor-dev/castor/a2a/pgstore/pgtest"
)

func connect(t *testing.T, connString string) (*pgwire.Conn, error) {
	t.Helper()
	cfg, err := pgwire.ParseConfig(connString)
	if err != nil {
		t.Fatal(err)
	}
	c, err := pgwire.Connect(t.Context(), cfg)
	if err == nil {
		t.Cleanup(func() { c.Close(context.Background()) })
	}
	return c, err
}

func mustConnect(t *testing.T, connString string) *pgwire.Conn {
	t.Helper()
	c, err := connect(t, connString)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// text runs a statement and returns its first row's first value.
func text(t *testing.T, c *pgwire.Conn, sql string, args ...string) string {
	t.Helper()
	s := pgwire.Statement{SQL: sql}
	for _, a := range args {
		s.Args = append(s.Args, []byte(a))
	}
	var out string
	if _, err := c.Run(t.Context(), []pgwire.Statement{s}, func(v [][]byte) error {
		out = string(v[0])
		return nil
	}); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func simple(t *testing.T, c *pgwire.Conn, sql string) {
	t.Helper()
	if _, err := c.Simple(t.Context(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// withUser returns the URL u names with another user and password.
func withUser(t *testing.T, u, user, password string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	if password == "" {
		p.User = url.User(user)
	} else {
		p.User = url.UserPassword(user, password)
	}
	return p.String()
}

// withQuery returns u with its query replaced.
func withQuery(t *testing.T, u, query string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	p.RawQuery = query
	return p.String()
}

// A batch runs as one implicit transaction: an error rolls back the
// statements before it and names the server's fields; the connection
// stays usable.
func TestRunBatchError(t *testing.T) {
	c := mustConnect(t, pgtest.Database(t))
	simple(t, c, `CREATE TABLE t (id integer PRIMARY KEY, v text)`)
	_, err := c.Run(t.Context(), []pgwire.Statement{
		{SQL: `INSERT INTO t VALUES ($1, $2)`, Args: [][]byte{[]byte("1"), nil}},
		{SQL: `INSERT INTO t VALUES ($1, $2)`, Args: [][]byte{[]byte("1"), []byte("again")}},
		{SQL: `INSERT INTO t VALUES ($1, $2)`, Args: [][]byte{[]byte("2"), []byte("")}},
	}, nil)
	var pe *pgwire.PgError
	if !errors.As(err, &pe) || pe.Code != "23505" || pe.ConstraintName != "t_pkey" || pe.TableName != "t" || !strings.Contains(pe.Detail, "(id)=(1)") || pe.Severity != "ERROR" {
		t.Fatalf("%v (%+v)", err, pe)
	}
	if c.IsClosed() || c.TxStatus() != 'I' {
		t.Fatalf("closed %v, tx %c after an error", c.IsClosed(), c.TxStatus())
	}
	if n := text(t, c, `SELECT count(*) FROM t`); n != "0" {
		t.Fatalf("%s rows after the failed batch, want 0", n)
	}
	tag, err := c.Run(t.Context(), []pgwire.Statement{
		{SQL: `INSERT INTO t VALUES ($1, $2)`, Args: [][]byte{[]byte("1"), nil}},
		{SQL: `UPDATE t SET v = $1`, Args: [][]byte{[]byte("")}},
	}, nil)
	if err != nil || tag.RowsAffected() != 1 || tag.String() != "UPDATE 1" {
		t.Fatalf("%q, %v", tag, err)
	}
	var vals []string
	if _, err := c.Run(t.Context(), []pgwire.Statement{{SQL: `SELECT v, NULL::text FROM t`}}, func(v [][]byte) error {
		vals = append(vals, fmt.Sprintf("%q %v", v[0], v[1] == nil))
		return nil
	}); err != nil || len(vals) != 1 || vals[0] != `"" true` {
		t.Fatalf("%v, %v: want an empty string and a NULL", vals, err)
	}
}

// A context ended mid-statement cancels it on the server (CancelRequest)
// and closes the connection.
func TestCancel(t *testing.T) {
	u := pgtest.Database(t)
	admin, c := mustConnect(t, u), mustConnect(t, u)
	pid := fmt.Sprint(c.PID())
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := c.Run(ctx, []pgwire.Statement{{SQL: `SELECT pg_sleep(600)`}}, nil)
		done <- err
	}()
	for text(t, admin, `SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND query LIKE '%pg_sleep(600)%'`, pid) != "1" {
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled statement returned %v", err)
	}
	if !c.IsClosed() || c.IsBusy() {
		t.Fatal("a connection left mid-statement stays open")
	}
	// The server stops sleeping: without the CancelRequest it would sleep
	// its ten minutes.
	for text(t, admin, `SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND query LIKE '%pg_sleep(600)%'`, pid) != "0" {
	}
	if _, err := c.Simple(t.Context(), "SELECT 1"); err == nil {
		t.Fatal("a closed connection ran a statement")
	}
}

// LISTEN/NOTIFY: a notification reaches WaitForNotification's
// connection; a context's end ends the wait and the connection.
func TestNotifications(t *testing.T) {
	u := pgtest.Database(t)
	l, n := mustConnect(t, u), mustConnect(t, u)
	got := make(chan *pgwire.Notification, 1)
	l.OnNotification = func(n *pgwire.Notification) { got <- n }
	simple(t, l, `LISTEN castor_test`)
	if _, err := n.Run(t.Context(), []pgwire.Statement{{SQL: `SELECT pg_notify('castor_test', $1)`, Args: [][]byte{[]byte("hello")}}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.WaitForNotification(t.Context()); err != nil {
		t.Fatal(err)
	}
	if nt := <-got; nt.Channel != "castor_test" || nt.Payload != "hello" || nt.PID != n.PID() {
		t.Fatalf("%+v", nt)
	}
	if l.IsClosed() {
		t.Fatal("closed after a notification")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := l.WaitForNotification(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait returned %v", err)
	}
	ctx, cancel = context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	l2 := mustConnect(t, u)
	if err := l2.WaitForNotification(ctx); !errors.Is(err, context.DeadlineExceeded) || !l2.IsClosed() {
		t.Fatalf("a wait past its deadline returned %v, closed %v", err, l2.IsClosed())
	}
}

// A unix socket: host names the socket's directory.
func TestUnixSocket(t *testing.T) {
	u := pgtest.Database(t)
	admin := mustConnect(t, u)
	dirs := text(t, admin, `SELECT current_setting('unix_socket_directories')`)
	port := text(t, admin, `SELECT current_setting('port')`)
	dir, _, _ := strings.Cut(dirs, ",")
	if dir == "" || !strings.HasPrefix(dir, "/") {
		t.Skipf("the server has no socket directory (%q)", dirs)
	}
	db := text(t, admin, `SELECT current_database()`)
	c := mustConnect(t, fmt.Sprintf("host=%s port=%s user=%s dbname=%s", dir, port, text(t, admin, `SELECT current_user`), db))
	if local := text(t, c, `SELECT (client_addr IS NULL)::text FROM pg_stat_activity WHERE pid = pg_backend_pid()`); local != "true" {
		t.Fatalf("connected over TCP, not the socket (%s)", local)
	}
	c = mustConnect(t, fmt.Sprintf("postgres://%s@%s:%s/%s", text(t, admin, `SELECT current_user`), url.PathEscape(dir), port, db))
	if got := text(t, c, `SELECT current_database()`); got != db {
		t.Fatal(got)
	}
}

// serverFiles is where the test server keeps its configuration, and who
// owns it, for files the server must read; it skips the test when the
// files are not this process's to change.
func serverFiles(t *testing.T, admin *pgwire.Conn) (hba string, uid, gid int) {
	t.Helper()
	hba = text(t, admin, `SELECT current_setting('hba_file')`)
	fi, err := os.Stat(hba)
	if err != nil {
		t.Skipf("the server's pg_hba.conf is not here: %v", err)
	}
	f, err := os.OpenFile(hba, os.O_RDWR, 0)
	if err != nil {
		t.Skipf("the server's pg_hba.conf is not writable here: %v", err)
	}
	f.Close()
	uid, gid = owner(fi)
	return hba, uid, gid
}

// reload has the server read its configuration again.
func reload(t *testing.T, admin *pgwire.Conn) {
	t.Helper()
	if text(t, admin, `SELECT pg_reload_conf()::text`) != "true" {
		t.Fatal("pg_reload_conf failed")
	}
}

// prependHBA puts lines before pg_hba.conf's old content, reloads the
// server, and puts old back at the end of the test. The reload is the
// postmaster's to do, so it waits until a login with a wrong password,
// through probe, fails: until then the roles log in on trust.
func prependHBA(t *testing.T, admin *pgwire.Conn, hba string, old []byte, lines, probe string) {
	t.Helper()
	if err := os.WriteFile(hba, append([]byte(lines), old...), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = os.WriteFile(hba, old, 0o600)
		_, _ = admin.Simple(context.Background(), `SELECT pg_reload_conf()`)
	})
	reload(t, admin)
	for {
		if _, err := connect(t, probe); err != nil {
			break
		}
	}
}

// Password authentication, each method the server may ask for: pg_hba.conf
// is given lines for roles of the test's own, MD5's role keeps an MD5
// hash, SCRAM's a password SASLprep changes (NFKC).
func TestPasswordAuth(t *testing.T) {
	u := pgtest.Database(t)
	admin := mustConnect(t, u)
	hba, _, _ := serverFiles(t, admin)
	old, err := os.ReadFile(hba)
	if err != nil {
		t.Fatal(err)
	}
	suffix := fmt.Sprint(os.Getpid())
	users := map[string][2]string{ // role: method, password
		"castor_clear_" + suffix: {"password", "clear pw"},
		"castor_md5_" + suffix:   {"md5", "md5 pw"},
		"castor_scram_" + suffix: {"scram-sha-256", "scram pw \u2168"},
	}
	var lines strings.Builder
	for role, m := range users {
		fmt.Fprintf(&lines, "host all %s 127.0.0.1/32 %s\n", role, m[0])
		enc := "scram-sha-256"
		if m[0] == "md5" {
			enc = "md5"
		}
		simple(t, admin, fmt.Sprintf(`SET password_encryption = '%s'; CREATE ROLE %s LOGIN PASSWORD '%s'`, enc, role, m[1]))
		t.Cleanup(func() { _, _ = admin.Simple(context.Background(), "DROP ROLE IF EXISTS "+role) })
	}
	prependHBA(t, admin, hba, old, lines.String(), withUser(t, u, "castor_md5_"+suffix, "wrong"))
	for role, m := range users {
		c, err := connect(t, withUser(t, u, role, m[1]))
		if err != nil {
			t.Errorf("%s: %v", m[0], err)
			continue
		}
		if got := text(t, c, `SELECT current_user`); got != role {
			t.Errorf("%s: logged in as %s", m[0], got)
		}
		_, err = connect(t, withUser(t, u, role, m[1]+"x"))
		var pe *pgwire.PgError
		if !errors.As(err, &pe) || pe.Code != "28P01" || !strings.Contains(err.Error(), "failed to connect to `user="+role) {
			t.Errorf("%s with a wrong password: %v", m[0], err)
		}
	}
	// The password from a pass file.
	pass := filepath.Join(t.TempDir(), "pgpass")
	role := "castor_scram_" + suffix
	if err := os.WriteFile(pass, []byte("*:*:*:"+role+":"+strings.ReplaceAll(users[role][1], ":", `\:`)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSFILE", pass)
	c := mustConnect(t, withUser(t, u, role, ""))
	if got := text(t, c, `SELECT current_user`); got != role {
		t.Fatalf("logged in as %s", got)
	}
}

// TLS by sslmode against the test server, given a certificate for
// 127.0.0.1 signed by a CA of the test's own.
func TestTLS(t *testing.T) {
	u := pgtest.Database(t)
	admin := mustConnect(t, u)
	hba, uid, gid := serverFiles(t, admin)
	dir := filepath.Dir(hba)
	ca, _ := newCert(t, nil, nil, "castor test CA")
	other, _ := newCert(t, nil, nil, "another CA")
	server, serverKey := newCert(t, ca, caKeys[ca], "127.0.0.1")
	files := map[string][]byte{
		"castor_test_server.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Raw}),
		"castor_test_server.key": serverKey,
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Skipf("cannot write the server's certificate: %v", err)
		}
		t.Cleanup(func() { os.Remove(p) })
		if err := os.Chown(p, uid, gid); uid >= 0 && err != nil {
			t.Skipf("cannot give the server its certificate: %v", err)
		}
	}
	caFile, otherFile := filepath.Join(t.TempDir(), "ca.pem"), filepath.Join(t.TempDir(), "other.pem")
	for p, c := range map[string]*x509.Certificate{caFile: ca, otherFile: other} {
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{
		`ALTER SYSTEM SET ssl_cert_file = '` + filepath.Join(dir, "castor_test_server.crt") + `'`,
		`ALTER SYSTEM SET ssl_key_file = '` + filepath.Join(dir, "castor_test_server.key") + `'`,
		`ALTER SYSTEM SET ssl = on`,
	} {
		simple(t, admin, s)
	}
	t.Cleanup(func() {
		for _, s := range []string{`ALTER SYSTEM RESET ssl`, `ALTER SYSTEM RESET ssl_cert_file`, `ALTER SYSTEM RESET ssl_key_file`, `SELECT pg_reload_conf()`} {
			_, _ = admin.Simple(context.Background(), s)
		}
	})
	reload(t, admin)
	require := withQuery(t, u, "sslmode=require")
	for {
		// Until the postmaster has reloaded, the server refuses TLS.
		if _, err := connect(t, require); err == nil {
			break
		}
	}
	ssl := func(c *pgwire.Conn) string {
		return text(t, c, `SELECT coalesce((SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()), 'none')`)
	}
	for _, c := range []struct {
		query string
		ok    bool
		ssl   string
	}{
		{"sslmode=disable", true, "false"},
		{"sslmode=allow", true, "false"},
		{"sslmode=prefer", true, "true"},
		{"", true, "true"},
		{"sslmode=require", true, "true"},
		{"sslmode=verify-ca&sslrootcert=" + url.QueryEscape(caFile), true, "true"},
		{"sslmode=verify-full&sslrootcert=" + url.QueryEscape(caFile), true, "true"},
		{"sslmode=require&sslrootcert=" + url.QueryEscape(otherFile), false, ""},
		{"sslmode=verify-ca&sslrootcert=" + url.QueryEscape(otherFile), false, ""},
		{"sslmode=verify-full&sslrootcert=" + url.QueryEscape(otherFile), false, ""},
		{"sslmode=verify-full", false, ""}, // the system's roots do not know the test's CA
	} {
		conn, err := connect(t, withQuery(t, u, c.query))
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		if err == nil {
			if got := ssl(conn); got != c.ssl {
				t.Errorf("%s: ssl %s, want %s", c.query, got, c.ssl)
			}
		}
	}
	// verify-full checks the name: the certificate is for 127.0.0.1,
	// not for the name localhost.
	if _, err := connect(t, strings.Replace(withQuery(t, u, "sslmode=verify-full&sslrootcert="+url.QueryEscape(caFile)), "127.0.0.1", "localhost", 1)); err == nil {
		t.Error("verify-full accepted a certificate for another name")
	}

	// SCRAM over TLS is bound to the server's certificate
	// (SCRAM-SHA-256-PLUS); channel_binding=require fails where it cannot
	// be: without TLS, or with a password the server asks for in clear.
	suffix := fmt.Sprint(os.Getpid())
	scramRole, clearRole := "castor_plus_"+suffix, "castor_tlsclear_"+suffix
	for _, r := range []string{scramRole, clearRole} {
		simple(t, admin, fmt.Sprintf(`SET password_encryption = 'scram-sha-256'; CREATE ROLE %s LOGIN PASSWORD 'bound pw'`, r))
		t.Cleanup(func() { _, _ = admin.Simple(context.Background(), "DROP ROLE IF EXISTS "+r) })
	}
	old, err := os.ReadFile(hba)
	if err != nil {
		t.Fatal(err)
	}
	lines := fmt.Sprintf("host all %s 127.0.0.1/32 scram-sha-256\nhost all %s 127.0.0.1/32 password\n", scramRole, clearRole)
	prependHBA(t, admin, hba, old, lines, withQuery(t, withUser(t, u, scramRole, "wrong"), "sslmode=require"))
	for _, c := range []struct {
		role, query string
		ok          bool
	}{
		{scramRole, "sslmode=require&channel_binding=require", true},
		{scramRole, "sslmode=require", true},
		{scramRole, "sslmode=require&channel_binding=disable", true},
		{scramRole, "sslmode=disable", true},
		{scramRole, "sslmode=disable&channel_binding=require", false},
		{clearRole, "sslmode=require", true},
		{clearRole, "sslmode=require&channel_binding=require", false},
	} {
		conn, err := connect(t, withQuery(t, withUser(t, u, c.role, "bound pw"), c.query))
		if (err == nil) != c.ok {
			t.Errorf("%s %s: %v", c.role, c.query, err)
			continue
		}
		if err == nil {
			if got := text(t, conn, `SELECT current_user`); got != c.role {
				t.Errorf("%s %s: logged in as %s", c.role, c.query, got)
			}
		} else if !strings.Contains(err.Error(), "channel_binding=require") {
			t.Errorf("%s %s: %v, want the binding named", c.role, c.query, err)
		}
	}
}

// newCert makes a certificate: a CA's, self-signed, when parent is nil;
// else a server's for the address name, signed by parent. It returns the
// certificate and its key (PEM).
func newCert(t *testing.T, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, name string) (*x509.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	signer, signerKey := tmpl, key
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage = x509.KeyUsageCertSign
	} else {
		tmpl.IPAddresses = []net.IP{net.ParseIP(name)}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil {
		caKeys[cert] = key
	}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

// caKeys keeps the CAs' keys for signing.
var caKeys = map[*x509.Certificate]*ecdsa.PrivateKey{}
