package gemini

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
)

// callSlot carries per-call data between Model and transport through the
// request context: the model (for the User-Agent) in, and the HTTP status
// and headers of a failed answer out. genai's errors drop the headers, and
// Retry-After lives there.
type callSlot struct {
	model string
	// contents, when set, are the call's contents, encoded, for the
	// transport to put in place of their placeholder (contents.go).
	contents *encodedContents

	mu      sync.Mutex
	status  int
	header  http.Header
	readErr error
}

type slotKey struct{}

func withSlot(ctx context.Context, modelID string) (context.Context, *callSlot) {
	s := &callSlot{model: modelID}
	return context.WithValue(ctx, slotKey{}, s), s
}

func (s *callSlot) result() (int, http.Header) {
	if s == nil {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status, s.header
}

// readError returns the first error met reading a successful answer's
// body, if any.
func (s *callSlot) readError() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readErr
}

// watchedBody reports read failures to the call's slot and shows genai a
// clean EOF instead: genai logs stream read errors through the global
// logger, which would scribble over a terminal UI, and the Model turns the
// recorded error into a proper one anyway.
type watchedBody struct {
	io.ReadCloser
	slot *callSlot
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.slot.mu.Lock()
		if b.slot.readErr == nil {
			b.slot.readErr = err
		}
		b.slot.mu.Unlock()
		err = io.EOF
	}
	return n, err
}

// transport sets Castor's headers on every request and records failed
// answers into the call's slot.
type transport struct {
	base    http.RoundTripper
	version string
	bearer  bool
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	slot, _ := req.Context().Value(slotKey{}).(*callSlot)
	modelID := ""
	if slot != nil {
		modelID = slot.model
	} else {
		modelID = modelFromPath(req.URL.Path)
	}
	// A RoundTripper must not modify the caller's request.
	r := req.Clone(req.Context())
	r.Header.Set("User-Agent", UserAgent(t.version, modelID))
	if t.bearer {
		if key := r.Header.Get("X-Goog-Api-Key"); key != "" {
			r.Header.Del("X-Goog-Api-Key")
			r.Header.Set("Authorization", "Bearer "+key)
		}
	}
	// Marked idempotent (a nil value is not sent), so that net/http
	// resends a request that met a kept-alive connection as the server
	// closed it (its idle timeout, a gateway's): the request went nowhere
	// or the server read it and answered nothing. Otherwise a POST fails
	// with "server closed idle connection" (the retrier does not know
	// it), or with EOF retried only after seconds: under bursts of A2A
	// turns over an HTTP/1.1 proxy, turns ended without the model's
	// answer. A generate call sent twice costs tokens, nothing else.
	r.Header[idempotencyKey] = nil
	if slot != nil && slot.contents != nil {
		var err error
		if r, err = spliceContents(r, slot.contents); err != nil {
			return nil, err
		}
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil || slot == nil {
		return resp, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		slot.mu.Lock()
		slot.status, slot.header = resp.StatusCode, resp.Header.Clone()
		slot.mu.Unlock()
	} else {
		resp.Body = &watchedBody{ReadCloser: resp.Body, slot: slot}
	}
	return resp, err
}

// modelFromPath extracts the model id from ".../models/{model}:{method}".
func modelFromPath(p string) string {
	i := strings.LastIndex(p, "/models/")
	if i < 0 {
		return ""
	}
	m, _, _ := strings.Cut(p[i+len("/models/"):], ":")
	return m
}

// idempotencyKey is the header net/http reads to resend a POST on a
// connection lost before any answer; with a nil value it is not sent.
const idempotencyKey = "Idempotency-Key"
