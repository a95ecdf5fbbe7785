package rrproxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/castor-dev/castor/internal/rrproxy"
)

// TestRoundRobin: requests go to the targets in turn, with the Host the
// client asked.
func TestRoundRobin(t *testing.T) {
	var targets []*url.URL
	for _, name := range []string{"a", "b", "c"} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, name+" "+r.Host)
		}))
		t.Cleanup(ts.Close)
		u, _ := url.Parse(ts.URL)
		targets = append(targets, u)
	}
	proxy := httptest.NewServer(rrproxy.New(targets))
	t.Cleanup(proxy.Close)
	host := proxy.Listener.Addr().String()
	for i, want := range []string{"a", "b", "c", "a"} {
		resp, err := http.Get(proxy.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != want+" "+host {
			t.Errorf("request %d answered %q, want %q", i, b, want+" "+host)
		}
	}
}
