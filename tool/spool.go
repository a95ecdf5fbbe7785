package tool

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// OutputSpool takes an output too large to hold in memory as it arrives:
// every byte goes to a file under <tempDir>/tool-outputs, and only the
// start and the end the model will see stay in memory. Notice then gives
// the model Gemini CLI's truncated form, as LimitOutput does for an output
// held whole. The zero value is not usable; see NewOutputSpool.
type OutputSpool struct {
	path     string
	f        *os.File
	w        *bufio.Writer
	err      error
	maxChars int
	// head holds the first bytes, tail the last ones (a ring of tailCap
	// bytes, written at tailPos); enough UTF-8 for maxChars UTF-16 units
	// either way.
	head, tail []byte
	tailPos    int
	tailFull   bool
	units      int // UTF-16 units written so far
	bytes      int64
}

// NewOutputSpool creates the file for the output of call id of toolName
// (named as LimitOutput names it). maxChars ≤ 0 means DefaultOutputLimit.
func NewOutputSpool(tempDir, toolName, id string, maxChars int) (*OutputSpool, error) {
	if maxChars <= 0 {
		maxChars = DefaultOutputLimit
	}
	path, err := outputPath(tempDir, toolName, id)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	// A UTF-16 unit is at most 3 bytes of UTF-8 (a 4-byte rune is 2
	// units), plus room for a rune cut at either edge.
	n := 3*maxChars + utf8.UTFMax
	return &OutputSpool{path: path, f: f, w: bufio.NewWriterSize(f, 64<<10), maxChars: maxChars,
		head: make([]byte, 0, n), tail: make([]byte, n)}, nil
}

// Path is the file the whole output goes to.
func (s *OutputSpool) Path() string { return s.path }

// Bytes is how much was written.
func (s *OutputSpool) Bytes() int64 { return s.bytes }

// Write implements io.Writer; a failure to write the file is kept for
// Close, and the start and end are kept regardless.
func (s *OutputSpool) Write(p []byte) (int, error) {
	written := len(p)
	s.bytes += int64(written)
	for _, b := range p {
		// Count UTF-16 units: one per rune start, two for 4-byte runes.
		if b&0xC0 != 0x80 {
			s.units++
			if b >= 0xF0 {
				s.units++
			}
		}
	}
	if s.err == nil {
		_, s.err = s.w.Write(p)
	}
	if room := cap(s.head) - len(s.head); room > 0 {
		s.head = append(s.head, p[:min(room, len(p))]...)
	}
	for len(p) > 0 {
		n := copy(s.tail[s.tailPos:], p)
		p = p[n:]
		s.tailPos += n
		if s.tailPos == len(s.tail) {
			s.tailPos, s.tailFull = 0, true
		}
	}
	return written, nil
}

// Close flushes and closes the file.
func (s *OutputSpool) Close() error {
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if err := s.f.Close(); s.err == nil {
		s.err = err
	}
	return s.err
}

// Notice is what the model gets: the whole output when it fits in
// maxChars, else Gemini CLI's "Output too large" form with the first 20%
// and last 80% of maxChars around the omission marker, naming the file
// (or why it could not be saved).
func (s *OutputSpool) Notice() string {
	tail := s.tail[:s.tailPos]
	if s.tailFull {
		tail = append(append([]byte(nil), s.tail[s.tailPos:]...), s.tail[:s.tailPos]...)
	}
	if s.units <= s.maxChars && int64(len(s.head)) == s.bytes {
		return string(s.head)
	}
	file := s.path
	if s.err != nil {
		file = "(could not save full output: " + s.err.Error() + ")"
	}
	head, end := trimRunes(s.head, false), trimRunes(tail, true)
	hu, tu := utf16Units(head), utf16Units(end)
	h, t := s.maxChars/5, s.maxChars-s.maxChars/5
	return noticeText(firstUnits(head, min(h, hu)), lastUnits(end, min(t, tu)), h, t, s.units-h-t, file)
}

// trimRunes drops a rune cut at the end (or, fromStart, at the start) of b.
func trimRunes(b []byte, fromStart bool) []byte {
	if fromStart {
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
		return b
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

func utf16Units(b []byte) int { return utf16Len(string(b)) }

// firstUnits is the start of b holding n UTF-16 units; a surrogate pair
// cut in half becomes U+FFFD, as JavaScript's slice leaves it.
func firstUnits(b []byte, n int) string {
	i := 0
	for i < len(b) && n > 0 {
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x10000 && n == 1 {
			return string(b[:i]) + "\uFFFD"
		}
		n--
		if r >= 0x10000 {
			n--
		}
		i += size
	}
	return string(b[:i])
}

// lastUnits is the end of b holding n UTF-16 units, a cut surrogate pair
// as in firstUnits.
func lastUnits(b []byte, n int) string {
	i := len(b)
	for i > 0 && n > 0 {
		r, size := utf8.DecodeLastRune(b[:i])
		if r >= 0x10000 && n == 1 {
			return "\uFFFD" + string(b[i:])
		}
		n--
		if r >= 0x10000 {
			n--
		}
		i -= size
	}
	return string(b[i:])
}

// outputPath is where LimitOutput and OutputSpool save the full output of
// call id of toolName, its folder created.
func outputPath(tempDir, toolName, id string) (string, error) {
	if tempDir == "" {
		tempDir = os.TempDir()
	}
	safeTool, safeID := safeFilePart(toolName), safeFilePart(id)
	name := safeTool + "_" + safeID + ".txt"
	if strings.HasPrefix(safeID, safeTool) {
		name = safeID + ".txt"
	}
	dir := filepath.Join(tempDir, "tool-outputs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}
