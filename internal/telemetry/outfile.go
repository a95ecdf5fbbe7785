package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The file target's exporters write what OpenTelemetry Go's stdout
// exporters (stdouttrace, stdoutmetric, stdoutlog) wrote before Castor
// had its own: the SDK's values as encoding/json renders them, one JSON
// object a line, field for field (testdata/outfile.golden pins the
// bytes; users' tools read these files). Castor's own three types keep
// those modules, and the init work of their self-observability packages,
// out of every run.

// jsonLines is the one encoder the three exporters share: each value is
// one Encode, so one Write of a whole line, which the file's O_APPEND
// keeps whole and in order.
type jsonLines struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newJSONLines(w io.Writer) *jsonLines {
	return &jsonLines{enc: json.NewEncoder(w)}
}

// encode writes v as one line.
func (j *jsonLines) encode(v any) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.enc.Encode(v)
}

// fileSpans is the file target's sdktrace.SpanExporter.
type fileSpans struct {
	out     *jsonLines
	stopped atomic.Bool // set by Shutdown
}

// spanJSON is a span as the stdout exporter wrote it (the fields of the
// SDK's tracetest.SpanStub, in its order, the scope twice under its old
// name too).
type spanJSON struct {
	Name                   string
	SpanContext            trace.SpanContext
	Parent                 trace.SpanContext
	SpanKind               trace.SpanKind
	StartTime              time.Time
	EndTime                time.Time
	Attributes             []attribute.KeyValue
	Events                 []sdktrace.Event
	Links                  []sdktrace.Link
	Status                 sdktrace.Status
	DroppedAttributes      int
	DroppedEvents          int
	DroppedLinks           int
	ChildSpanCount         int
	Resource               *resource.Resource
	InstrumentationScope   instrumentation.Scope
	InstrumentationLibrary instrumentation.Scope
}

// ExportSpans writes each span as a line; after Shutdown it writes
// nothing and says nothing, as the stdout exporter did.
func (e *fileSpans) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if e.stopped.Load() {
		return nil
	}
	var errs error
	for i, s := range spans {
		scope := s.InstrumentationScope()
		v := spanJSON{
			Name:                   s.Name(),
			SpanContext:            s.SpanContext(),
			Parent:                 s.Parent(),
			SpanKind:               s.SpanKind(),
			StartTime:              s.StartTime(),
			EndTime:                s.EndTime(),
			Attributes:             s.Attributes(),
			Events:                 s.Events(),
			Links:                  s.Links(),
			Status:                 s.Status(),
			DroppedAttributes:      s.DroppedAttributes(),
			DroppedEvents:          s.DroppedEvents(),
			DroppedLinks:           s.DroppedLinks(),
			ChildSpanCount:         s.ChildSpanCount(),
			Resource:               s.Resource(),
			InstrumentationScope:   scope,
			InstrumentationLibrary: scope,
		}
		// By pointer, as stdouttrace encoded it: the scope's
		// attribute.Set is then written by its MarshalJSON (null when
		// empty); metrics, encoded by pointer too, are alike.
		if err := e.out.encode(&v); err != nil {
			errs = errors.Join(errs, fmt.Errorf("failed to encode span %d: %w", i, err))
		}
	}
	return errs
}

// Shutdown stops later exports; the file is closed by Telemetry.
func (e *fileSpans) Shutdown(context.Context) error {
	e.stopped.Store(true)
	return nil
}

// errFileShutdown is what metrics exported after Shutdown get.
var errFileShutdown = errors.New("exporter shutdown")

// fileMetrics is the file target's sdkmetric.Exporter: cumulative
// temporality and the default aggregations, as the stdout exporter's
// defaults were.
type fileMetrics struct {
	out     *jsonLines
	stopped atomic.Bool // set by Shutdown
}

// Temporality is the SDK's default for every kind.
func (e *fileMetrics) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

// Aggregation is the SDK's default for every kind.
func (e *fileMetrics) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

// Export writes the whole collection as one line.
func (e *fileMetrics) Export(ctx context.Context, data *metricdata.ResourceMetrics) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if e.stopped.Load() {
		return errFileShutdown
	}
	return e.out.encode(data)
}

// ForceFlush has nothing to do: every Export is written at once.
func (e *fileMetrics) ForceFlush(context.Context) error { return nil }

// Shutdown makes later exports fail.
func (e *fileMetrics) Shutdown(context.Context) error {
	e.stopped.Store(true)
	return nil
}

// fileLogs is the file target's sdklog.Exporter.
type fileLogs struct {
	out     *jsonLines
	stopped atomic.Bool // set by Shutdown
}

// recordJSON is a log record as the stdout exporter wrote it.
type recordJSON struct {
	Timestamp         *time.Time `json:",omitempty"`
	ObservedTimestamp *time.Time `json:",omitempty"`
	EventName         string     `json:",omitempty"`
	Severity          otellog.Severity
	SeverityText      string
	Body              attribute.Value
	Attributes        []attribute.KeyValue
	TraceID           trace.TraceID
	SpanID            trace.SpanID
	TraceFlags        trace.TraceFlags
	Resource          *resource.Resource
	Scope             instrumentation.Scope
	DroppedAttributes int
}

// Export writes each record as a line; after Shutdown it fails with the
// SDK's ErrExporterShutdown.
func (e *fileLogs) Export(ctx context.Context, records []sdklog.Record) error {
	if e.stopped.Load() {
		return sdklog.ErrExporterShutdown
	}
	for i := range records {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := &records[i]
		ts, observed := r.Timestamp(), r.ObservedTimestamp()
		v := recordJSON{
			Timestamp:         &ts,
			ObservedTimestamp: &observed,
			EventName:         r.EventName(),
			Severity:          r.Severity(),
			SeverityText:      r.SeverityText(),
			Body:              r.Body(),
			Attributes:        make([]attribute.KeyValue, 0, r.AttributesLen()),
			TraceID:           r.TraceID(),
			SpanID:            r.SpanID(),
			TraceFlags:        r.TraceFlags(),
			Resource:          r.Resource(),
			Scope:             r.InstrumentationScope(),
			DroppedAttributes: r.DroppedAttributes(),
		}
		r.WalkAttributes(func(kv attribute.KeyValue) bool {
			v.Attributes = append(v.Attributes, kv)
			return true
		})
		// By value, as stdoutlog encoded it: the scope's attribute.Set
		// then is not addressable, so its (*Set).MarshalJSON is not
		// called and it is written as {} (by pointer it would be null).
		if err := e.out.encode(v); err != nil {
			return err
		}
	}
	return nil
}

// ForceFlush has nothing to do: every Export is written at once.
func (e *fileLogs) ForceFlush(context.Context) error { return nil }

// Shutdown makes later exports fail.
func (e *fileLogs) Shutdown(context.Context) error {
	e.stopped.Store(true)
	return nil
}
