package pgwire

import (
	"bufio"
	"context"
	"crypto/md5"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// PgError is an error the server reported (an ErrorResponse), with its
// fields as the protocol names them.
type PgError struct {
	Severity            string
	SeverityUnlocalized string
	Code                string
	Message             string
	Detail              string
	Hint                string
	Position            int32
	InternalPosition    int32
	InternalQuery       string
	Where               string
	SchemaName          string
	TableName           string
	ColumnName          string
	DataTypeName        string
	ConstraintName      string
	File                string
	Line                int32
	Routine             string
}

// Error reads as pgconn's did: "ERROR: message (SQLSTATE code)".
func (e *PgError) Error() string {
	return e.Severity + ": " + e.Message + " (SQLSTATE " + e.Code + ")"
}

// CommandTag is what a statement reports when it completes: "INSERT 0 1",
// "UPDATE 3", "SELECT 2", "BEGIN".
type CommandTag string

// RowsAffected is the number a tag ends with (the rows a statement
// inserted, updated, deleted or returned), 0 when it has none.
func (t CommandTag) RowsAffected() int64 {
	s := string(t)
	i := strings.LastIndexByte(s, ' ')
	if i < 0 {
		return 0
	}
	n, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// String returns the tag.
func (t CommandTag) String() string { return string(t) }

// Conn is a connection to the server. It is not safe for concurrent use,
// but for a context's cancellation, which may come from anywhere.
type Conn struct {
	nc     net.Conn
	rd     reader
	wbuf   []byte
	target Target
	pid    uint32
	secret uint32
	tx     byte
	closed bool
	busy   bool
	// clean is set by an exchange that ended where a next one may start
	// (it read ReadyForQuery, or a notification while idle).
	clean  bool
	params map[string]string

	// stmts names the statements prepared on the connection, by SQL.
	stmts map[string]string

	// OnNotification, if set, is called with each notification, from
	// whichever call is reading when it arrives.
	OnNotification func(*Notification)
}

// connectError is a failed connection: to whom, and each target's error.
type connectError struct {
	user, database string
	errs           []error
}

func (e *connectError) Error() string {
	prefix := fmt.Sprintf("failed to connect to `user=%s database=%s`:", e.user, e.database)
	details := errors.Join(e.errs...).Error()
	if strings.Contains(details, "\n") {
		return prefix + "\n\t" + strings.ReplaceAll(details, "\n", "\n\t")
	}
	return prefix + " " + details
}

func (e *connectError) Unwrap() []error { return e.errs }

// targetError is one target's failure.
type targetError struct {
	address, host, what string
	err                 error
}

func (e *targetError) Error() string {
	return fmt.Sprintf("%s (%s): %s: %v", e.address, e.host, e.what, e.err)
}

func (e *targetError) Unwrap() error { return e.err }

// Connect connects to the first of cfg's targets that takes the
// connection. An authentication failure, an unknown database or a missing
// privilege ends the attempts, as with pgconn; other failures (the host
// is down, TLS refused) go on to the next target.
func Connect(ctx context.Context, cfg *Config) (*Conn, error) {
	var errs []error
	for _, t := range cfg.Targets {
		tctx, cancel := ctx, context.CancelFunc(func() {})
		if cfg.ConnectTimeout > 0 {
			tctx, cancel = context.WithTimeout(ctx, cfg.ConnectTimeout)
		}
		c, err := connectOne(tctx, cfg, t)
		cancel()
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		var pe *PgError
		if errors.As(err, &pe) && (pe.Code == "28P01" || pe.Code == "3D000" || pe.Code == "42501") {
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, &connectError{user: cfg.User, database: cfg.Database, errs: errs}
}

var dialer net.Dialer

func connectOne(ctx context.Context, cfg *Config, t Target) (*Conn, error) {
	network, address := t.Network()
	fail := func(what string, err error) error {
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w (%v)", context.Cause(ctx), err)
		}
		return &targetError{address: address, host: t.Host, what: what, err: err}
	}
	nc, err := dialer.DialContext(ctx, network, address)
	if err != nil {
		return nil, fail("dial error", err)
	}
	c := &Conn{nc: nc, target: t, params: map[string]string{}, stmts: map[string]string{}}
	// The whole startup is bounded by ctx: its end unblocks any read or
	// write by setting a deadline in the past.
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if t.TLS != nil {
		if err := c.startTLS(ctx, t.TLS); err != nil {
			nc.Close()
			return nil, fail("tls error", err)
		}
	}
	c.rd.r = bufio.NewReaderSize(c.nc, 8192)
	params := [][2]string{{"user", cfg.User}}
	if cfg.Database != "" {
		params = append(params, [2]string{"database", cfg.Database})
	}
	keys := make([]string, 0, len(cfg.RuntimeParams))
	for k := range cfg.RuntimeParams {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		params = append(params, [2]string{k, cfg.RuntimeParams[k]})
	}
	for _, p := range params {
		if strings.IndexByte(p[0], 0) >= 0 || strings.IndexByte(p[1], 0) >= 0 {
			nc.Close()
			return nil, fail("startup", fmt.Errorf("a NUL byte in %s", p[0]))
		}
	}
	if err := c.write(appendStartup(c.wbuf[:0], params)); err != nil {
		nc.Close()
		return nil, fail("failed to write startup message", err)
	}
	if err := c.startup(cfg); err != nil {
		nc.Close()
		var pe *PgError
		if errors.As(err, &pe) {
			return nil, fail("server error", err)
		}
		return nil, fail("startup", err)
	}
	if !stop() {
		nc.Close()
		return nil, fail("startup", context.Cause(ctx))
	}
	return c, nil
}

// startTLS asks the server for TLS (SSLRequest) and shakes hands.
func (c *Conn) startTLS(ctx context.Context, cfg *tls.Config) error {
	var req [8]byte
	binary.BigEndian.PutUint32(req[:], 8)
	binary.BigEndian.PutUint32(req[4:], sslRequest)
	if _, err := c.nc.Write(req[:]); err != nil {
		return err
	}
	var resp [1]byte
	if _, err := io.ReadFull(c.nc, resp[:]); err != nil {
		return err
	}
	if resp[0] != 'S' {
		return errors.New("server refused TLS connection")
	}
	tc := tls.Client(c.nc, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		return err
	}
	c.nc = tc
	return nil
}

// errUnboundPassword: channel_binding=require and a server asking for a
// plain or MD5 password, which cannot be bound to the channel.
var errUnboundPassword = errors.New("channel_binding=require, but the server asks for a password without channel binding (password or md5 in pg_hba.conf)")

// scramBinding chooses the SASL mechanism and SCRAM's channel binding for
// the mechanisms the server offers: bound to the TLS channel where the
// server offers SCRAM-SHA-256-PLUS and channel_binding is not "disable".
func (c *Conn) scramBinding(cfg *Config, offered []string) (mech, gs2 string, cbind []byte, err error) {
	tc, overTLS := c.nc.(*tls.Conn)
	if overTLS && cfg.ChannelBinding != "disable" && slices.Contains(offered, scramSHA256Plus) {
		if certs := tc.ConnectionState().PeerCertificates; len(certs) > 0 {
			return scramSHA256Plus, "p=tls-server-end-point,,", endPointHash(certs[0]), nil
		}
	}
	if cfg.ChannelBinding == "require" {
		return "", "", nil, fmt.Errorf("channel_binding=require, but the server offers no channel binding (SASL mechanisms %q; TLS %v)", offered, overTLS)
	}
	if !slices.Contains(offered, scramSHA256) {
		return "", "", nil, fmt.Errorf("the server offers SASL mechanisms %q, none Castor supports (%s)", offered, scramSHA256)
	}
	if overTLS && cfg.ChannelBinding != "disable" {
		return scramSHA256, "y,,", nil, nil
	}
	return scramSHA256, "n,,", nil, nil
}

// startup authenticates and reads the server's parameters up to its
// first ReadyForQuery.
func (c *Conn) startup(cfg *Config) error {
	var sc *scram
	authenticated := false
	for {
		t, body, err := c.rd.next()
		if err != nil {
			return err
		}
		switch t {
		case 'R':
			a, err := parseAuth(body)
			if err != nil {
				return err
			}
			switch a.kind {
			case authOK:
				if sc != nil && !sc.verified {
					return errors.New("the server accepted SCRAM authentication without proving it knows the password")
				}
				if cfg.ChannelBinding == "require" && (sc == nil || !sc.bound()) {
					return errors.New("channel_binding=require, but the server logged the client in without channel binding")
				}
				authenticated = true
			case authCleartext:
				if cfg.ChannelBinding == "require" {
					return errUnboundPassword
				}
				err = c.write(appendPassword(c.wbuf[:0], cfg.Password))
			case authMD5:
				if cfg.ChannelBinding == "require" {
					return errUnboundPassword
				}
				sum := md5.Sum([]byte(cfg.Password + cfg.User))
				sum = md5.Sum(append([]byte(hex.EncodeToString(sum[:])), a.data...))
				err = c.write(appendPassword(c.wbuf[:0], "md5"+hex.EncodeToString(sum[:])))
			case authSASL:
				mech, gs2, cbind, cerr := c.scramBinding(cfg, a.mechanisms)
				if cerr != nil {
					return cerr
				}
				if sc, err = newSCRAM("", cfg.Password, gs2, cbind); err != nil {
					return err
				}
				err = c.write(appendSASLInitial(c.wbuf[:0], mech, sc.first()))
			case authSASLContinue:
				if sc == nil {
					return errProtocol
				}
				var final []byte
				if final, err = sc.final(a.data); err != nil {
					return err
				}
				err = c.write(appendSASLResponse(c.wbuf[:0], final))
			case authSASLFinal:
				if sc == nil {
					return errProtocol
				}
				err = sc.verify(a.data)
			default:
				return fmt.Errorf("the server asks for an authentication Castor does not support (request %d: Kerberos, GSSAPI or SSPI)", a.kind)
			}
			if err != nil {
				return err
			}
		case 'K':
			if c.pid, c.secret, err = parseBackendKeyData(body); err != nil {
				return err
			}
		case 'Z':
			if !authenticated {
				return errors.New("received ReadyForQuery before AuthenticationOk")
			}
			c.tx, err = parseReadyForQuery(body)
			return err
		case 'E':
			pe, err := parseError(body)
			if err != nil {
				return err
			}
			return pe
		case 'S', 'N', 'v':
			if err := c.other(t, body); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%w: unexpected %q during startup", errProtocol, t)
		}
	}
}

// other handles the messages that may come at any time: a parameter's
// new value, a notice, a notification. Protocol negotiation ('v') is
// accepted as pgconn accepted it: the client asks for 3.0 and no options.
func (c *Conn) other(t byte, body []byte) error {
	switch t {
	case 'S':
		k, v, err := parseParameterStatus(body)
		if err != nil {
			return err
		}
		c.params[k] = v
	case 'N':
		_, err := parseError(body)
		return err
	case 'A':
		n, err := parseNotification(body)
		if err != nil {
			return err
		}
		if c.OnNotification != nil {
			c.OnNotification(n)
		}
	case 'v':
	default:
		return fmt.Errorf("%w: unexpected %q", errProtocol, t)
	}
	return nil
}

func (c *Conn) write(b []byte) error {
	c.wbuf = b
	_, err := c.nc.Write(b)
	if cap(c.wbuf) > 64<<10 {
		// A large batch's buffer is not kept for the connection's life.
		c.wbuf = nil
	}
	return err
}

// PID is the server process's id.
func (c *Conn) PID() uint32 { return c.pid }

// TxStatus is the transaction status the server last reported: 'I' idle,
// 'T' in a transaction, 'E' in a failed transaction.
func (c *Conn) TxStatus() byte { return c.tx }

// IsClosed reports whether the connection is closed: by Close, or by a
// call that failed in a way that left it unusable (a cancelled context,
// a broken socket, a FATAL error).
func (c *Conn) IsClosed() bool { return c.closed }

// IsBusy reports whether a call is under way.
func (c *Conn) IsBusy() bool { return c.busy }

// ParameterStatus is the server's value of a reported parameter
// (server_version, TimeZone, ...).
func (c *Conn) ParameterStatus(key string) string { return c.params[key] }

// Close says goodbye to the server (Terminate) and closes the socket,
// waiting no longer than ctx for the goodbye.
func (c *Conn) Close(ctx context.Context) error {
	if c.closed {
		return nil
	}
	c.closed = true
	if d, ok := ctx.Deadline(); ok {
		_ = c.nc.SetWriteDeadline(d)
	}
	_, _ = c.nc.Write(appendTerminate(nil))
	return c.nc.Close()
}

// errClosed is a call on a closed connection.
const errClosed = wireError("conn closed")

// call runs one exchange with the server (fn writes the request and reads
// up to ReadyForQuery) under ctx. When ctx ends first, the socket's
// deadline unblocks fn, a running query is cancelled (CancelRequest) and
// the connection is closed: it was left mid-exchange, and the pool must
// not hand it out again. A broken connection is closed too.
func (c *Conn) call(ctx context.Context, query bool, fn func() error) error {
	if c.closed {
		return errClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.busy, c.clean = true, false
	var fired atomic.Bool
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		fired.Store(true)
		_ = c.nc.SetDeadline(time.Unix(1, 0))
		close(done)
		if query {
			c.cancelRequest()
		}
	})
	err := fn()
	if !stop() {
		<-done
	}
	// A connection whose exchange ctx cut short is left mid-protocol; one
	// whose exchange ended just as ctx did may yet see its CancelRequest
	// land on the next statement. Neither is used again.
	if fired.Load() || (err != nil && !c.clean) {
		c.closed = true
		c.nc.Close()
		var pe *PgError
		if err != nil && fired.Load() && !errors.As(err, &pe) {
			err = context.Cause(ctx)
		}
	}
	c.busy = false
	return err
}

// cancelRequest asks the server, on a connection of its own, to cancel
// what the connection's process is running. A best effort: the
// connection is closed anyway.
func (c *Conn) cancelRequest() {
	network, address := c.target.Network()
	nc, err := net.DialTimeout(network, address, 5*time.Second)
	if err != nil {
		return
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	var req [16]byte
	binary.BigEndian.PutUint32(req[:], 16)
	binary.BigEndian.PutUint32(req[4:], cancelRequest)
	binary.BigEndian.PutUint32(req[8:], c.pid)
	binary.BigEndian.PutUint32(req[12:], c.secret)
	if _, err := nc.Write(req[:]); err != nil {
		return
	}
	// The server closes the connection once it has read the request.
	_, _ = nc.Read(req[:1])
}

// Simple runs SQL without parameters (one statement or several) as a
// simple query and returns the last statement's command tag; the first
// error ends it.
func (c *Conn) Simple(ctx context.Context, sql string) (CommandTag, error) {
	var tag CommandTag
	err := c.call(ctx, true, func() error {
		if err := c.write(appendQuery(c.wbuf[:0], sql)); err != nil {
			return err
		}
		var first error
		for {
			t, body, err := c.rd.next()
			if err != nil {
				return err
			}
			switch t {
			case 'C':
				if tag, err = parseCommandComplete(body); err != nil {
					return err
				}
			case 'T', 'D', 'I':
				// Rows are not read; an empty query has no tag.
			case 'E':
				if _, err := recordError(body, &first); err != nil {
					return err
				}
			case 'Z':
				if err := c.ready(body); err != nil {
					return err
				}
				return first
			default:
				if err := c.other(t, body); err != nil {
					return err
				}
			}
		}
	})
	return tag, err
}

// recordError reads an ErrorResponse of a query's exchange into first,
// which keeps the exchange's first error. The error returned ends the
// exchange at once: a body that does not parse, or a FATAL or PANIC
// error, after which the server ends the session.
func recordError(body []byte, first *error) (*PgError, error) {
	pe, err := parseError(body)
	if err != nil {
		return nil, err
	}
	if *first == nil {
		*first = pe
	}
	if pe.Severity == "FATAL" || pe.Severity == "PANIC" {
		return pe, pe
	}
	return pe, nil
}

// ready reads ReadyForQuery, the end of an exchange: the connection may
// start the next one.
func (c *Conn) ready(body []byte) error {
	tx, err := parseReadyForQuery(body)
	if err != nil {
		return err
	}
	c.tx, c.clean = tx, true
	return nil
}

// Ping checks that the server answers, with an empty query.
func (c *Conn) Ping(ctx context.Context) error {
	_, err := c.Simple(ctx, "-- ping")
	return err
}

// Statement is a statement to run with the extended protocol: its SQL and
// its parameters in text form (nil: NULL).
type Statement struct {
	SQL  string
	Args [][]byte
}

// stmtSeq names prepared statements, uniquely in the process.
var stmtSeq atomic.Int64

// Run runs statements with the extended protocol, pipelined up to one
// Sync: outside a transaction they run in one implicit transaction, the
// first error ending (and rolling back) them all. Each SQL is prepared
// (Parse) the first time the connection runs it, in the same round trip,
// and by name afterwards. row, if not nil, is called with each row's
// values, valid only during the call; its first error stops the calls and
// is returned once the statements are done. Run returns the last
// statement's command tag.
//
// A statement the server no longer finds fitting (0A000, cached plan
// changed; 26000, no such statement) fails, and every statement is
// prepared again at its next use.
func (c *Conn) Run(ctx context.Context, stmts []Statement, row func(values [][]byte) error) (CommandTag, error) {
	for _, s := range stmts {
		if len(s.Args) > 65535 {
			return "", fmt.Errorf("%d parameters, more than the protocol's 65535", len(s.Args))
		}
	}
	var tag CommandTag
	err := c.call(ctx, true, func() error {
		b := c.wbuf[:0]
		var parsing []string // the SQL of each Parse sent, in order
		names := make([]string, len(stmts))
		for i, s := range stmts {
			name, ok := c.stmts[s.SQL]
			if !ok {
				for j := range i {
					if stmts[j].SQL == s.SQL {
						name, ok = names[j], true
						break
					}
				}
			}
			if !ok {
				name = "castor_" + strconv.FormatInt(stmtSeq.Add(1), 10)
				b = appendParse(b, name, s.SQL)
				parsing = append(parsing, s.SQL)
			}
			names[i] = name
			b = appendExecute(appendBind(b, name, s.Args))
		}
		if err := c.write(appendSync(b)); err != nil {
			return err
		}
		var first, rowErr error
		var values [][]byte
		parsed := 0
		for {
			t, body, err := c.rd.next()
			if err != nil {
				return err
			}
			switch t {
			case '1':
				if parsed >= len(parsing) {
					return errProtocol
				}
				sql := parsing[parsed]
				for i := range stmts {
					if stmts[i].SQL == sql {
						c.stmts[sql] = names[i]
						break
					}
				}
				parsed++
			case '2', 'n', 't', 'T':
			case 'D':
				if values, err = parseDataRow(body, values); err != nil {
					return err
				}
				if row != nil && rowErr == nil && first == nil {
					rowErr = row(values)
				}
			case 'C':
				if tag, err = parseCommandComplete(body); err != nil {
					return err
				}
			case 'I':
				tag = ""
			case 'E':
				pe, err := recordError(body, &first)
				if pe != nil && (pe.Code == "0A000" || pe.Code == "26000") {
					clear(c.stmts)
				}
				if err != nil {
					return err
				}
			case 'Z':
				if err := c.ready(body); err != nil {
					return err
				}
				if first != nil {
					return first
				}
				return rowErr
			default:
				if err := c.other(t, body); err != nil {
					return err
				}
			}
		}
	})
	return tag, err
}

// WaitForNotification waits for a notification, which goes to
// OnNotification, or for ctx's end (the connection is then closed).
func (c *Conn) WaitForNotification(ctx context.Context) error {
	return c.call(ctx, false, func() error {
		for {
			t, body, err := c.rd.next()
			if err != nil {
				return err
			}
			switch t {
			case 'A':
				err := c.other(t, body)
				c.clean = err == nil
				return err
			case 'E':
				// Outside a query, the server's errors end the session.
				pe, err := parseError(body)
				if err != nil {
					return err
				}
				return pe
			default:
				if err := c.other(t, body); err != nil {
					return err
				}
			}
		}
	})
}
