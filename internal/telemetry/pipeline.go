package telemetry

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/castor-dev/castor/internal/telemetry/otlp"
)

// Castor records its spans, logs and metrics itself, with what the
// OpenTelemetry Go SDK did for it before (its batching, sampling,
// aggregation and OTEL_* variables), and hands them to the OTLP or file
// exporters: the SDK's packages and their init work cost every run of
// the binary memory, although telemetry is off by default.

// The exporters of the three signals.
type (
	spanExporter interface {
		ExportSpans(context.Context, []*otlp.Span) error
		Shutdown(context.Context) error
	}
	logExporter interface {
		Export(context.Context, []*otlp.LogRecord) error
		Shutdown(context.Context) error
	}
	metricExporter interface {
		Temporality(otlp.InstrumentKind) otlp.Temporality
		Aggregation(otlp.InstrumentKind) otlp.Aggregation
		Export(context.Context, *otlp.ResourceMetrics) error
		Shutdown(context.Context) error
	}
)

// envSettings are the SDK's OTEL_* variables as Castor reads them.
type envSettings struct {
	res                *otlp.Resource
	sampler            sampler
	spans, logs        batchConfig
	interval, mTimeout time.Duration // the periodic metric reader's
	exemplars          func(otlp.SpanContext) bool
}

// unsupported are the SDK's variables Castor does not read: setting one
// is said. Castor's spans and records have a few short attributes, far
// within the SDK's default limits, which Castor keeps.
var unsupported = []string{
	"OTEL_ATTRIBUTE_COUNT_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT",
	"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_SPAN_ATTRIBUTE_VALUE_DEPTH_LIMIT",
	"OTEL_SPAN_EVENT_COUNT_LIMIT", "OTEL_SPAN_LINK_COUNT_LIMIT", "OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", "OTEL_LINK_ATTRIBUTE_COUNT_LIMIT",
	"OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT", "OTEL_LOGRECORD_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_LOGRECORD_ATTRIBUTE_VALUE_DEPTH_LIMIT",
}

// attrLimit is the SDK's default bound on a span's or record's
// attributes and a span's events.
const attrLimit = 128

// readSettings reads the variables; what does not read is said through
// warn and its default applies, as the SDK does.
func readSettings(getenv func(string) string, version string, warn func(string)) envSettings {
	env := func(name string) string { return strings.TrimSpace(getenv(name)) }
	for _, name := range unsupported {
		if env(name) != "" {
			warn(fmt.Sprintf("telemetry: %s is not supported; Castor's default limits apply", name))
		}
	}
	millis := func(name string, def time.Duration) time.Duration {
		v := env(name)
		if v == "" {
			return def
		}
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return time.Duration(n) * time.Millisecond
		}
		warn(fmt.Sprintf("telemetry: %s=%q: want milliseconds; %d applies", name, v, def.Milliseconds()))
		return def
	}
	count := func(name string, def int) int {
		v := env(name)
		if v == "" {
			return def
		}
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n
		}
		warn(fmt.Sprintf("telemetry: %s=%q: want a positive number; %d applies", name, v, def))
		return def
	}
	batch := func(prefix string, delay time.Duration) batchConfig {
		c := batchConfig{
			delay:   millis(prefix+"SCHEDULE_DELAY", delay),
			timeout: millis(prefix+"EXPORT_TIMEOUT", 30*time.Second),
			queue:   count(prefix+"MAX_QUEUE_SIZE", 2048),
			batch:   count(prefix+"MAX_EXPORT_BATCH_SIZE", 512),
		}
		c.batch = min(c.batch, c.queue)
		return c
	}
	s := envSettings{
		res:      resourceOf(env, version, warn),
		sampler:  samplerOf(env, warn),
		spans:    batch("OTEL_BSP_", 5*time.Second),
		logs:     batch("OTEL_BLRP_", time.Second),
		interval: millis("OTEL_METRIC_EXPORT_INTERVAL", exportInterval),
		mTimeout: millis("OTEL_METRIC_EXPORT_TIMEOUT", 30*time.Second),
	}
	s.exemplars = otlp.SpanContext.IsSampled
	switch v := env("OTEL_METRICS_EXEMPLAR_FILTER"); v {
	case "", "trace_based":
	case "always_on":
		s.exemplars = func(otlp.SpanContext) bool { return true }
	case "always_off":
		s.exemplars = func(otlp.SpanContext) bool { return false }
	default:
		warn(fmt.Sprintf("telemetry: OTEL_METRICS_EXEMPLAR_FILTER=%q: want always_on, always_off or trace_based; trace_based applies", v))
	}
	return s
}

// resourceOf is service.name and service.version, then the attributes
// of OTEL_RESOURCE_ATTRIBUTES (key=value pairs, the values
// percent-encoded), then OTEL_SERVICE_NAME, each over the ones before.
func resourceOf(env func(string) string, version string, warn func(string)) *otlp.Resource {
	kv := []attribute.KeyValue{attribute.String("service.name", ServiceName), attribute.String("service.version", version)}
	var bad []string
	if v := env("OTEL_RESOURCE_ATTRIBUTES"); v != "" {
		for p := range strings.SplitSeq(v, ",") {
			k, val, ok := strings.Cut(p, "=")
			if !ok {
				bad = append(bad, strings.TrimSpace(p))
				continue
			}
			dec, err := url.PathUnescape(strings.TrimSpace(val))
			if err != nil {
				dec = val
			}
			if a := attribute.String(strings.TrimSpace(k), dec); a.Valid() {
				kv = append(kv, a)
			}
		}
	}
	if len(bad) > 0 {
		warn(fmt.Sprintf("telemetry: OTEL_RESOURCE_ATTRIBUTES: %q are not key=value; left out", bad))
	}
	if v := env("OTEL_SERVICE_NAME"); v != "" {
		kv = append(kv, attribute.String("service.name", v))
	}
	return otlp.NewResource("", kv...)
}

// sampler decides which traces are recorded, as OTEL_TRACES_SAMPLER's
// samplers do: a root span by ratio (1 for always_on, 0 for
// always_off), and with parentBased a child as its parent was.
type sampler struct {
	parentBased bool
	ratio       float64
}

// samplerOf reads OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG;
// parentbased_always_on by default.
func samplerOf(env func(string) string, warn func(string)) sampler {
	name := strings.ToLower(env("OTEL_TRACES_SAMPLER"))
	def := sampler{parentBased: true, ratio: 1}
	ratio := func() float64 {
		arg := env("OTEL_TRACES_SAMPLER_ARG")
		if arg == "" {
			return 1
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			warn(fmt.Sprintf("telemetry: OTEL_TRACES_SAMPLER_ARG=%q: want a ratio from 0 to 1; 1 applies", arg))
			return 1
		}
		return r
	}
	switch name {
	case "", "parentbased_always_on":
		return def
	case "always_on":
		return sampler{ratio: 1}
	case "always_off":
		return sampler{}
	case "traceidratio":
		return sampler{ratio: ratio()}
	case "parentbased_always_off":
		return sampler{parentBased: true}
	case "parentbased_traceidratio":
		return sampler{parentBased: true, ratio: ratio()}
	}
	warn(fmt.Sprintf("telemetry: OTEL_TRACES_SAMPLER=%q is not supported; parentbased_always_on applies", name))
	return def
}

// sample decides for a span of trace tid whose parent is parent (zero
// for a root), by the trace id's low 63 bits as the SDK's
// TraceIDRatioBased does.
func (s sampler) sample(parent otlp.SpanContext, tid otlp.TraceID) bool {
	if s.parentBased && parent.IsValid() {
		return parent.IsSampled()
	}
	if s.ratio >= 1 {
		return true
	}
	return binary.BigEndian.Uint64(tid[8:])>>1 < uint64(s.ratio*(1<<63))
}

// tracer makes spans and hands the ended ones to its batcher.
type tracer struct {
	res     *otlp.Resource
	scope   otlp.Scope
	sampler sampler
	out     *batcher[*otlp.Span]
}

// spanKey holds the current *span in a context.
type spanKey struct{}

// span is a span being recorded; data is nil for one not sampled, which
// only carries its context to its children and log records.
type span struct {
	sc    otlp.SpanContext
	mu    sync.Mutex
	data  *otlp.Span
	ended bool
	out   *batcher[*otlp.Span]
}

// spanContext is the context of ctx's current span, zero if none.
func spanContext(ctx context.Context) otlp.SpanContext {
	if s, ok := ctx.Value(spanKey{}).(*span); ok {
		return s.sc
	}
	return otlp.SpanContext{}
}

// start starts a span at at (now if zero), a child of ctx's span.
func (tr *tracer) start(ctx context.Context, name string, at time.Time, kv []attribute.KeyValue) (context.Context, *span) {
	parent, _ := ctx.Value(spanKey{}).(*span)
	var psc otlp.SpanContext
	if parent != nil {
		psc = parent.sc
	}
	sc := otlp.SpanContext{TraceID: psc.TraceID, TraceState: psc.TraceState}
	for !sc.SpanID.IsValid() {
		binary.NativeEndian.PutUint64(sc.SpanID[:], rand.Uint64())
	}
	for !sc.TraceID.IsValid() {
		binary.NativeEndian.PutUint64(sc.TraceID[:8], rand.Uint64())
		binary.NativeEndian.PutUint64(sc.TraceID[8:], rand.Uint64())
	}
	s := &span{out: tr.out}
	if tr.sampler.sample(psc, sc.TraceID) {
		sc.TraceFlags = otlp.FlagsSampled
		if at.IsZero() {
			at = time.Now()
		}
		s.data = &otlp.Span{Name: name, SpanContext: sc, Parent: psc, SpanKind: otlp.SpanKindInternal,
			StartTime: at, Resource: tr.res, InstrumentationScope: tr.scope}
		s.data.Attributes, s.data.DroppedAttributes = addAttributes(nil, kv)
		if parent != nil {
			parent.mu.Lock()
			if parent.data != nil && !parent.ended {
				parent.data.ChildSpanCount++
			}
			parent.mu.Unlock()
		}
	}
	s.sc = sc
	return context.WithValue(ctx, spanKey{}, s), s
}

// addAttributes adds kv to attrs as the SDK does: an attribute replaces
// the value of an earlier one of its key, in its place; invalid ones and
// those past the limit are dropped (and counted).
func addAttributes(attrs []attribute.KeyValue, kv []attribute.KeyValue) ([]attribute.KeyValue, int) {
	dropped := 0
outer:
	for _, a := range kv {
		if !a.Valid() {
			dropped++
			continue
		}
		for i := range attrs {
			if attrs[i].Key == a.Key {
				attrs[i] = a
				continue outer
			}
		}
		if len(attrs) >= attrLimit {
			dropped++
			continue
		}
		attrs = append(attrs, a)
	}
	return attrs, dropped
}

// record runs f on the span's data while it records.
func (s *span) record(f func(d *otlp.Span)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data != nil && !s.ended {
		f(s.data)
	}
}

// SetAttributes adds or replaces attributes.
func (s *span) SetAttributes(kv ...attribute.KeyValue) {
	s.record(func(d *otlp.Span) {
		var n int
		d.Attributes, n = addAttributes(d.Attributes, kv)
		d.DroppedAttributes += n
	})
}

// RecordError adds the exception event of err at at (now if zero), as
// the SDK's RecordError.
func (s *span) RecordError(err error, at time.Time) {
	if at.IsZero() {
		at = time.Now()
	}
	s.record(func(d *otlp.Span) {
		if len(d.Events) >= attrLimit {
			d.DroppedEvents++
			return
		}
		d.Events = append(d.Events, otlp.Event{Name: "exception", Time: at, Attributes: []attribute.KeyValue{
			attribute.String("exception.type", typeName(err)), attribute.String("exception.message", err.Error()),
		}})
	})
}

// typeName names err's type as the SDK does ("*errors.errorString").
func typeName(err error) string {
	t := reflect.TypeOf(err)
	if t.PkgPath() == "" && t.Name() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

// SetError sets the error status (the last description wins, as in the
// SDK; Castor sets no other status).
func (s *span) SetError(description string) {
	s.record(func(d *otlp.Span) { d.Status = otlp.Status{Code: otlp.StatusError, Description: description} })
}

// End ends the span at at (now if zero) and queues it for export.
func (s *span) End(at time.Time) {
	s.record(func(d *otlp.Span) {
		if at.IsZero() {
			at = d.StartTime.Add(time.Since(d.StartTime))
		}
		d.EndTime = at
		s.ended = true
		s.out.add(d)
	})
}

// logger makes log records and hands them to its batcher.
type logger struct {
	res   *otlp.Resource
	scope otlp.Scope
	out   *batcher[*otlp.LogRecord]
}

// emit queues a record in ctx's span, as the SDK's Logger.Emit does.
func (l *logger) emit(ctx context.Context, r *otlp.LogRecord, kv []attribute.KeyValue) {
	sc := spanContext(ctx)
	r.TraceID, r.SpanID, r.TraceFlags = sc.TraceID, sc.SpanID, sc.TraceFlags
	r.Resource, r.Scope = l.res, l.scope
	r.Attributes, r.DroppedAttributes = addAttributes(nil, kv)
	l.out.add(r)
}

// batchConfig is a batch processor's: it exports every delay, or as
// soon as batch items wait, at most batch at once, each export within
// timeout; past queue items waiting, new ones are dropped.
type batchConfig struct {
	delay, timeout time.Duration
	queue, batch   int
}

// batcher is the SDK's batch span and log record processor: items wait
// in a queue that a goroutine exports.
type batcher[T any] struct {
	cfg    batchConfig
	export func(context.Context, []T) error
	failed func(error) // a failed export while running

	mu      sync.Mutex
	queue   []T
	stopped bool
	final   context.Context // Shutdown's, for the last exports

	kick, stop, done chan struct{}
	finalErr         error
}

func newBatcher[T any](cfg batchConfig, export func(context.Context, []T) error, failed func(error)) *batcher[T] {
	b := &batcher[T]{cfg: cfg, export: export, failed: failed,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go b.run()
	return b
}

// add queues x, or drops it when the queue is full or stopped.
func (b *batcher[T]) add(x T) {
	b.mu.Lock()
	if b.stopped || len(b.queue) >= b.cfg.queue {
		b.mu.Unlock()
		return
	}
	b.queue = append(b.queue, x)
	full := len(b.queue) >= b.cfg.batch
	b.mu.Unlock()
	if full {
		select {
		case b.kick <- struct{}{}:
		default:
		}
	}
}

// take is the next batch, nil when none waits.
func (b *batcher[T]) take() []T {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := min(len(b.queue), b.cfg.batch)
	if n == 0 {
		return nil
	}
	out := b.queue[:n:n]
	b.queue = append([]T(nil), b.queue[n:]...)
	return out
}

func (b *batcher[T]) send(ctx context.Context, batch []T) error {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.timeout)
	defer cancel()
	return b.export(ctx, batch)
}

func (b *batcher[T]) run() {
	defer close(b.done)
	t := time.NewTimer(b.cfg.delay)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			// A failure here is said as one while running is (the
			// SDK's batch processors did), and Shutdown returns it.
			for batch := b.take(); batch != nil; batch = b.take() {
				if err := b.send(b.final, batch); err != nil {
					b.failed(err)
					b.finalErr = errors.Join(b.finalErr, err)
				}
			}
			return
		case <-t.C:
		case <-b.kick:
		}
		for batch := b.take(); batch != nil; batch = b.take() {
			if err := b.send(context.Background(), batch); err != nil {
				b.failed(err)
			}
			if len(batch) < b.cfg.batch {
				break
			}
		}
		t.Reset(b.cfg.delay)
	}
}

// shutdown exports what waits, within ctx, and returns what failed; the
// exporter is not stopped here. Items added later are dropped.
func (b *batcher[T]) shutdown(ctx context.Context) error {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return nil
	}
	b.stopped, b.final = true, ctx
	b.mu.Unlock()
	close(b.stop)
	select {
	case <-b.done:
		return b.finalErr
	case <-ctx.Done():
		return ctx.Err()
	}
}
