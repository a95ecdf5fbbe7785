package a2a_test

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

// TestA2AStalledBodyIsCut: a client that sends its headers and half a
// body, then stalls, has its connection closed by the server (with
// --request-body-timeout short, so that the test waits for the close
// rather than for half a minute); before, such connections stayed open
// for ever, a thousand of them a cheap way to exhaust the server.
func TestA2AStalledBodyIsCut(t *testing.T) {
	e := e2etest.New(t)
	srv := startA2A(e, filepath.Join(t.TempDir(), "tasks"), "--request-body-timeout", "300ms")
	defer srv.stop(syscall.SIGTERM)
	u, _ := url.Parse(srv.url)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":\"2.0\",", u.Host)
	// No deadline of ours: without the server's, this blocks until the
	// test binary's own timeout.
	got, _ := io.ReadAll(c)
	if len(got) > 0 && !strings.HasPrefix(string(got), "HTTP/1.1 4") {
		t.Errorf("the server answered %q", got)
	}
}
