// Package fakescript is what the loopback fakes of other wires than
// Gemini's (internal/fakeopenai, internal/fakeanthropic) share: scripted
// replies served in order, the log of requests received, and a server on
// 127.0.0.1 that ends with the test.
package fakescript

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"google.golang.org/genai"
)

// Script holds a fake's replies of type R and the requests of type Q it
// received; a fake embeds it, so its methods are the fake's.
type Script[R, Q any] struct {
	// URL is the server's root, set by Listen.
	URL string

	mu       sync.Mutex
	replies  []R
	requests []*Q
	noTools  bool
}

// Listen serves h on 127.0.0.1 with replies queued, until the test ends.
func (s *Script[R, Q]) Listen(t testing.TB, h http.Handler, replies []R) {
	t.Helper()
	s.replies = replies
	ts := httptest.NewServer(h) // httptest listens on 127.0.0.1
	s.URL = ts.URL
	t.Cleanup(ts.Close)
}

// Enqueue adds replies.
func (s *Script[R, Q]) Enqueue(r ...R) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, r...)
}

// RejectTools makes the server refuse requests declaring tools, as
// servers of models without tool support do.
func (s *Script[R, Q]) RejectTools() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noTools = true
}

// Requests returns the requests received so far, the refused ones too.
func (s *Script[R, Q]) Requests() []*Q {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Q(nil), s.requests...)
}

// Pending is the number of replies not yet served.
func (s *Script[R, Q]) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies)
}

// Receive logs q; it returns its number (from 1) and whether requests
// declaring tools are refused.
func (s *Script[R, Q]) Receive(q *Q) (n int, refuseTools bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, q)
	return len(s.requests), s.noTools
}

// Next takes the next reply; ok is false when none is left.
func (s *Script[R, Q]) Next() (r R, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.replies) == 0 {
		return r, false
	}
	r = s.replies[0]
	s.replies = s.replies[1:]
	return r, true
}

// Locked runs f holding the lock Requests takes, for what a fake writes
// into a request it already logged.
func (s *Script[R, Q]) Locked(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// Call is one call of a function in a scripted reply.
type Call struct {
	Name string
	Args map[string]any
}

// CallParts is calls as the parts of a model turn, in parallel when more
// than one.
func CallParts(calls []Call) []*genai.Part {
	var parts []*genai.Part
	for _, c := range calls {
		parts = append(parts, &genai.Part{FunctionCall: &genai.FunctionCall{Name: c.Name, Args: c.Args}})
	}
	return parts
}
