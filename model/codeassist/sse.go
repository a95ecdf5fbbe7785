package codeassist

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrMalformedStream is wrapped by errors for a stream that breaks the
// Code Assist SSE framing: a line that is neither "data: ..." nor blank.
var ErrMalformedStream = errors.New("malformed Code Assist event stream")

// errTruncatedEvent marks data lines the stream ended in the middle of,
// with no blank line to close the event.
var errTruncatedEvent = errors.New("stream ended inside an event")

// maxEventSize bounds one event. Responses carry inline images and long
// files, so it is generous; it exists so a broken server cannot make
// Castor buffer without end.
const maxEventSize = 64 << 20

// sseReader splits a Code Assist stream into events as Gemini CLI does:
// every "data: " line is buffered, a blank line ends the event (its data
// lines joined with "\n"), and any other line is an error. Lines end in
// "\n" or "\r\n".
type sseReader struct {
	r    *bufio.Reader
	data [][]byte
	size int
	line int
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next event's data. It returns io.EOF at a clean end,
// an error wrapping errTruncatedEvent when the stream stops inside an
// event, ErrMalformedStream for a bad line, and read errors as they are.
func (s *sseReader) Next() ([]byte, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && len(s.data) > 0 {
				return nil, fmt.Errorf("%w (%d data lines pending)", errTruncatedEvent, len(s.data))
			}
			return nil, err
		}
		if len(line) == 0 {
			if len(s.data) == 0 {
				continue // keep-alive or doubled separator
			}
			ev := bytes.Join(s.data, []byte("\n"))
			s.data, s.size = nil, 0
			return ev, nil
		}
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			return nil, fmt.Errorf("%w: line %d is not a data line: %q", ErrMalformedStream, s.line, clip(line))
		}
		// SSE allows one optional space after the colon; Gemini CLI also
		// trims the payload.
		data = bytes.TrimSpace(data)
		s.size += len(data)
		if s.size > maxEventSize {
			return nil, fmt.Errorf("%w: event larger than %d bytes", ErrMalformedStream, maxEventSize)
		}
		s.data = append(s.data, append([]byte(nil), data...))
	}
}

// readLine returns the next line without its terminator. A final line
// without a terminator is returned before io.EOF.
func (s *sseReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxEventSize {
			return nil, fmt.Errorf("%w: line longer than %d bytes", ErrMalformedStream, maxEventSize)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (err != io.EOF || len(line) == 0) {
			return nil, err
		}
		s.line++
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if err == io.EOF && len(line) == 0 {
			return nil, io.EOF
		}
		return line, nil
	}
}

// clip shortens a line for an error message; stream content may be long
// and is the user's.
func clip(b []byte) string {
	const n = 80
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
