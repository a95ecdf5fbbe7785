// Package termtext makes untrusted text safe to print on a terminal.
//
// Model replies, tool output and server messages can carry terminal control
// sequences: an injected reply could retitle the terminal (OSC 0), write
// the clipboard (OSC 52), move the cursor over earlier text or hide text
// with colours. The sanitiser removes every C0 and C1 control character and
// every escape sequence (CSI, OSC, DCS, APC, PM, SOS, two-byte ESC
// sequences, and their 8-bit C1 forms such as U+009B) and keeps the text.
//
// A string sequence (OSC, DCS, APC, PM, SOS) ends at its terminator or at
// the end of its line, whichever comes first, so that a stray OSC cannot
// hide the rest of a reply.
//
// What stays: printable characters, newline, tab, and a carriage return
// only when a newline follows it (CRLF line ends). A lone carriage return
// is dropped because it lets later text overwrite a line on screen, which
// hides what was really written; Gemini CLI's sanitiser keeps it. DEL is
// dropped too. Invalid UTF-8 bytes become U+FFFD, so the output is always
// valid UTF-8.
//
// Invisible characters that change how text reads without showing
// themselves (Trojan Source, CVE-2021-42574) go too: the bidirectional
// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the
// zero-width and direction marks (U+200B–U+200F), the invisible operators
// (U+2060–U+2064), U+FEFF, and the tag characters (U+E0000–U+E007F),
// an invisible copy of ASCII that hides instructions in text a model
// reads and a user does not see (it costs the rare subdivision flags,
// shown as a black flag). String drops them from prose, as current
// Gemini CLI does, except the zero-width joiner (U+200D) that emoji
// sequences need; Visible, for text a user decides on (a command to
// approve, a file name, a diff, tool output), shows every one of them as
// <U+XXXX>, so that what is approved is what is seen.
//
// Text without anything to remove is returned as is, without allocating.
package termtext

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// Control characters the parser reacts to.
const (
	bel = 0x07
	can = 0x18 // cancels a sequence in progress
	sub = 0x1a // cancels a sequence in progress
	esc = 0x1b
	del = 0x7f
	// invalid stands for a byte that is not part of valid UTF-8.
	invalid = -1
)

// state is where the parser is in an escape sequence.
type state uint8

const (
	ground    state = iota // plain text
	escape                 // after ESC
	escInter               // ESC followed by intermediate bytes (0x20–0x2F)
	csi                    // control sequence: parameters until a final byte
	str                    // OSC, DCS, APC, PM or SOS body, until ST, BEL or a line end
	strEscape              // ESC inside a string body: ST when '\' follows
)

type text interface{ ~string | ~[]byte }

// String returns s without control characters and escape sequences. An
// escape sequence left unfinished at the end of s is dropped.
func String(s string) string { return clean(s, false) }

// Visible is String for text a user decides on: the invisible characters
// (see the package documentation) are shown as <U+XXXX> instead of dropped,
// the zero-width joiner included.
func Visible(s string) string { return clean(s, true) }

func clean(s string, show bool) string {
	p := cleanPrefix(s, show)
	if p == len(s) {
		return s
	}
	z := Stream{show: show}
	out := make([]byte, p, len(s))
	copy(out, s[:p])
	out = feed(&z, out, s[p:], true)
	return string(out)
}

// Stream sanitises text that arrives in pieces, such as streamed model
// output: an escape sequence split across pieces is removed whole. The
// zero value is ready to use.
type Stream struct {
	st state
	// held is the end of the last piece that could not be decided yet: a
	// carriage return (kept only before a newline) or the first bytes of
	// a multi-byte character. It is never more than three bytes.
	held []byte
	// show makes invisible characters visible rather than dropping them.
	show bool
}

// Clean returns the sanitised text of the next piece. It may hold back up
// to three bytes until the next piece or Flush.
func (z *Stream) Clean(s string) string {
	if z.st == ground && len(z.held) == 0 {
		p := cleanPrefix(s, z.show)
		if p == len(s) {
			return s
		}
		out := make([]byte, p, len(s))
		copy(out, s[:p])
		return string(feed(z, out, s[p:], false))
	}
	if len(z.held) > 0 {
		s = string(z.held) + s
		z.held = z.held[:0]
	}
	return string(feed(z, make([]byte, 0, len(s)), s, false))
}

// Flush ends the text: it returns what was held back, sanitised, and
// resets the stream so that an unfinished escape sequence does not swallow
// the text of the next piece.
func (z *Stream) Flush() string { return string(z.flush(nil)) }

func (z *Stream) flush(dst []byte) []byte {
	held := z.held
	z.held = nil
	dst = feed(z, dst, held, true)
	z.st = ground
	return dst
}

// Bytes is String for a byte slice: p itself when nothing needs removing.
func Bytes(p []byte) []byte {
	n := cleanPrefix(p, false)
	if n == len(p) {
		return p
	}
	var z Stream
	out := make([]byte, n, len(p))
	copy(out, p[:n])
	return feed(&z, out, p[n:], true)
}

// Writer cleans each write on its own, as String does, before passing it
// on. It suits writers of whole messages, such as fmt.Fprintf of an error
// line: a sequence a message leaves unfinished cannot swallow the next
// message. It keeps no state, so it is as safe for concurrent use as the
// writer it wraps. For text that arrives in pieces, use a Stream.
type Writer struct {
	w io.Writer
}

// NewWriter returns a Writer that writes cleaned text to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write cleans p and writes the result. It reports len(p) on success,
// since every byte was consumed even when it was removed.
func (w *Writer) Write(p []byte) (int, error) {
	if _, err := w.w.Write(Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// cleanPrefix returns the length of the longest prefix of s that needs no
// change, scanning bytes so that clean ASCII costs one comparison or two
// per byte.
func cleanPrefix[T text](s T, show bool) int {
	for i := 0; i < len(s); {
		// Eight bytes at a time while they are all printable ASCII.
		for i+8 <= len(s) && printable8(load8(s[i:])) {
			i += 8
		}
		if i == len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= ' ' && b != del || b == '\n' || b == '\t' {
				i++
				continue
			}
			if b == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i += 2
				continue
			}
			return i
		}
		r, n := decode(s[i:])
		if r == utf8.RuneError && n == 1 || isC1(r) || invisible(r, show) {
			return i
		}
		i += n
	}
	return len(s)
}

// Words of eight bytes, for printable8.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// printable8 reports whether every byte of x is in 0x20–0x7E: no high bit,
// no byte below 0x20, no byte equal to 0x7F (DEL).
func printable8(x uint64) bool {
	y := x ^ (del * ones) // a DEL byte becomes zero
	return (x|(x-' '*ones)&^x|(y-ones)&^y)&highs == 0
}

// load8 reads s[0:8] as a little-endian word; the compiler turns it into one
// load.
func load8[T text](s T) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// invisible reports whether r is one of the characters that change how
// text reads without showing themselves; the zero-width joiner counts only
// when show is set, since prose needs it for emoji.
func invisible(r rune, show bool) bool {
	switch {
	case r < 0x200b:
		return false
	case r <= 0x200f:
		return r != 0x200d || show
	case r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2064, r >= 0x2066 && r <= 0x2069, r == 0xfeff,
		r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}

// decode decodes the first character of s; the conversion of at most four
// bytes does not allocate.
func decode[T text](s T) (rune, int) {
	return utf8.DecodeRuneInString(string(s[:min(len(s), utf8.UTFMax)]))
}

func fullRune[T text](s T) bool {
	return utf8.FullRuneInString(string(s[:min(len(s), utf8.UTFMax)]))
}

// feed runs the parser over s from z's state and appends the text to keep
// to dst. Unless final, an undecidable end of s is held in z.held.
func feed[T text](z *Stream, dst []byte, s T, final bool) []byte {
	for i := 0; i < len(s); {
		if z.st == ground {
			if p := cleanPrefix(s[i:], z.show); p > 0 {
				dst = append(dst, s[i:i+p]...)
				i += p
				continue
			}
		}
		r, n := rune(s[i]), 1
		if s[i] >= utf8.RuneSelf {
			if !final && !fullRune(s[i:]) {
				z.held = append(z.held[:0], s[i:]...)
				return dst
			}
			r, n = decode(s[i:])
			if r == utf8.RuneError && n == 1 {
				r = invalid
			}
		}
		switch z.st {
		case ground:
			switch {
			case r == '\n' || r == '\t':
				dst = append(dst, byte(r))
			case r == '\r':
				if i+1 == len(s) && !final {
					z.held = append(z.held[:0], '\r')
					return dst
				}
				if i+1 < len(s) && s[i+1] == '\n' {
					dst = append(dst, '\r')
				}
			case r == esc:
				z.st = escape
			case r == invalid:
				dst = append(dst, "\uFFFD"...)
			case r >= 0 && r < ' ' || r == del:
				// Other C0 controls are dropped.
			case isC1(r):
				// The 8-bit forms of the sequence introducers start a
				// sequence as their ESC forms do; other C1 controls
				// (including a stray ST) are dropped.
				switch r {
				case 0x9b:
					z.st = csi
				case 0x90, 0x98, 0x9d, 0x9e, 0x9f: // DCS, SOS, OSC, PM, APC
					z.st = str
				}
			case invisible(r, z.show):
				if z.show {
					dst = fmt.Appendf(dst, "<U+%04X>", r)
				}
			default:
				dst = append(dst, s[i:i+n]...)
			}
		case escape:
			switch {
			case r == '[':
				z.st = csi
			case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
				z.st = str
			case r >= 0x20 && r <= 0x2f:
				z.st = escInter
			case r >= 0x30 && r <= 0x7e:
				z.st = ground // a two-byte sequence such as ESC 7 or ESC c
			case r == esc:
				// The first ESC stands alone; the second starts anew.
			case r == can || r == sub:
				z.st = ground
			default:
				// Not a sequence: the ESC alone is dropped and the
				// character is taken as text.
				z.st = ground
				continue
			}
		case escInter:
			switch {
			case r >= 0x20 && r <= 0x2f:
			case r >= 0x30 && r <= 0x7e:
				z.st = ground
			default:
				z.st = ground
				continue
			}
		case csi:
			switch {
			case r >= 0x20 && r <= 0x3f:
			case r >= 0x40 && r <= 0x7e:
				z.st = ground
			default:
				// A malformed sequence ends here; what follows is text
				// again, which shows more rather than less.
				z.st = ground
				continue
			}
		case str:
			switch r {
			case bel, can, sub, 0x9c:
				z.st = ground
			case esc:
				z.st = strEscape
			case '\n':
				// Terminals would go on swallowing text, but real
				// strings hold no line break: ending one here keeps a
				// stray OSC from hiding all the text after it.
				z.st = ground
				continue
			}
		case strEscape:
			if r != '\\' {
				// The ESC ended the string and starts a new sequence.
				z.st = escape
				continue
			}
			z.st = ground
		}
		i += n
	}
	return dst
}
