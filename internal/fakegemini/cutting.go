package fakegemini

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
)

// CuttingGateway starts a TCP gateway in front of the HTTP server at
// target (a Server's URL, or any loopback server's) that resets the nth
// connection (from 1) for which cut is true as soon as it has read the
// request line and headers, while the client is still writing the body:
// what a client sees when a proxy's idle timeout or a reset breaks a
// connection in the middle of a request. A body larger than the
// kernel's socket buffers (some megabytes on loopback) makes sure the
// client is still writing then. Other connections are forwarded byte for
// byte. Conns counts the connections clients opened, Requests the ones
// cut. It stops when the test ends.
func CuttingGateway(t testing.TB, target string, cut func(conn int32) bool) *Gateway {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	g := &Gateway{URL: "http://" + ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := g.Conns.Add(1)
			if cut(n) {
				g.Requests.Add(1)
				go cutRequest(c)
			} else {
				go forward(c, u.Host)
			}
		}
	}()
	return g
}

// cutRequest reads a request's head and resets the connection: closing
// it with unread data and no linger sends a TCP reset, which fails the
// client's next write.
func cutRequest(c net.Conn) {
	_, _ = http.ReadRequest(bufio.NewReader(c))
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.Close()
}

// forward copies bytes both ways between c and the server at addr.
func forward(c net.Conn, addr string) {
	defer c.Close()
	up, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		if tc, ok := up.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		close(done)
	}()
	_, _ = io.Copy(c, up)
	c.Close()
	<-done
}
