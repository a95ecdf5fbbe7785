package host_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/castor-dev/castor/a2a/internal/host"
)

// chat is a face's conversation: what a host keeps.
type chat struct {
	id   string
	gate host.Gate

	mu      sync.Mutex
	running bool
	session bool
	last    time.Time
}

func (c *chat) ID() string { return c.id }

func (c *chat) Usage() host.Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return host.Usage{Running: c.running, Session: c.session, LastActive: c.last}
}

func (c *chat) Save()           { fmt.Println("saved", c.id) }
func (c *chat) ReleaseSession() {}
func (c *chat) CloseSession()   { fmt.Println("closed", c.id) }

// A face keeps its conversations in a host, and runs each message as a
// turn the host admits.
func Example() {
	h := host.New[*chat](host.Config{Limits: host.Limits{MaxConcurrentTurns: 8}})
	c := &chat{id: "c1", gate: host.NewGate(), last: time.Now()}
	if err := h.Add(c); err != nil {
		fmt.Println(err) // a *host.Busy: memory is full of busy chats
		return
	}
	turn, err := h.StartTurn(context.Background(), c.gate)
	if err != nil {
		fmt.Println(err)
		return
	}
	c.mu.Lock()
	c.running = true
	c.mu.Unlock()
	h.Work().Go(func() {
		defer turn.End()
		<-turn.Context().Done() // the model and tools would run here
		fmt.Println("turn ended:", context.Cause(turn.Context()))
		c.mu.Lock()
		c.running = false
		c.mu.Unlock()
	})
	h.Shutdown(context.Background())
	// Output:
	// turn ended: Execution interrupted: the server is shutting down.
	// saved c1
	// closed c1
}
