package webhook

import "sync"

// Coalescer runs the deliveries of one subject (a task, a session) one
// at a time: a trigger while a run is in flight collapses with any others
// into one more run after it. A run that reads the subject's state when
// it starts therefore always delivers the newest state last, and a slow
// webhook costs at most one waiting run, never a queue.
//
// The zero value is ready to use; a Coalescer must not be copied.
type Coalescer struct {
	mu            sync.Mutex
	busy, pending bool
}

// Trigger asks for a run of fn. It starts one in a new goroutine, tracked
// by wg when wg is not nil, unless one is in flight; then that one runs
// fn again when it ends. fn should read the state it delivers when it is
// called, not before.
func (c *Coalescer) Trigger(wg *sync.WaitGroup, fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy {
		c.pending = true
		return
	}
	c.busy = true
	if wg == nil {
		wg = new(sync.WaitGroup)
	}
	wg.Go(func() {
		for {
			c.mu.Lock()
			c.pending = false
			c.mu.Unlock()
			fn()
			c.mu.Lock()
			if !c.pending {
				c.busy = false
				c.mu.Unlock()
				return
			}
			c.mu.Unlock()
		}
	})
}

// Busy reports whether a run is in flight: a subject whose state is
// being delivered should stay where fn finds it.
func (c *Coalescer) Busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.busy
}
