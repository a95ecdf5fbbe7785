package fakegemini

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
)

// Gateway is an HTTP/1.1 gateway in front of a Server that loses one
// request: what a client sees when a kept-alive connection is closed
// under a request (an idle timeout racing the request).
type Gateway struct {
	// URL is the gateway's base URL, used in place of the server's.
	URL string
	// Requests and Conns count the requests the gateway read and the
	// connections clients opened to it.
	Requests, Conns atomic.Int32
}

// DroppingGateway starts a Gateway in front of s that forwards every
// request but the nth (from 1), whose connection it closes after reading
// the request, without an answer. It stops when the test ends.
func (s *Server) DroppingGateway(t testing.TB, nth int32) *Gateway {
	t.Helper()
	target, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	g := &Gateway{}
	fwd := httputil.NewSingleHostReverseProxy(target)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.Requests.Add(1) != nth {
			fwd.ServeHTTP(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}))
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			g.Conns.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	g.URL = ts.URL
	return g
}
