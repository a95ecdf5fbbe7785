package gemini_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/gemini"
)

// staleConns fails the first fail requests as net/http fails a request
// sent on a kept-alive connection the server had closed, after reading
// part of the body (the write had begun), and passes the rest on.
type staleConns struct {
	base http.RoundTripper
	err  error

	mu    sync.Mutex
	fail  int
	tries int
}

func (s *staleConns) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.tries++
	failing := s.tries <= s.fail
	s.mu.Unlock()
	if !failing {
		return s.base.RoundTrip(r)
	}
	if r.Body != nil {
		_, _ = io.CopyN(io.Discard, r.Body, 10)
		r.Body.Close()
	}
	return nil, s.err
}

// A model request that met a connection the server had closed while it
// was idle (a proxy's idle or header timeout) is sent again at once: the
// server never read it. Under a burst of A2A tasks over an HTTP/1.1 proxy
// such turns ended without the model's answer. Other transport errors
// are left to the retrier.
func TestClosedIdleConnectionResent(t *testing.T) {
	closedIdle := errors.New("http: server closed idle connection") // net/http's errServerClosedIdle
	tests := []struct {
		name      string
		err       error
		fail      int
		wantErr   bool
		wantTries int
	}{
		{"one stale connection", closedIdle, 1, false, 2},
		{"three stale connections", closedIdle, 3, false, 4},
		{"stale connections all along", closedIdle, 100, true, 4},
		{"another error", errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), 1, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, fakegemini.Text("ok"))
			rt := &staleConns{base: http.DefaultTransport, err: tt.err, fail: tt.fail}
			m := newModel(t, srv, func(c *gemini.Config) { c.HTTPClient = &http.Client{Transport: rt} })
			chunks, err := collect(t, m.GenerateContentStream(context.Background(), &model.Request{
				Model: "gemini-2.5-pro", Contents: userText("hi"),
			}))
			if rt.tries != tt.wantTries {
				t.Errorf("%d requests, want %d", rt.tries, tt.wantTries)
			}
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := text(chunks); got != "ok" {
				t.Errorf("text = %q", got)
			}
			// The resent request carries the whole body.
			req := srv.LastRequest()
			if req.DecodeErr != nil || len(req.Contents) != 1 || !strings.Contains(string(req.Body), `"hi"`) {
				t.Errorf("resent request: %v %s", req.DecodeErr, req.Body)
			}
		})
	}
}
