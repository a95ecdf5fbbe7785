package host

import "time"

// Limits bound the resources clients can take from a server face. Zero
// values mean the defaults in parentheses.
type Limits struct {
	// MaxBodyBytes bounds a request body (4 MiB).
	MaxBodyBytes int64
	// MaxConcurrentTurns bounds turns running at once across items (256).
	MaxConcurrentTurns int
	// MaxQueuedTurns bounds the turns waiting for one of those slots
	// (4096); a turn past both limits fails as busy. Negative: turns
	// never wait, and fail as busy once MaxConcurrentTurns run.
	MaxQueuedTurns int
	// MaxQueuedMessages bounds the messages waiting for one item's
	// running turn (32): the item runs them one after the other, in the
	// order they came, and refuses more as busy.
	MaxQueuedMessages int
	// MaxStreams bounds open streams (1024).
	MaxStreams int
	// MaxLiveTasks bounds items held in memory; idle ones are evicted to
	// the store to make room (1024).
	MaxLiveTasks int
	// MaxIdleSessions bounds the engine sessions kept by items between
	// their turns (256): past it, the least recently active item's session
	// is released and rebuilt from the stored conversation (and pending
	// calls) at its next turn, so that memory follows the turns running
	// rather than every item seen.
	MaxIdleSessions int
	// MaxTurnsPerTask bounds the messages one item may run (1000).
	MaxTurnsPerTask int
	// TurnTimeout bounds one turn's wall time (30m).
	TurnTimeout time.Duration
	// RequestTimeout bounds how long a blocking request waits for its
	// turn's end before answering with the item as it is (5m).
	RequestTimeout time.Duration
	// IdleTTL is how long an idle item stays in memory (30m).
	IdleTTL time.Duration
	// KeepAlive is the interval of stream keep-alive messages (15s).
	KeepAlive time.Duration
	// PushAttempts and PushBackoff govern webhook retries (4, 500ms
	// doubling); PushTimeout bounds one webhook call (10s).
	PushAttempts int
	PushBackoff  time.Duration
	PushTimeout  time.Duration
}

// Defaults replaces the zero (and, but for MaxQueuedTurns, negative)
// values by the defaults.
func (l *Limits) Defaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defD := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = 4 << 20
	}
	def(&l.MaxConcurrentTurns, 256)
	if l.MaxQueuedTurns == 0 {
		l.MaxQueuedTurns = 4096
	}
	def(&l.MaxQueuedMessages, 32)
	def(&l.MaxStreams, 1024)
	def(&l.MaxLiveTasks, 1024)
	def(&l.MaxIdleSessions, 256)
	def(&l.MaxTurnsPerTask, 1000)
	def(&l.PushAttempts, 4)
	defD(&l.TurnTimeout, 30*time.Minute)
	defD(&l.RequestTimeout, 5*time.Minute)
	defD(&l.IdleTTL, 30*time.Minute)
	defD(&l.KeepAlive, 15*time.Second)
	defD(&l.PushBackoff, 500*time.Millisecond)
	defD(&l.PushTimeout, 10*time.Second)
}
