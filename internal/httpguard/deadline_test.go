package httpguard

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestStalledBodyIsCut: a client that sends its headers and half a body,
// then stalls, has its connection closed; a client that sends its body in
// time and then listens to a long stream keeps it after the deadline.
func TestStalledBodyIsCut(t *testing.T) {
	const d = 200 * time.Millisecond
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(ReadBodyWithin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		// A stream: headers now, the end once the test says so, which is
		// after the body deadline has passed.
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: first\n\n")
		http.NewResponseController(w).Flush()
		select {
		case <-release:
			fmt.Fprint(w, "data: last\n\n")
		case <-r.Context().Done():
		}
	}), d))
	srv.Config.ReadHeaderTimeout = HeaderTimeout
	srv.Start()
	t.Cleanup(srv.Close)

	t.Run("stalled body", func(t *testing.T) {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"half\":")
		// The server answers 400 and closes; no deadline on our side, so
		// without the guard this read blocks until the test times out.
		rest, _ := io.ReadAll(c)
		if !strings.Contains(string(rest), "400") {
			t.Errorf("server said %q", rest)
		}
	})

	t.Run("stream outlives the deadline", func(t *testing.T) {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		first := make([]byte, len("data: first\n\n"))
		if _, err := io.ReadFull(resp.Body, first); err != nil {
			t.Fatal(err)
		}
		// Outlast the deadline the way a user would, on the wall clock:
		// the assertion is on content, the wait only gives the deadline
		// its chance to do harm.
		time.Sleep(2 * d)
		close(release)
		rest, err := io.ReadAll(resp.Body)
		if err != nil || !strings.Contains(string(rest), "data: last") {
			t.Errorf("stream cut after the body deadline: %q, %v", rest, err)
		}
	})
}
