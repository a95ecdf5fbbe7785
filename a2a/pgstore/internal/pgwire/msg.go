package pgwire

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
)

// The backend's messages are outside input: every parser here checks
// lengths before it reads, and a malformed message is an error that ends
// the connection, never a panic (FuzzParse).

// maxMessage bounds a backend message's length: a row of the store's is
// far smaller, and PostgreSQL's own limit for a field is 1 GB.
const maxMessage = 1<<30 + 1<<20

// wireError is an error of the client's own, a constant.
type wireError string

func (e wireError) Error() string { return string(e) }

// errProtocol is a message that breaks the protocol.
const errProtocol = wireError("malformed message from the server")

// reader reads backend messages from a buffered connection into a buffer
// it reuses: a message's body is valid until the next read.
type reader struct {
	r    *bufio.Reader
	body []byte
}

// next reads a message: its type and body.
func (r *reader) next() (byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r.r, head[:]); err != nil {
		return 0, nil, err
	}
	n := int64(binary.BigEndian.Uint32(head[1:])) - 4
	if n < 0 || n > maxMessage {
		return 0, nil, fmt.Errorf("%w: %q of length %d", errProtocol, head[0], n+4)
	}
	if int64(cap(r.body)) >= n {
		r.body = r.body[:n]
		if _, err := io.ReadFull(r.r, r.body); err != nil {
			return 0, nil, err
		}
		return head[0], r.body, nil
	}
	// A length is what the server says: the buffer grows with what
	// arrives, not at once to what a broken or hostile server claims.
	r.body = r.body[:0]
	for int64(len(r.body)) < n {
		chunk := min(n-int64(len(r.body)), 1<<20)
		at := len(r.body)
		r.body = append(r.body, make([]byte, chunk)...)
		if _, err := io.ReadFull(r.r, r.body[at:]); err != nil {
			return 0, nil, err
		}
	}
	return head[0], r.body, nil
}

// cursor reads a message body's fields; the first failure sticks.
type cursor struct {
	b   []byte
	bad bool
}

func (c *cursor) int32() int32 {
	if len(c.b) < 4 {
		c.bad = true
		return 0
	}
	v := int32(binary.BigEndian.Uint32(c.b))
	c.b = c.b[4:]
	return v
}

func (c *cursor) int16() int16 {
	if len(c.b) < 2 {
		c.bad = true
		return 0
	}
	v := int16(binary.BigEndian.Uint16(c.b))
	c.b = c.b[2:]
	return v
}

// cstring reads a NUL-terminated string.
func (c *cursor) cstring() string {
	for i, b := range c.b {
		if b == 0 {
			s := string(c.b[:i])
			c.b = c.b[i+1:]
			return s
		}
	}
	c.bad = true
	return ""
}

func (c *cursor) bytes(n int) []byte {
	if n < 0 || len(c.b) < n {
		c.bad = true
		return nil
	}
	v := c.b[:n]
	c.b = c.b[n:]
	return v
}

// parseDataRow splits a DataRow ('D') into its values, nil for NULL, into
// dst's storage; the values alias body.
func parseDataRow(body []byte, dst [][]byte) ([][]byte, error) {
	c := cursor{b: body}
	n := int(c.int16())
	if c.bad || n < 0 {
		return nil, errProtocol
	}
	dst = dst[:0]
	for range n {
		l := c.int32()
		if c.bad {
			return nil, errProtocol
		}
		if l == -1 {
			dst = append(dst, nil)
			continue
		}
		v := c.bytes(int(l))
		if c.bad {
			return nil, errProtocol
		}
		// Not nil: an empty value is not NULL.
		dst = append(dst, v[:len(v):len(v)])
	}
	if len(c.b) != 0 {
		return nil, errProtocol
	}
	return dst, nil
}

// parseError reads an ErrorResponse ('E') or NoticeResponse ('N'): fields
// of a code byte and a string, ended by a zero byte.
func parseError(body []byte) (*PgError, error) {
	c := cursor{b: body}
	e := &PgError{}
	for {
		if len(c.b) == 0 {
			return nil, errProtocol
		}
		code := c.b[0]
		c.b = c.b[1:]
		if code == 0 {
			break
		}
		v := c.cstring()
		if c.bad {
			return nil, errProtocol
		}
		switch code {
		case 'S':
			e.Severity = v
		case 'V':
			e.SeverityUnlocalized = v
		case 'C':
			e.Code = v
		case 'M':
			e.Message = v
		case 'D':
			e.Detail = v
		case 'H':
			e.Hint = v
		case 'P':
			e.Position = atoi32(v)
		case 'p':
			e.InternalPosition = atoi32(v)
		case 'q':
			e.InternalQuery = v
		case 'W':
			e.Where = v
		case 's':
			e.SchemaName = v
		case 't':
			e.TableName = v
		case 'c':
			e.ColumnName = v
		case 'd':
			e.DataTypeName = v
		case 'n':
			e.ConstraintName = v
		case 'F':
			e.File = v
		case 'L':
			e.Line = atoi32(v)
		case 'R':
			e.Routine = v
		}
	}
	return e, nil
}

func atoi32(s string) int32 {
	n, _ := strconv.ParseInt(s, 10, 32)
	return int32(n)
}

// Notification is a NOTIFY that reached a LISTENing connection.
type Notification struct {
	PID     uint32
	Channel string
	Payload string
}

// parseNotification reads a NotificationResponse ('A').
func parseNotification(body []byte) (*Notification, error) {
	c := cursor{b: body}
	n := &Notification{PID: uint32(c.int32())}
	n.Channel = c.cstring()
	n.Payload = c.cstring()
	if c.bad || len(c.b) != 0 {
		return nil, errProtocol
	}
	return n, nil
}

// parseParameterStatus reads a ParameterStatus ('S').
func parseParameterStatus(body []byte) (string, string, error) {
	c := cursor{b: body}
	k, v := c.cstring(), c.cstring()
	if c.bad || len(c.b) != 0 {
		return "", "", errProtocol
	}
	return k, v, nil
}

// parseCommandComplete reads a CommandComplete ('C'): the command's tag.
func parseCommandComplete(body []byte) (CommandTag, error) {
	c := cursor{b: body}
	t := c.cstring()
	if c.bad || len(c.b) != 0 {
		return "", errProtocol
	}
	return CommandTag(t), nil
}

// parseReadyForQuery reads a ReadyForQuery ('Z'): the transaction status,
// I (idle), T (in a transaction) or E (in a failed one).
func parseReadyForQuery(body []byte) (byte, error) {
	if len(body) != 1 || (body[0] != 'I' && body[0] != 'T' && body[0] != 'E') {
		return 0, errProtocol
	}
	return body[0], nil
}

// parseBackendKeyData reads a BackendKeyData ('K'): what a CancelRequest
// names.
func parseBackendKeyData(body []byte) (uint32, uint32, error) {
	c := cursor{b: body}
	pid, key := uint32(c.int32()), uint32(c.int32())
	if c.bad || len(c.b) != 0 {
		return 0, 0, errProtocol
	}
	return pid, key, nil
}

// auth is an Authentication request ('R').
type auth struct {
	kind int32
	// data: MD5's salt, SASL's continue and final data.
	data []byte
	// mechanisms: the SASL mechanisms the server offers.
	mechanisms []string
}

// The Authentication requests the client answers.
const (
	authOK           = 0
	authCleartext    = 3
	authMD5          = 5
	authSASL         = 10
	authSASLContinue = 11
	authSASLFinal    = 12
)

// parseAuth reads an Authentication request.
func parseAuth(body []byte) (*auth, error) {
	c := cursor{b: body}
	a := &auth{kind: c.int32()}
	if c.bad {
		return nil, errProtocol
	}
	switch a.kind {
	case authOK, authCleartext:
		if len(c.b) != 0 {
			return nil, errProtocol
		}
	case authMD5:
		if len(c.b) != 4 {
			return nil, errProtocol
		}
		a.data = c.b
	case authSASL:
		for {
			m := c.cstring()
			if c.bad {
				return nil, errProtocol
			}
			if m == "" {
				break
			}
			a.mechanisms = append(a.mechanisms, m)
		}
		if len(c.b) != 0 {
			return nil, errProtocol
		}
	case authSASLContinue, authSASLFinal:
		a.data = c.b
	}
	return a, nil
}

// The frontend's messages are appended to a buffer sent at once.

func appendInt32(b []byte, v int32) []byte {
	return binary.BigEndian.AppendUint32(b, uint32(v))
}

func appendInt16(b []byte, v int16) []byte {
	return binary.BigEndian.AppendUint16(b, uint16(v))
}

// begin starts a message of type t; finish fills in its length.
func begin(b []byte, t byte) ([]byte, int) {
	b = append(b, t)
	return append(b, 0, 0, 0, 0), len(b)
}

func finish(b []byte, at int) []byte {
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at))
	return b
}

func appendCString(b []byte, s string) []byte {
	return append(append(b, s...), 0)
}

// appendQuery appends a simple Query ('Q').
func appendQuery(b []byte, sql string) []byte {
	b, at := begin(b, 'Q')
	return finish(appendCString(b, sql), at)
}

// appendParse appends a Parse ('P') of a named statement, its parameters'
// types left to the server.
func appendParse(b []byte, name, sql string) []byte {
	b, at := begin(b, 'P')
	b = appendCString(appendCString(b, name), sql)
	return finish(appendInt16(b, 0), at)
}

// appendBind appends a Bind ('B') of the statement to the unnamed portal:
// parameters and results in text.
func appendBind(b []byte, stmt string, args [][]byte) []byte {
	b, at := begin(b, 'B')
	b = appendCString(appendCString(b, ""), stmt)
	b = appendInt16(b, 0)
	b = appendInt16(b, int16(len(args)))
	for _, a := range args {
		if a == nil {
			b = appendInt32(b, -1)
			continue
		}
		b = append(appendInt32(b, int32(len(a))), a...)
	}
	return finish(appendInt16(b, 0), at)
}

// appendExecute appends an Execute ('E') of the unnamed portal, all rows.
func appendExecute(b []byte) []byte {
	b, at := begin(b, 'E')
	return finish(appendInt32(appendCString(b, ""), 0), at)
}

func appendSync(b []byte) []byte {
	b, at := begin(b, 'S')
	return finish(b, at)
}

func appendTerminate(b []byte) []byte {
	b, at := begin(b, 'X')
	return finish(b, at)
}

// appendPassword appends a PasswordMessage ('p').
func appendPassword(b []byte, pw string) []byte {
	b, at := begin(b, 'p')
	return finish(appendCString(b, pw), at)
}

// appendSASLInitial appends a SASLInitialResponse ('p').
func appendSASLInitial(b []byte, mechanism string, data []byte) []byte {
	b, at := begin(b, 'p')
	b = appendInt32(appendCString(b, mechanism), int32(len(data)))
	return finish(append(b, data...), at)
}

// appendSASLResponse appends a SASLResponse ('p').
func appendSASLResponse(b []byte, data []byte) []byte {
	b, at := begin(b, 'p')
	return finish(append(b, data...), at)
}

// Protocol version 3.0, and the codes of the requests that take its
// place in a startup packet.
const (
	protocol30    = 3 << 16
	sslRequest    = 80877103
	cancelRequest = 80877102
)

// appendStartup appends the StartupMessage: no type byte, the length,
// the protocol version and the parameters.
func appendStartup(b []byte, params [][2]string) []byte {
	at := len(b)
	b = appendInt32(append(b, 0, 0, 0, 0), protocol30)
	for _, p := range params {
		b = appendCString(appendCString(b, p[0]), p[1])
	}
	b = append(b, 0)
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at))
	return b
}
