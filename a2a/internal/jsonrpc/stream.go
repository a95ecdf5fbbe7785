package jsonrpc

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"
)

// Stream answers one request with Server-Sent Events: each event is one
// JSON-RPC response to that request on a single "data: " line. It is safe
// for concurrent use, so that keep-alives may interleave with results.
type Stream struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	flusher http.Flusher
	id      json.RawMessage
	started bool
}

// NewStream returns a stream answering request id on w. Nothing is
// written until Start or the first event.
func NewStream(w http.ResponseWriter, id json.RawMessage) *Stream {
	f, _ := w.(http.Flusher)
	return &Stream{w: w, flusher: f, id: id}
}

// Start writes the event-stream headers and status 200, once. Callers
// that may still answer with a plain JSON error must not call it early.
func (s *Stream) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.startLocked()
}

func (s *Stream) startLocked() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	// Proxies such as nginx buffer responses unless told not to.
	h.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
}

// Event writes one result event. JSON encoding escapes newlines inside
// strings, so one event is always one data line.
func (s *Stream) Event(result any) error {
	b, err := json.Marshal(response{JSONRPC: "2.0", ID: s.id, Result: result})
	if err != nil {
		return err
	}
	return s.write("data: " + string(b) + "\n\n")
}

// Fail writes an error response as an event named "error": once the
// stream has started, its HTTP status can no longer say so.
func (s *Stream) Fail(e *Error) error {
	b, err := json.Marshal(response{JSONRPC: "2.0", ID: s.id, Error: e})
	if err != nil {
		return err
	}
	return s.write("event: error\ndata: " + string(b) + "\n\n")
}

// KeepAlive writes an SSE comment, which clients ignore, so that proxies
// do not cut an idle stream.
func (s *Stream) KeepAlive() error { return s.write(": keep-alive\n\n") }

// KeepAliveWhile writes a keep-alive every interval, calling first before
// the first one, until the returned stop is called; stop returns once
// nothing more is written. It covers a wait before the first event (a
// request queued for its turn): the keep-alives start the stream, so that
// clients and proxies do not give up on a request without headers.
func (s *Stream) KeepAliveWhile(interval time.Duration, first func()) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-done:
				return
			case <-tick.C:
				if n == 0 {
					first()
				}
				if s.KeepAlive() != nil {
					return
				}
			}
		}
	}()
	return func() { close(done); <-exited }
}

func (s *Stream) write(frame string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.startLocked()
	if _, err := io.WriteString(s.w, frame); err != nil {
		return err
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
	return nil
}
