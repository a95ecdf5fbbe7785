package otlp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// signal is what differs between traces, metrics and logs on the wire.
type signal struct {
	name     string // "traces": OTEL_EXPORTER_OTLP_TRACES_* and /v1/traces
	method   string // the gRPC method
	rejected string // what partial_success counts
}

var (
	tracesSignal  = signal{"traces", "/opentelemetry.proto.collector.trace.v1.TraceService/Export", "spans"}
	metricsSignal = signal{"metrics", "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", "metric data points"}
	logsSignal    = signal{"logs", "/opentelemetry.proto.collector.logs.v1.LogsService/Export", "log records"}
)

// sender makes one attempt at sending an encoded request. It returns the
// encoded response, and a *retryable error for a failure worth trying
// again.
type sender interface {
	send(ctx context.Context, body []byte) ([]byte, error)
	close() error
}

// retryable is a failure the OTLP specification says to retry:
// HTTP 429, 502, 503, 504, or a transient gRPC status. after is the
// server's requested delay (Retry-After, RetryInfo), 0 if none.
type retryable struct {
	err   error
	after time.Duration
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

// backoff is the retry schedule: exponential from initial, each wait
// randomized by ±50%, capped at max, no new attempt after elapsed. The
// defaults are the official exporters'.
type backoff struct {
	initial, max, elapsed time.Duration
}

var defaultBackoff = backoff{initial: 5 * time.Second, max: 30 * time.Second, elapsed: time.Minute}

// client sends one signal's requests to one endpoint.
type client struct {
	sig     signal
	timeout time.Duration // per export, retries included; 0: none
	backoff backoff
	sender  sender

	// stop ends exports under way at Shutdown.
	stop     context.Context
	stopFunc context.CancelFunc
	once     sync.Once
	closeErr error
}

func newClient(sig signal, s sender, timeout time.Duration) *client {
	ctx, cancel := context.WithCancel(context.Background())
	return &client{sig: sig, timeout: timeout, backoff: defaultBackoff, sender: s, stop: ctx, stopFunc: cancel}
}

// maxRequest is the largest request sent: the official exporters' bound,
// and the usual collector's.
const maxRequest = 64 << 20

// errShutdown is an export after Shutdown.
var errShutdown = errors.New("the exporter is shut down")

// errTimeout is the cause of an export's end at its timeout.
var errTimeout = errors.New("exporter export timeout")

func (c *client) stopped() bool { return c.stop.Err() != nil }

// export sends body, retrying what may be retried within ctx and the
// timeout, and reports a partial success as an error, as the official
// exporters do.
func (c *client) export(ctx context.Context, body []byte) error {
	if c.stopped() {
		return errShutdown
	}
	if len(body) > maxRequest {
		return fmt.Errorf("request of %d bytes: over the %d a collector takes", len(body), maxRequest)
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.timeout, errTimeout)
		defer cancel()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(c.stop, func() { cancel(errShutdown) })()

	resp, err := c.retry(ctx, body)
	if err != nil {
		return err
	}
	rejected, msg, err := partialSuccess(resp)
	if err != nil {
		return fmt.Errorf("reading the response: %w", err)
	}
	if rejected != 0 || msg != "" {
		return &PartialSuccess{Message: msg, Rejected: rejected, Kind: c.sig.rejected}
	}
	return nil
}

// retry sends body until it is sent, fails for good, or ctx ends.
func (c *client) retry(ctx context.Context, body []byte) ([]byte, error) {
	start := time.Now()
	interval := c.backoff.initial
	var prev error // the last attempt's failure
	for {
		resp, err := c.sender.send(ctx, body)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			// An attempt that the end of ctx cut short says only
			// that: the one before it says why nothing was sent.
			if prev != nil {
				err = prev
			}
			return nil, fmt.Errorf("%w: %w", context.Cause(ctx), err)
		}
		var r *retryable
		if !errors.As(err, &r) {
			return nil, err
		}
		prev = err
		elapsed := time.Since(start)
		if elapsed > c.backoff.elapsed || elapsed+r.after > c.backoff.elapsed {
			return nil, fmt.Errorf("gave up retrying after %s: %w", elapsed.Round(time.Millisecond), err)
		}
		delay := max(r.after, time.Duration(float64(interval)*(0.5+rand.Float64())))
		interval = min(time.Duration(float64(interval)*1.5), c.backoff.max)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w: %w", context.Cause(ctx), err)
		case <-t.C:
		}
	}
}

// shutdown ends exports under way and closes the connection; the first
// call's result is every call's.
func (c *client) shutdown(ctx context.Context) error {
	c.once.Do(func() {
		c.stopFunc()
		c.closeErr = c.sender.close()
	})
	if c.closeErr != nil {
		return c.closeErr
	}
	return ctx.Err()
}

// PartialSuccess is a collector's answer that it accepted a request but
// rejected some of it (the response's partial_success), reported as an
// export's error as the official exporters do.
type PartialSuccess struct {
	// Message is the collector's error_message.
	Message string
	// Rejected is how many items were rejected.
	Rejected int64
	// Kind names the items: spans, metric data points, log records.
	Kind string
}

func (p *PartialSuccess) Error() string {
	msg := p.Message
	if msg == "" {
		msg = "empty message"
	}
	return fmt.Sprintf("OTLP partial success: %s (%d %s rejected)", msg, p.Rejected, p.Kind)
}

// partialSuccess reads an Export{Trace,Metrics,Logs}ServiceResponse,
// whose one field, partial_success (1), holds the rejected count (1) and
// an error message (2); the three responses share that shape. Unknown
// fields are skipped, and a repeated field merges as protobuf says (the
// last scalar wins).
func partialSuccess(b []byte) (rejected int64, msg string, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, "", protowire.ParseError(n)
		}
		b = b[n:]
		if num == 1 && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return 0, "", protowire.ParseError(n)
			}
			b = b[n:]
			if err := partialSuccessFields(v, &rejected, &msg); err != nil {
				return 0, "", err
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return 0, "", protowire.ParseError(n)
		}
		b = b[n:]
	}
	return rejected, msg, nil
}

func partialSuccessFields(b []byte, rejected *int64, msg *string) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			*rejected = int64(v)
			b = b[n:]
		case num == 2 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			*msg = string(v)
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	return nil
}
