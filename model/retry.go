package model

import (
	"context"
	"errors"
	"io"
	"iter"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/genai"
)

// Retry defaults, as Gemini CLI's retryWithBackoff.
const (
	DefaultMaxAttempts  = 10
	DefaultInitialDelay = 5 * time.Second
	DefaultMaxDelay     = 30 * time.Second
	// jitterFraction is the ± share of the computed delay that is
	// randomised, so many clients hit by the same outage do not retry in
	// lockstep.
	jitterFraction = 0.3
)

// RetryOptions configures WithRetry. The zero value gives Gemini CLI's
// defaults with no model fallback.
type RetryOptions struct {
	// MaxAttempts bounds the calls made per model, the first included
	// (default DefaultMaxAttempts, Gemini CLI's general.maxAttempts).
	MaxAttempts int
	// InitialDelay is the wait before the second attempt; it doubles after
	// each retry up to MaxDelay (defaults DefaultInitialDelay and
	// DefaultMaxDelay).
	InitialDelay time.Duration
	MaxDelay     time.Duration
	// Fallback returns the model to switch to once quota on model is
	// exhausted, or "" (or model itself) for none. DefaultFallback is
	// Gemini CLI's policy chain.
	Fallback func(model string) string
	// Sleep waits for d or until ctx is done, whichever comes first, and
	// returns ctx's error in the latter case. Tests inject one that records
	// d and returns at once; nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) for the jitter; nil means
	// math/rand/v2. A constant 0.5 gives the un-jittered delay.
	Rand func() float64
	// FirstChunkTimeout and StreamIdleTimeout end a stream that sends
	// nothing for that long, before its first chunk and between chunks,
	// with a *StreamIdleError (defaults DefaultFirstChunkTimeout and
	// DefaultStreamIdleTimeout; negative: no limit).
	FirstChunkTimeout time.Duration
	StreamIdleTimeout time.Duration
}

// DefaultFallback is Gemini CLI 0.61's model fallback chain on exhausted
// quota (availability policy catalog): the Gemini 3 pro models
// (gemini-3.1-pro-preview and its -customtools variant) and the flash-lite
// model fall back to gemini-3.8-flash, the last resort; gemini-2.5-pro
// falls back to gemini-2.5-flash. Other models have no fallback.
func DefaultFallback(model string) string {
	m := strings.TrimPrefix(model, "models/")
	switch {
	case strings.HasPrefix(m, "gemini-2.5-pro"):
		return "gemini-2.5-flash"
	case strings.HasPrefix(m, "gemini-3") && (strings.Contains(m, "-pro") || strings.Contains(m, "-flash-lite")):
		return "gemini-3.8-flash"
	}
	return ""
}

// Retrier is a Model that retries transient failures of another Model with
// exponential backoff, and switches to a fallback model once quota is
// exhausted. It is safe for concurrent use.
type Retrier struct {
	m    Model
	opts RetryOptions

	mu sync.Mutex
	// fellBack maps a requested model to the model used instead after a
	// fallback, so later calls skip the exhausted model straight away.
	fellBack map[string]string
}

// WithRetry wraps m so its calls are retried as RetryOptions says. The
// result is a *Retrier.
func WithRetry(m Model, opts RetryOptions) Model { return NewRetrier(m, opts) }

// NewRetrier is WithRetry returning the concrete type, for callers that
// want CurrentModel.
func NewRetrier(m Model, opts RetryOptions) *Retrier {
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.InitialDelay <= 0 {
		opts.InitialDelay = DefaultInitialDelay
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = DefaultMaxDelay
	}
	opts.MaxDelay = max(opts.MaxDelay, opts.InitialDelay)
	if opts.Sleep == nil {
		opts.Sleep = sleepCtx
	}
	if opts.Rand == nil {
		opts.Rand = rand.Float64
	}
	return &Retrier{m: m, opts: opts, fellBack: map[string]string{}}
}

// CurrentModel returns the model calls for requested actually go to: the
// fallback chosen after quota on requested ran out, else requested.
func (r *Retrier) CurrentModel(requested string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resolveLocked(requested)
}

// ResetFallbacks forgets every fallback, e.g. when the user picks a model
// again or the quota window has passed.
func (r *Retrier) ResetFallbacks() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.fellBack)
}

func (r *Retrier) resolveLocked(m string) string {
	// Follow chains (pro → flash → ...) but never loop forever on a cycle
	// a custom Fallback might create.
	for range 8 {
		next, ok := r.fellBack[m]
		if !ok {
			break
		}
		m = next
	}
	return m
}

func (r *Retrier) noteFallback(from, to string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fellBack[from] = to
}

// GenerateContent implements Model.
func (r *Retrier) GenerateContent(ctx context.Context, req *Request) (*genai.GenerateContentResponse, error) {
	var resp *genai.GenerateContentResponse
	first, _ := r.opts.idleTimeouts()
	err := r.run(ctx, req, func(cur *Request) (bool, error) {
		return false, watchUnary(ctx, first, func(ctx context.Context) error {
			var err error
			resp, err = r.m.GenerateContent(ctx, cur)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// CountTokens implements Model.
func (r *Retrier) CountTokens(ctx context.Context, req *Request) (int32, error) {
	var n int32
	err := r.run(ctx, req, func(cur *Request) (bool, error) {
		var err error
		n, err = r.m.CountTokens(ctx, cur)
		return false, err
	})
	return n, err
}

// errConsumerStopped marks a stream whose consumer stopped early; it never
// reaches the consumer.
var errConsumerStopped = errors.New("stream consumer stopped")

// GenerateContentStream implements Model. A stream is retried only while
// it has yielded nothing: once a chunk has reached the caller, a retry
// would duplicate output, so a later error is passed through unchanged.
// A response that ends normally without any answer (no text, no function
// call: an empty or thought-only response) is asked for again up to
// MaxEmptyRetries times, as Gemini CLI 0.61 does; its final chunk is held
// back meanwhile, so the caller sees one answer.
func (r *Retrier) GenerateContentStream(ctx context.Context, req *Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		for retry := 0; ; retry++ {
			var held *genai.GenerateContentResponse
			answered := false
			err := r.run(ctx, req, func(cur *Request) (bool, error) {
				started := false
				held, answered = nil, false
				first, idle := r.opts.idleTimeouts()
				stream := watchIdle(ctx, first, idle, func(ctx context.Context) iter.Seq2[*genai.GenerateContentResponse, error] {
					return r.m.GenerateContentStream(ctx, cur)
				})
				for chunk, err := range stream {
					if err != nil {
						return started, err
					}
					started = true
					answered = answered || hasAnswer(chunk)
					if !answered && emptyFinish(chunk) {
						held = chunk
						continue
					}
					if !yield(chunk, nil) {
						return true, errConsumerStopped
					}
				}
				return false, nil
			})
			if err != nil {
				if err != errConsumerStopped {
					yield(nil, err)
				}
				return
			}
			if held == nil {
				return
			}
			if retry < MaxEmptyRetries && ctx.Err() == nil {
				wait := r.jitter(min(r.opts.InitialDelay, emptyRetryDelay) << retry)
				notify(req, Notice{Kind: NoticeRetry, Attempt: retry + 1, Delay: wait, Err: ErrEmptyResponse})
				if r.opts.Sleep(ctx, wait) == nil {
					continue
				}
			}
			// Out of retries: the empty answer is the answer.
			yield(held, nil)
			return
		}
	}
}

// run calls call until it succeeds, fails for good, or attempts run out.
// call reports final=true when its error must not be retried (a stream
// that already yielded chunks).
func (r *Retrier) run(ctx context.Context, req *Request, call func(*Request) (final bool, err error)) (err error) {
	cur := req
	if m := r.CurrentModel(req.Model); m != req.Model {
		cur = req.Clone()
		cur.Model = m
	}
	defer func() {
		// Say which model failed: the caller asked for an alias, or a
		// fallback changed the model (see FailedModel).
		if err != nil && err != errConsumerStopped && ctx.Err() == nil {
			err = &ModelError{Model: cur.Model, Err: err}
		}
	}()
	delay := r.opts.InitialDelay
	// tried stops a custom Fallback that cycles (a → b → a) from retrying
	// forever.
	tried := map[string]bool{cur.Model: true}
	for attempt := 1; ; attempt++ {
		start := time.Now()
		final, err := call(cur)
		if err == nil || final {
			return err
		}
		if ctx.Err() != nil {
			return err
		}
		retryable := IsRetryable(err)
		persistentQuota := IsQuotaExhausted(err) ||
			(IsQuotaError(err) && attempt >= r.opts.MaxAttempts)
		if persistentQuota {
			if to := r.fallback(cur.Model); to != "" && !tried[to] {
				tried[to] = true
				r.noteFallback(cur.Model, to)
				notify(req, Notice{Kind: NoticeFallback, Attempt: attempt, Err: err, From: cur.Model, To: to})
				cur = cur.Clone()
				cur.Model = to
				attempt = 0
				delay = r.opts.InitialDelay
				continue
			}
			return err
		}
		if !retryable || attempt >= r.opts.MaxAttempts {
			return err
		}
		wait := r.jitter(delay)
		var ae *APIError
		if errors.As(err, &ae) && ae.RetryAfter > wait {
			if ae.RetryAfter > MaxRetryAfter {
				// Waiting that long would look like a hang; let the
				// caller decide.
				return err
			}
			wait = ae.RetryAfter
		}
		notify(req, Notice{Kind: NoticeRetry, Attempt: attempt, Delay: wait, Err: err, Model: cur.Model, Latency: time.Since(start)})
		if serr := r.opts.Sleep(ctx, wait); serr != nil {
			return serr
		}
		delay = min(r.opts.MaxDelay, delay*2)
	}
}

func (r *Retrier) fallback(from string) string {
	if r.opts.Fallback == nil {
		return ""
	}
	to := r.opts.Fallback(from)
	if to == from {
		return ""
	}
	return to
}

func (r *Retrier) jitter(d time.Duration) time.Duration {
	f := 1 + jitterFraction*(2*r.opts.Rand()-1)
	return max(0, time.Duration(float64(d)*f))
}

func notify(req *Request, n Notice) {
	if req.Observe != nil {
		req.Observe(n)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// IsRetryable reports whether a call that failed with err may succeed if
// made again: a retryable APIError (429, 499, 5xx), a stream that broke
// off, or a network failure (reset, refused, timeout, DNS, truncated
// body). Cancellation of the caller's context is never retryable.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Retryable()
	}
	var authErr *AuthError
	if errors.As(err, &authErr) {
		return false
	}
	var idle *StreamIdleError
	if errors.Is(err, ErrStreamCut) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &idle) {
		return true
	}
	for _, errno := range []syscall.Errno{syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.EPIPE, syscall.ETIMEDOUT, syscall.ECONNABORTED} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return true
	}
	// Not every net.Error is transient (*url.Error wraps a bad scheme or
	// certificate too); timeouts are.
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return true
	}
	// An io.EOF reaching a caller means the peer hung up before answering.
	return errors.Is(err, io.EOF)
}
