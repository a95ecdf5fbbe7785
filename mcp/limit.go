package mcp

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"mime"
	"net/http"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/tool"
)

// MaxMessageBytes bounds one JSON-RPC message read from a remote MCP
// server. Gemini CLI has no such bound: a 300 MB tool result took 3.8 GB
// of memory. A larger message never reaches the SDK: the text of its
// result is streamed to a file in the output folder and the call gets
// Gemini CLI's truncated output naming that file instead. 16 MiB leaves
// room for images and long documents, which the output limit cuts anyway.
const MaxMessageBytes = 16 << 20

// spooledKey is the _meta key that marks a result already cut by
// limitTransport, so the tool does not cut its notice again; the random
// suffix keeps a server from setting it.
var spooledKey = lazy.Value[string]{New: func() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "castor/spooled-" + hex.EncodeToString(b)
}}

// messageLimit is the bound on one message from a server, and where and
// how an oversized one's text is kept.
type messageLimit struct {
	max      int
	dir      string // where spooled outputs go
	server   string
	maxChars int // the model's share of a spooled output
}

// bound is the largest message kept whole (MaxMessageBytes when unset).
func (l *messageLimit) bound() int {
	if l.max > 0 {
		return l.max
	}
	return MaxMessageBytes
}

// limitTransport bounds the JSON-RPC messages of an MCP server's HTTP
// responses (a JSON body or the events of an SSE stream) while they are
// read, so that an oversized one is never held in memory.
type limitTransport struct {
	base http.RoundTripper
	messageLimit
}

func (t *limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "text/event-stream":
		resp.Body = &limitedBody{t: t, in: bufio.NewReaderSize(resp.Body, 64<<10), c: resp.Body, sse: true, lineBeg: true}
	case "application/json":
		resp.Body = &limitedBody{t: t, in: bufio.NewReaderSize(resp.Body, 64<<10), c: resp.Body}
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	return resp, err
}

// limitedBody passes messages up to t.max bytes through unchanged and
// replaces a larger one with a short message of its own (see spooler).
type limitedBody struct {
	t   *limitTransport
	in  *bufio.Reader
	c   io.Closer
	sse bool

	out     bytes.Buffer // ready for Read
	ev      []byte       // the message (SSE: event) read so far
	sp      *spooler     // set once ev passed the bound
	meta    []byte       // the SSE event's other fields, for the replacement
	lineBeg bool         // the next fragment starts a line (SSE)
	dataLn  bool         // the current SSE line is a data line
	done    bool
	err     error
}

func (b *limitedBody) Close() error {
	if b.sp != nil {
		b.sp.abort()
	}
	return b.c.Close()
}

func (b *limitedBody) Read(p []byte) (int, error) {
	for b.out.Len() == 0 && !b.done {
		b.step()
	}
	if b.out.Len() > 0 {
		return b.out.Read(p)
	}
	return 0, b.err
}

// step reads one fragment (a line, or 64 KiB of a longer one).
func (b *limitedBody) step() {
	frag, err := b.in.ReadSlice('\n')
	if len(frag) > 0 {
		if b.sse {
			b.sseFragment(frag)
		} else {
			b.add(frag, true)
		}
	}
	switch {
	case err == bufio.ErrBufferFull || err == nil:
		return
	case err == io.EOF:
		// The end of the body ends its message.
		b.end()
		b.done, b.err = true, io.EOF
	default:
		if b.sp != nil {
			b.sp.abort()
			b.sp = nil
		}
		b.out.Write(b.ev)
		b.ev = nil
		b.done, b.err = true, err
	}
}

// sseFragment handles a fragment of an SSE stream: a blank line ends the
// event; data lines are the message; other fields pass through.
func (b *limitedBody) sseFragment(frag []byte) {
	beg := b.lineBeg
	b.lineBeg = frag[len(frag)-1] == '\n'
	if beg {
		if len(bytes.TrimRight(frag, "\r\n")) == 0 && b.lineBeg {
			b.end()
			b.out.Write(frag)
			return
		}
		b.dataLn = bytes.HasPrefix(frag, []byte("data:"))
		if b.sp != nil && b.dataLn {
			frag = bytes.TrimPrefix(frag[len("data:"):], []byte(" "))
		}
	}
	if b.sp != nil && !b.dataLn {
		if len(b.meta) < 4096 {
			b.meta = append(b.meta, frag...)
		}
		return
	}
	b.add(frag, b.dataLn)
}

// add takes bytes of the current message; past the bound it turns to
// spooling.
func (b *limitedBody) add(frag []byte, data bool) {
	if b.sp != nil {
		b.sp.write(frag)
		return
	}
	b.ev = append(b.ev, frag...)
	if len(b.ev) <= b.t.bound() {
		return
	}
	b.sp = b.t.newSpooler()
	if !b.sse {
		b.sp.write(b.ev)
	} else {
		// Replay the event: its data to the spooler, the rest kept.
		for _, line := range bytes.SplitAfter(b.ev, []byte("\n")) {
			if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				b.sp.write(bytes.TrimPrefix(rest, []byte(" ")))
			} else if len(b.meta) < 4096 {
				b.meta = append(b.meta, line...)
			}
		}
	}
	b.ev = nil
}

// end finishes the current message: as read, or its replacement.
func (b *limitedBody) end() {
	if b.sp == nil {
		b.out.Write(b.ev)
		b.ev = nil
		return
	}
	msg := b.sp.finish()
	b.sp = nil
	if msg != nil {
		if b.sse {
			b.out.Write(b.meta)
			b.out.WriteString("data: ")
			b.out.Write(msg)
			b.out.WriteString("\n")
		} else {
			b.out.Write(msg)
		}
	}
	b.meta = nil
}

func (t *messageLimit) newSpooler() *spooler {
	// Named like a cut result of the tool (milliseconds and a random
	// number), so that runs do not overwrite each other's outputs.
	id := fmt.Sprintf("%s_%d_%d", t.server, time.Now().UnixMilli(), mrand.Uint32())
	out, err := tool.NewOutputSpool(t.dir, "mcp", id, t.maxChars)
	return &spooler{out: out, err: err, keyBuf: make([]byte, 0, 16), bound: t.bound()}
}

// spooler reads an oversized JSON-RPC message as it streams by, in
// constant memory: it follows the JSON's structure far enough to keep the
// message's top-level "id" and whether it is a result or an error, and
// writes the decoded value of every "text" string to the output spool.
type spooler struct {
	out   *tool.OutputSpool
	err   error
	bound int // the limit the message passed

	depth    int
	objects  []bool // per open container, whether it is an object (capped)
	deep     int    // containers open past the cap of objects
	inStr    bool
	esc      bool
	uni      []byte // the hex digits of a \u escape so far
	high     rune   // a high surrogate waiting for its pair
	isKey    bool   // the string being read is a key
	keyBuf   []byte // the key being read (capped)
	key      string // the last key read
	textStr  bool   // the string being read is a "text" value
	wantKey  bool   // the next string at this level is a key
	idRaw    []byte // the raw top-level id
	inID     bool
	topKeys  map[string]bool
	scratch  [utf8.UTFMax]byte
	bytes    int64
	textSeen bool
}

func (s *spooler) write(p []byte) {
	s.bytes += int64(len(p))
	for len(p) > 0 {
		if s.inStr && !s.esc && s.uni == nil && !s.inID {
			// The run up to the next quote or escape is plain string
			// content: taken at once.
			i := bytes.IndexAny(p, `"\`)
			if i < 0 {
				i = len(p)
			}
			if i > 0 {
				switch {
				case s.textStr:
					s.flushHigh()
					if s.out != nil {
						_, _ = s.out.Write(p[:i])
					}
				case s.isKey:
					s.keyBuf = append(s.keyBuf, p[:min(i, cap(s.keyBuf)-len(s.keyBuf))]...)
				}
				p = p[i:]
				continue
			}
		}
		s.byte(p[0])
		p = p[1:]
	}
}

func (s *spooler) byte(c byte) {
	if s.inID && len(s.idRaw) < 256 {
		if !s.inStr && s.depth == 1 && (c == ',' || c == '}') {
			s.inID = false
		} else {
			s.idRaw = append(s.idRaw, c)
		}
	}
	if s.inStr {
		s.strByte(c)
		return
	}
	switch c {
	case '"':
		s.inStr = true
		s.isKey = s.wantKey
		s.keyBuf = s.keyBuf[:0]
		s.textStr = !s.isKey && s.key == "text"
		if s.textStr {
			s.textSeen = true
		}
	case '{', '[':
		s.depth++
		if len(s.objects) < 1<<12 {
			s.objects = append(s.objects, c == '{')
		} else {
			s.deep++
		}
		s.wantKey = c == '{'
	case '}', ']':
		s.depth--
		if s.deep > 0 {
			s.deep--
		} else if len(s.objects) > 0 {
			s.objects = s.objects[:len(s.objects)-1]
		}
		s.wantKey = false
	case ',':
		// In an object a comma is followed by a key.
		s.wantKey = s.deep == 0 && len(s.objects) > 0 && s.objects[len(s.objects)-1]
	case ':':
		s.wantKey = false
		if s.depth == 1 {
			if s.topKeys == nil {
				s.topKeys = map[string]bool{}
			}
			s.topKeys[s.key] = true
			if s.key == "id" {
				s.inID, s.idRaw = true, s.idRaw[:0]
			}
		}
	}
}

func (s *spooler) strByte(c byte) {
	if s.isKey {
		if c == '"' && !s.esc {
			s.inStr = false
			s.key = string(s.keyBuf)
			return
		}
		s.esc = !s.esc && c == '\\'
		if len(s.keyBuf) < cap(s.keyBuf) {
			s.keyBuf = append(s.keyBuf, c)
		}
		return
	}
	if !s.textStr {
		if c == '"' && !s.esc {
			s.inStr = false
			s.key = ""
		}
		s.esc = !s.esc && c == '\\'
		return
	}
	switch {
	case s.uni != nil:
		s.uni = append(s.uni, c)
		if len(s.uni) == 4 {
			v, err := strconv.ParseUint(string(s.uni), 16, 16)
			s.uni = nil
			if err != nil {
				s.rune(utf8.RuneError)
				return
			}
			s.rune(rune(v))
		}
	case s.esc:
		s.esc = false
		switch c {
		case 'u':
			s.uni = make([]byte, 0, 4)
		case 'n':
			s.rune('\n')
		case 't':
			s.rune('\t')
		case 'r':
			s.rune('\r')
		case 'b':
			s.rune('\b')
		case 'f':
			s.rune('\f')
		default: // " \ /
			s.rune(rune(c))
		}
	case c == '\\':
		s.esc = true
	case c == '"':
		s.flushHigh()
		s.inStr, s.textStr, s.key = false, false, ""
	default:
		s.flushHigh()
		s.emit(rune(c))
	}
}

// rune writes a decoded escape, pairing surrogates.
func (s *spooler) rune(r rune) {
	if s.high != 0 {
		h := s.high
		s.high = 0
		if utf16.IsSurrogate(r) {
			s.emit(utf16.DecodeRune(h, r))
			return
		}
		s.emit(utf8.RuneError)
	}
	if r >= 0xD800 && r < 0xDC00 {
		s.high = r
		return
	}
	if utf16.IsSurrogate(r) {
		r = utf8.RuneError
	}
	s.emit(r)
}

func (s *spooler) flushHigh() {
	if s.high != 0 {
		s.high = 0
		s.emit(utf8.RuneError)
	}
}

func (s *spooler) emit(r rune) {
	if s.out != nil {
		_, _ = s.out.Write(utf8.AppendRune(s.scratch[:0], r))
	}
}

func (s *spooler) abort() {
	if s.out != nil {
		_ = s.out.Close()
	}
}

// finish closes the spool and returns the message that stands in for the
// oversized one: a result whose one text is the truncated output, or an
// error for an oversized error; nil (the message is dropped) for a
// request or notification, or a message whose id was not found.
func (s *spooler) finish() []byte {
	var notice string
	switch {
	case s.err != nil:
		notice = fmt.Sprintf("The result (%d bytes) was too large to keep (over %d bytes) and could not be saved: %v", s.bytes, s.bound, s.err)
	default:
		if err := s.out.Close(); err != nil && s.err == nil {
			s.err = err
		}
		notice = s.out.Notice()
		if !s.textSeen {
			notice = fmt.Sprintf("The result (%d bytes) was too large to keep (over %d bytes) and held no text.", s.bytes, s.bound)
		}
	}
	id := bytes.TrimSpace(s.idRaw)
	if len(id) == 0 || !json.Valid(id) || s.topKeys["method"] {
		return nil
	}
	var v any
	if s.topKeys["error"] {
		v = map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "error": map[string]any{"code": -32603, "message": notice}}
	} else {
		v = map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "result": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": notice}},
			"_meta":   map[string]any{spooledKey.Get(): true},
		}}
	}
	b, _ := json.Marshal(v)
	return b
}

// spooled reports whether a result is limitTransport's stand-in, already
// cut to the model's share.
func spooled(meta map[string]any) bool {
	v, ok := meta[spooledKey.Get()].(bool)
	return ok && v
}
