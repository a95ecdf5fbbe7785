package model

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"google.golang.org/genai"
)

// Stream idle defaults. Gemini CLI 0.61 has none (a silent stream hangs it
// until the socket dies); Castor gives the model 5 minutes to start
// answering, which covers the prefill of a full context window and long
// thinking, and 2 minutes between chunks once it has started, since a
// model that streams sends its next chunk (thoughts included) within
// seconds.
const (
	DefaultFirstChunkTimeout = 5 * time.Minute
	DefaultStreamIdleTimeout = 2 * time.Minute
)

// StreamIdleError ends a model stream that sent nothing for Silence, after
// Chunks chunks, or a call answering at once (GenerateContent) that did
// not answer within the first chunk's time. Before the first chunk it is retried like a network
// timeout; after, it is passed on, as any stream broken once output has
// reached the caller.
type StreamIdleError struct {
	Silence time.Duration
	Chunks  int
}

func (e *StreamIdleError) Error() string {
	if e.Chunks == 0 {
		return fmt.Sprintf("the model stream went silent for %v before its first chunk", e.Silence)
	}
	s := "s"
	if e.Chunks == 1 {
		s = ""
	}
	return fmt.Sprintf("the model stream went silent for %v after %d chunk%s", e.Silence, e.Chunks, s)
}

// idleTimeouts resolves the options' stream timeouts: 0 means the
// default, a negative value no limit.
func (o RetryOptions) idleTimeouts() (first, idle time.Duration) {
	first, idle = o.FirstChunkTimeout, o.StreamIdleTimeout
	if first == 0 {
		first = DefaultFirstChunkTimeout
	}
	if idle == 0 {
		idle = DefaultStreamIdleTimeout
	}
	return first, idle
}

// watchIdle runs the stream open starts under a context that is cancelled
// once the stream has been silent for first (before its first chunk) or
// idle (between chunks); the read blocked on the connection then returns
// at once and the stream ends with a *StreamIdleError. The time the
// consumer spends on a chunk is not silence.
func watchIdle(ctx context.Context, first, idle time.Duration, open func(context.Context) iter.Seq2[*genai.GenerateContentResponse, error]) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		sctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		arm := func(d time.Duration, n int) *time.Timer {
			if d < 0 {
				return nil
			}
			return time.AfterFunc(d, func() { cancel(&StreamIdleError{Silence: d, Chunks: n}) })
		}
		stop := func(t *time.Timer) {
			if t != nil {
				t.Stop()
			}
		}
		// silent is the idle error that cancelled the stream, if any; a
		// cancellation of ctx itself stays the caller's.
		silent := func() error {
			var ie *StreamIdleError
			if ctx.Err() == nil && errors.As(context.Cause(sctx), &ie) {
				return ie
			}
			return nil
		}
		n := 0
		t := arm(first, 0)
		for chunk, err := range open(sctx) {
			stop(t)
			if err != nil {
				if ie := silent(); ie != nil {
					err = ie
				}
				yield(nil, err)
				return
			}
			n++
			if !yield(chunk, nil) {
				return
			}
			t = arm(idle, n)
		}
		stop(t)
		if ie := silent(); ie != nil {
			yield(nil, ie)
		}
	}
}

// watchUnary runs a call that answers at once (not a stream) under a
// context cancelled when no answer came within first, the time a stream
// has for its first chunk: the call then ends with a *StreamIdleError
// (Chunks 0), retried as a stream's, instead of waiting on a silent
// server forever (the router, compression and other calls of the
// session's own making).
func watchUnary(ctx context.Context, first time.Duration, call func(context.Context) error) error {
	if first < 0 {
		return call(ctx)
	}
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	t := time.AfterFunc(first, func() { cancel(&StreamIdleError{Silence: first}) })
	defer t.Stop()
	err := call(cctx)
	var ie *StreamIdleError
	if err != nil && ctx.Err() == nil && errors.As(context.Cause(cctx), &ie) {
		return ie
	}
	return err
}
