package pgwire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// msg is a backend message: its type, length and body.
func msg(t byte, body ...[]byte) []byte {
	b, at := begin(nil, t)
	for _, p := range body {
		b = append(b, p...)
	}
	return finish(b, at)
}

func cstr(s string) []byte { return append([]byte(s), 0) }

func i32(v int32) []byte { return appendInt32(nil, v) }

func i16(v int16) []byte { return appendInt16(nil, v) }

// fakeConn is a server that answers with canned bytes whatever it is
// sent, and records what it was sent.
type fakeConn struct {
	net.Conn
	in  *bytes.Reader
	out bytes.Buffer
}

func (f *fakeConn) Read(b []byte) (int, error)        { return f.in.Read(b) }
func (f *fakeConn) Write(b []byte) (int, error)       { return f.out.Write(b) }
func (f *fakeConn) Close() error                      { return nil }
func (f *fakeConn) SetDeadline(time.Time) error       { return nil }
func (f *fakeConn) SetWriteDeadline(time.Time) error  { return nil }
func (f *fakeConn) RemoteAddr() net.Addr              { return &net.TCPAddr{} }
func (f *fakeConn) LocalAddr() net.Addr               { return &net.TCPAddr{} }
func (f *fakeConn) SetReadDeadline(t time.Time) error { return nil }
func fakeServer(script []byte) (*Conn, *fakeConn) {
	f := &fakeConn{in: bytes.NewReader(script)}
	c := &Conn{nc: f, params: map[string]string{}, stmts: map[string]string{}}
	c.rd.r = bufio.NewReader(f)
	return c, f
}

func TestParseDataRow(t *testing.T) {
	body := append(i16(3), i32(-1)...)
	body = append(append(body, i32(0)...), append(i32(2), "ab"...)...)
	got, err := parseDataRow(body, nil)
	if err != nil || len(got) != 3 || got[0] != nil || got[1] == nil || len(got[1]) != 0 || string(got[2]) != "ab" {
		t.Fatalf("%q, %v: want NULL, empty and ab", got, err)
	}
	for _, bad := range [][]byte{nil, i16(-1), i16(1), append(i16(1), i32(5)...), append(body, 0)} {
		if _, err := parseDataRow(bad, nil); err == nil {
			t.Errorf("%x parsed", bad)
		}
	}
}

func TestParseError(t *testing.T) {
	body := bytes.Join([][]byte{{'S'}, cstr("ERROR"), {'C'}, cstr("23505"), {'M'}, cstr("duplicate key"), {'D'}, cstr("Key (id)=(1) exists."),
		{'n'}, cstr("t_pkey"), {'P'}, cstr("12"), {'Z'}, cstr("unknown fields are skipped"), {0}}, nil)
	e, err := parseError(body)
	if err != nil {
		t.Fatal(err)
	}
	want := PgError{Severity: "ERROR", Code: "23505", Message: "duplicate key", Detail: "Key (id)=(1) exists.", ConstraintName: "t_pkey", Position: 12}
	if *e != want {
		t.Fatalf("%+v, want %+v", *e, want)
	}
	if e.Error() != "ERROR: duplicate key (SQLSTATE 23505)" {
		t.Fatalf("Error() = %q, as pgconn wrote it", e.Error())
	}
	for _, bad := range [][]byte{nil, {'S'}, []byte("Sx"), body[:len(body)-1]} {
		if _, err := parseError(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestCommandTag(t *testing.T) {
	for tag, n := range map[CommandTag]int64{"INSERT 0 5": 5, "UPDATE 3": 3, "DELETE 0": 0, "SELECT 12": 12, "BEGIN": 0, "": 0, "CREATE TABLE": 0} {
		if got := tag.RowsAffected(); got != n {
			t.Errorf("%q: %d rows, want %d", tag, got, n)
		}
	}
}

// Run pipelines the statements it has not prepared (Parse) with their
// Bind and Execute, and remembers a statement once the server parsed it.
func TestRunPrepares(t *testing.T) {
	script := bytes.Join([][]byte{
		msg('1'), msg('2'), msg('D', i16(1), i32(1), []byte("7")), msg('C', cstr("SELECT 1")),
		msg('2'), msg('C', cstr("INSERT 0 1")),
		msg('Z', []byte("I")),
	}, nil)
	c, f := fakeServer(script)
	var rows []string
	tag, err := c.Run(context.Background(), []Statement{{SQL: "SELECT $1", Args: [][]byte{[]byte("7")}}, {SQL: "SELECT $1", Args: [][]byte{nil}}}, func(v [][]byte) error {
		rows = append(rows, string(v[0]))
		return nil
	})
	if err != nil || tag != "INSERT 0 1" || len(rows) != 1 || rows[0] != "7" {
		t.Fatalf("tag %q, rows %q, %v", tag, rows, err)
	}
	sent := f.out.Bytes()
	if n := bytes.Count(sent, []byte("SELECT $1\x00")); n != 1 {
		t.Fatalf("the statement was parsed %d times in one batch, want 1: %q", n, sent)
	}
	if c.stmts["SELECT $1"] == "" || c.IsClosed() || c.TxStatus() != 'I' {
		t.Fatalf("statements %v, closed %v, tx %c", c.stmts, c.IsClosed(), c.TxStatus())
	}
	// Prepared, it is bound by name: no Parse.
	f.in = bytes.NewReader(bytes.Join([][]byte{msg('2'), msg('C', cstr("SELECT 0")), msg('Z', []byte("T"))}, nil))
	f.out.Reset()
	if _, err := c.Run(context.Background(), []Statement{{SQL: "SELECT $1"}}, nil); err != nil {
		t.Fatal(err)
	}
	if f.out.Bytes()[0] != 'B' || c.TxStatus() != 'T' {
		t.Fatalf("sent %q, tx %c: want a Bind first", f.out.Bytes(), c.TxStatus())
	}
	// 0A000 forgets every prepared statement; the connection stays.
	f.in = bytes.NewReader(bytes.Join([][]byte{msg('E', []byte("SERROR\x00C0A000\x00Mcached plan must not change result type\x00\x00")), msg('Z', []byte("I"))}, nil))
	_, err = c.Run(context.Background(), []Statement{{SQL: "SELECT $1"}}, nil)
	var pe *PgError
	if !errors.As(err, &pe) || pe.Code != "0A000" || len(c.stmts) != 0 || c.IsClosed() {
		t.Fatalf("%v; statements %v, closed %v", err, c.stmts, c.IsClosed())
	}
}

// A connection whose exchange broke off (the server went away, or sent
// what the protocol does not allow) is closed; one that read a whole
// error response up to ReadyForQuery is not.
func TestBrokenExchangeCloses(t *testing.T) {
	for name, script := range map[string][]byte{
		"eof":        msg('C', cstr("SELECT 1")),
		"unexpected": msg('G', i16(0)),
		"fatal":      msg('E', []byte("SFATAL\x00C57P01\x00Mterminating connection\x00\x00")),
		"bad length": {'Z', 0, 0, 0, 1},
	} {
		c, _ := fakeServer(script)
		if _, err := c.Simple(context.Background(), "SELECT 1"); err == nil || !c.IsClosed() {
			t.Errorf("%s: %v, closed %v", name, err, c.IsClosed())
		}
		if _, err := c.Simple(context.Background(), "SELECT 1"); err != errClosed {
			t.Errorf("%s: a call on the closed connection: %v", name, err)
		}
	}
	c, _ := fakeServer(append(msg('E', []byte("SERROR\x00C42601\x00Msyntax error\x00\x00")), msg('Z', []byte("I"))...))
	if _, err := c.Simple(context.Background(), "SELEC"); err == nil || c.IsClosed() {
		t.Fatalf("%v, closed %v", err, c.IsClosed())
	}
}

// The startup exchange: cleartext and MD5 passwords, parameters, the
// cancel key.
func TestStartupPasswords(t *testing.T) {
	ready := bytes.Join([][]byte{msg('R', i32(authOK)), msg('S', cstr("server_version"), cstr("15.0")), msg('K', i32(42), i32(7)), msg('Z', []byte("I"))}, nil)
	cfg := &Config{User: "md5_user", Password: "password"}
	c, f := fakeServer(append(msg('R', i32(authMD5), []byte{1, 2, 3, 4}), ready...))
	if err := c.startup(cfg); err != nil {
		t.Fatal(err)
	}
	// md5(md5(password + user) + salt), as PostgreSQL's docs give it.
	if want := msg('p', cstr("md580a32c6f038b79de232354a2ee7060eb")); !bytes.Equal(f.out.Bytes(), want) {
		t.Fatalf("sent %q", f.out.Bytes())
	}
	if c.PID() != 42 || c.secret != 7 || c.ParameterStatus("server_version") != "15.0" {
		t.Fatalf("pid %d, key %d, params %v", c.PID(), c.secret, c.params)
	}
	c, f = fakeServer(append(msg('R', i32(authCleartext)), ready...))
	if err := c.startup(cfg); err != nil || !bytes.Equal(f.out.Bytes(), msg('p', cstr("password"))) {
		t.Fatalf("sent %q, %v", f.out.Bytes(), err)
	}
	for name, script := range map[string][]byte{
		"gss":           msg('R', i32(7)),
		"no auth":       msg('Z', []byte("I")),
		"sasl no scram": msg('R', i32(authSASL), cstr("OAUTHBEARER"), []byte{0}),
		"unverified":    append(msg('R', i32(authSASL), cstr(scramSHA256), []byte{0}), ready...),
		"error":         msg('E', []byte("SFATAL\x00C28P01\x00Mpassword authentication failed\x00\x00")),
	} {
		c, _ := fakeServer(script)
		if err := c.startup(cfg); err == nil {
			t.Errorf("%s: the startup succeeded", name)
		}
	}
}

// FuzzExchange feeds arbitrary bytes to the client as the server's
// answers, to the startup and to each kind of call: whatever they hold,
// the client returns (an error or a result) and does not panic.
func FuzzExchange(f *testing.F) {
	f.Add(bytes.Join([][]byte{msg('R', i32(authOK)), msg('K', i32(1), i32(2)), msg('Z', []byte("I"))}, nil))
	f.Add(bytes.Join([][]byte{msg('1'), msg('2'), msg('D', i16(2), i32(-1), i32(1), []byte("x")), msg('C', cstr("SELECT 1")), msg('Z', []byte("I"))}, nil))
	f.Add(bytes.Join([][]byte{msg('E', []byte("SERROR\x00C0A000\x00Mx\x00\x00")), msg('Z', []byte("E"))}, nil))
	f.Add(bytes.Join([][]byte{msg('A', i32(9), cstr("castor_task"), cstr("t1")), msg('N', []byte("SNOTICE\x00\x00")), msg('S', cstr("a"), cstr("b"))}, nil))
	f.Add(bytes.Join([][]byte{msg('R', i32(authSASL), cstr(scramSHA256), []byte{0}), msg('R', i32(authSASLContinue), []byte("r=abc,s=c2FsdA==,i=1"))}, nil))
	f.Add(msg('R', i32(authMD5), []byte{1, 2, 3, 4}))
	// A count the server may give, but not one a fuzzer should wait for.
	maxIterations = 1000
	f.Fuzz(func(t *testing.T, script []byte) {
		cfg := &Config{User: "u", Password: "p"}
		c, _ := fakeServer(script)
		_ = c.startup(cfg)
		c, _ = fakeServer(script)
		_, _ = c.Simple(context.Background(), "SELECT 1")
		c, _ = fakeServer(script)
		_, _ = c.Run(context.Background(), []Statement{{SQL: "a"}, {SQL: "b", Args: [][]byte{nil, {}}}}, func([][]byte) error { return nil })
		c, _ = fakeServer(script)
		c.OnNotification = func(*Notification) {}
		_ = c.WaitForNotification(context.Background())
		// Each parser on its own, on the whole input as a body.
		_, _ = parseDataRow(script, nil)
		_, _ = parseError(script)
		_, _ = parseNotification(script)
		_, _, _ = parseParameterStatus(script)
		_, _ = parseCommandComplete(script)
		_, _ = parseReadyForQuery(script)
		_, _, _ = parseBackendKeyData(script)
		_, _ = parseAuth(script)
		sc := newSCRAMNonce("", "pencil", "abc")
		sc.first()
		if _, err := sc.final(script); err == nil {
			_ = sc.verify(script)
		}
	})
}

var _ io.Reader = (*fakeConn)(nil)
