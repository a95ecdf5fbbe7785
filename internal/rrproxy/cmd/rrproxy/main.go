// Command rrproxy serves a round-robin proxy to the URLs it is given on
// 127.0.0.1 and prints its own URL: bench/tck.sh -r runs the A2A TCK
// through it against three castor a2a-server replicas.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/castor-dev/castor/internal/rrproxy"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rrproxy URL...")
		os.Exit(2)
	}
	targets, err := rrproxy.Parse(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "rrproxy:", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "rrproxy:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/\n", ln.Addr())
	if err := http.Serve(ln, rrproxy.New(targets)); err != nil {
		fmt.Fprintln(os.Stderr, "rrproxy:", err)
		os.Exit(1)
	}
}
