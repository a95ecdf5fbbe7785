package host

import (
	"context"
	"sync"
	"time"
)

// Subscriber queues an item's updates for one client stream. The queue is
// bounded: a stream that falls further behind is dropped (Take reports it)
// rather than the turn slowed down or memory spent on it.
type Subscriber[U any] struct {
	mu      sync.Mutex
	q       []U
	max     int
	ready   chan struct{}
	dropped bool
}

// NewSubscriber returns a subscriber holding at most max updates.
func NewSubscriber[U any](max int) *Subscriber[U] {
	return &Subscriber[U]{max: max, ready: make(chan struct{}, 1)}
}

// Push queues u, or marks the subscriber dropped when its queue is full.
// It never blocks.
func (s *Subscriber[U]) Push(u U) {
	s.mu.Lock()
	if len(s.q) >= s.max {
		s.dropped = true
	} else {
		s.q = append(s.q, u)
	}
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// Ready receives after a Push: Take then has something to say.
func (s *Subscriber[U]) Ready() <-chan struct{} { return s.ready }

// Take returns the queued updates and whether any were dropped.
func (s *Subscriber[U]) Take() ([]U, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.q
	s.q = nil
	return q, s.dropped
}

// End says why Follow returned.
type End int

// Ends of Follow.
const (
	// Finished: each said the stream is complete.
	Finished End = iota
	// Left: ctx ended, or writing to the client failed.
	Left
	// Dropped: the subscriber fell too far behind.
	Dropped
)

// Follow hands the queued updates to each, in order, until each reports
// the last one (done) or fails, ctx ends, or the subscriber is dropped.
// While nothing comes it calls idle every keepAlive (0: never), whose
// failure means the client left.
func (s *Subscriber[U]) Follow(ctx context.Context, keepAlive time.Duration, idle func() error, each func(U) (done bool, err error)) End {
	var tick <-chan time.Time
	if keepAlive > 0 {
		t := time.NewTicker(keepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return Left
		case <-tick:
			if idle() != nil {
				return Left
			}
			continue
		case <-s.ready:
		}
		ups, dropped := s.Take()
		for _, u := range ups {
			done, err := each(u)
			if err != nil {
				return Left
			}
			if done {
				return Finished
			}
		}
		if dropped {
			return Dropped
		}
	}
}
