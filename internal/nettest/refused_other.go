//go:build !unix

package nettest

import (
	"net"
	"testing"
)

// RefusedAddr returns a loopback address nothing listens on: a port
// picked and freed (another server may take it meanwhile).
func RefusedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
