package nettest

import (
	"net"
	"testing"
	"time"
)

func TestRefusedAddr(t *testing.T) {
	addr := RefusedAddr(t)
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err == nil {
		c.Close()
		t.Fatalf("%s accepted a connection", addr)
	}
}
