package proc

import (
	"bytes"
	"sync"
)

// Buffer captures a command's output up to a bound. Past Limit the
// oldest bytes go: the end of a command's output (the error it died of,
// the summary) matters more than its start. It never refuses a write, so
// a command is never stopped or blocked by its own output unless OnFull
// chooses so. Safe for concurrent writers and readers.
type Buffer struct {
	// Limit is how many bytes are kept; 0 keeps everything.
	Limit int
	// OnFull, when set, is called once, from Write, when the output first
	// goes past Limit: to stop a command that must not print more.
	OnFull func()

	mu        sync.Mutex
	buf       []byte
	truncated bool
}

// Write implements io.Writer.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	b.buf = append(b.buf, p...)
	full := false
	if b.Limit > 0 && len(b.buf) > b.Limit {
		// Copy rather than reslice, so the dropped head is freed.
		b.buf = append(make([]byte, 0, b.Limit), b.buf[len(b.buf)-b.Limit:]...)
		full = !b.truncated
		b.truncated = true
	}
	b.mu.Unlock()
	if full && b.OnFull != nil {
		b.OnFull()
	}
	return len(p), nil
}

// Truncated reports whether output was dropped for the limit.
func (b *Buffer) Truncated() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.truncated
}

// Len is the number of bytes kept.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.buf)
}

// String returns what is kept.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// Tail returns the last n bytes kept (all when there are fewer), cut at
// a line start when the cut falls inside a line: what a live view of a
// running command shows, at the same cost however much was written.
func (b *Buffer) Tail(n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.buf
	if len(t) > n {
		t = t[len(t)-n:]
		if i := bytes.IndexByte(t, '\n'); i >= 0 {
			t = t[i+1:]
		}
	}
	return string(t)
}

// Head returns the first n bytes kept (all when there are fewer).
func (b *Buffer) Head(n int) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf[:min(n, len(b.buf))]...)
}
