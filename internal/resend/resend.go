// Package resend sends an HTTP request again, at once and once, when the
// connection broke while the request was being written: the server never
// had the whole request, so it cannot have acted on it, and the failure
// says nothing about the server's health.
//
// net/http already resends a request that met a kept-alive connection as
// the server closed it, when nothing of it was written or when the
// request is marked idempotent and no answer came. It does not when the
// connection dies halfway through writing the body (a proxy or gateway
// whose idle timeout fires as a long request is being written, a reset),
// and the model clients' retrier then waits its backoff, seconds, for a
// request the server never received. Transport closes that gap; the
// retrier keeps its backoff for the server's own errors (429, 5xx) and
// for requests the server may have read.
package resend

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
)

// Transport is an http.RoundTripper that sends a request whose writing
// failed once more, at once, on a new connection. A request with a body
// is resent only when it can be rewound (Request.GetBody, which
// http.NewRequest sets for in-memory bodies).
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// OnResend, when set, is called before each resend with the error of
	// the broken attempt.
	OnResend func(req *http.Request, err error)
}

// New returns a Transport over base.
func New(base http.RoundTripper) *Transport { return &Transport{Base: base} }

func (t *Transport) base() http.RoundTripper {
	if t.Base == nil {
		return http.DefaultTransport
	}
	return t.Base
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	rewindable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	if !rewindable {
		return t.base().RoundTrip(req)
	}
	w := &watch{}
	resp, err := t.base().RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), w.trace())))
	if err == nil || req.Context().Err() != nil || !w.unsent(err) {
		return resp, err
	}
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		body, gerr := req.GetBody()
		if gerr != nil {
			return nil, err
		}
		again.Body = body
	}
	if t.OnResend != nil {
		t.OnResend(req, err)
	}
	return t.fresh().RoundTrip(again)
}

// fresh is the transport of a resend: one that dials a new connection,
// used for this request alone. The pool's other idle connections to the
// same host most likely went through the same proxy and met the same
// end. A base that is not an *http.Transport (Code Assist's sign-in
// layer) is used as it is: the resend may then get a pooled connection,
// and net/http beneath still resends what meets a closed idle one.
func (t *Transport) fresh() http.RoundTripper {
	ht, ok := t.base().(*http.Transport)
	if !ok {
		return t.base()
	}
	one := ht.Clone()
	// The connection closes when the answer has been read, so the
	// one-off transport keeps nothing.
	one.DisableKeepAlives = true
	return one
}

// CloseIdleConnections closes the base's idle connections (for
// http.Client.CloseIdleConnections).
func (t *Transport) CloseIdleConnections() {
	if ci, ok := t.base().(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// watch follows one attempt through net/http's trace hooks.
type watch struct {
	mu       sync.Mutex
	writeErr error // the failure of writing the request, if any
	answered bool  // a byte of the answer arrived
}

func (w *watch) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) {
			w.mu.Lock()
			w.writeErr = i.Err
			w.mu.Unlock()
		},
		GotFirstResponseByte: func() {
			w.mu.Lock()
			w.answered = true
			w.mu.Unlock()
		},
	}
}

// unsent reports whether the attempt that failed with err broke while
// its request was being written, before any answer: net/http's trace
// saw the write fail, or err is a failed write on the connection (the
// last flush of a request happens after the trace hook).
func (w *watch) unsent(err error) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.answered {
		return false
	}
	if w.writeErr != nil {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "write"
}
