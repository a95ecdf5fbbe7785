package extension

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/npmtest"
)

// TestFetchCancelledDuringClone: a clone cancelled while the server does
// not answer returns, though git's transport helper (git-remote-http),
// which outlives the killed git, still holds the output pipe. Close waits
// for the background update check, so a fetch that waited for the helper
// kept the interactive terminal from exiting.
func TestFetchCancelledDuringClone(t *testing.T) {
	npmtest.LookPath(t, "git")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// Accept and never answer, as a stalled server does.
	var mu sync.Mutex
	var conns []net.Conn
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}()
	accepted := make(chan struct{}, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			select {
			case accepted <- struct{}{}:
			default:
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		meta := config.ExtensionInstall{Source: "http://" + ln.Addr().String() + "/ext.git"}
		_, cleanup, err := Fetch(ctx, &meta, false)
		cleanup()
		done <- err
	}()
	select {
	case <-accepted:
	case <-time.After(time.Minute):
		t.Fatal("git never connected")
	}
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled clone succeeded")
		}
	case <-time.After(time.Minute):
		t.Fatal("Fetch still waits a minute after its context was cancelled")
	}
}
