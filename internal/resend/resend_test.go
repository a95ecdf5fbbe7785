package resend_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/resend"
)

// bigBody is larger than loopback's socket buffers, so a connection the
// gateway resets breaks while the client is still writing it.
var bigBody = bytes.Repeat([]byte("x"), 16<<20)

// TestResend: a request whose connection breaks while it is being
// written is sent once more, at once, on a new connection; a request that
// cannot be rewound, a second break, and the server's own errors are left
// to the caller.
func TestResend(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/fail" {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, n)
	}))
	defer srv.Close()

	tests := []struct {
		name       string
		cut        func(int32) bool
		path       string
		rewindable bool
		resends    int
		conns      int32
		status     int // 0: the call fails
	}{
		{"cut once", func(n int32) bool { return n == 1 }, "/", true, 1, 2, 200},
		{"not cut", func(int32) bool { return false }, "/", true, 0, 1, 200},
		{"cut twice", func(n int32) bool { return n <= 2 }, "/", true, 1, 2, 0},
		{"not rewindable", func(n int32) bool { return n == 1 }, "/", false, 0, 1, 0},
		{"server error", func(int32) bool { return false }, "/fail", true, 0, 1, 503},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := fakegemini.CuttingGateway(t, srv.URL, tt.cut)
			base := &http.Transport{}
			defer base.CloseIdleConnections()
			resends := 0
			rt := &resend.Transport{Base: base, OnResend: func(*http.Request, error) { resends++ }}
			var body io.Reader = bytes.NewReader(bigBody)
			if !tt.rewindable {
				body = io.MultiReader(body) // http.NewRequest cannot rewind it
			}
			req, err := http.NewRequest("POST", gw.URL+tt.path, body)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := (&http.Client{Transport: rt}).Do(req)
			switch {
			case tt.status == 0 && err == nil:
				resp.Body.Close()
				t.Fatalf("status %d, want the call to fail", resp.StatusCode)
			case tt.status != 0 && err != nil:
				t.Fatal(err)
			case err == nil:
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tt.status {
					t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
				}
				if tt.status == 200 && string(b) != strconv.Itoa(len(bigBody)) {
					t.Errorf("the server read %s bytes, want %d", b, len(bigBody))
				}
			}
			if resends != tt.resends {
				t.Errorf("%d resends, want %d", resends, tt.resends)
			}
			if got := gw.Conns.Load(); got != tt.conns {
				t.Errorf("%d connections, want %d", got, tt.conns)
			}
		})
	}
}
