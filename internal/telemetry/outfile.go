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

	"github.com/castor-dev/castor/internal/telemetry/otlp"
)

// The file target's exporters write what OpenTelemetry Go's stdout
// exporters (stdouttrace, stdoutmetric, stdoutlog) wrote before Castor
// had its own: the SDK's values as encoding/json renders them, one JSON
// object a line, field for field (testdata/outfile.golden pins the
// bytes; users' tools read these files). Castor's data types (package
// otlp) have the SDK's fields and JSON forms.

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

// fileSink is what the file target's three exporters share: the file,
// and whether Shutdown has stopped them.
type fileSink struct {
	out     *jsonLines
	stopped atomic.Bool
}

// Shutdown stops later exports; the file is closed by Telemetry.
func (s *fileSink) Shutdown(context.Context) error {
	s.stopped.Store(true)
	return nil
}

// fileSpans is the file target's span exporter.
type fileSpans struct{ fileSink }

// spanJSON is a span as the stdout exporter wrote it: the scope twice,
// under its old name too.
type spanJSON struct {
	*otlp.Span
	InstrumentationLibrary otlp.Scope
}

// ExportSpans writes each span as a line; after Shutdown it writes
// nothing and says nothing, as the stdout exporter did.
func (e *fileSpans) ExportSpans(ctx context.Context, spans []*otlp.Span) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if e.stopped.Load() {
		return nil
	}
	var errs error
	for i, s := range spans {
		// By pointer, as stdouttrace encoded it: the scope's
		// attribute.Set is then written by its MarshalJSON (null when
		// empty); metrics, encoded by pointer too, are alike.
		if err := e.out.encode(&spanJSON{Span: s, InstrumentationLibrary: s.InstrumentationScope}); err != nil {
			errs = errors.Join(errs, fmt.Errorf("failed to encode span %d: %w", i, err))
		}
	}
	return errs
}

// fileMetrics is the file target's metric exporter: cumulative
// temporality and the default aggregations, as the stdout exporter's
// defaults were.
type fileMetrics struct{ fileSink }

// Temporality is cumulative for every kind.
func (e *fileMetrics) Temporality(otlp.InstrumentKind) otlp.Temporality {
	return otlp.CumulativeTemporality
}

// Aggregation is the SDK's default for every kind.
func (e *fileMetrics) Aggregation(k otlp.InstrumentKind) otlp.Aggregation {
	if k == otlp.KindHistogram {
		return otlp.AggregationExplicitHistogram
	}
	return otlp.AggregationSum
}

// Export writes the whole collection as one line.
func (e *fileMetrics) Export(ctx context.Context, data *otlp.ResourceMetrics) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if e.stopped.Load() {
		return otlp.ErrExporterShutdown
	}
	return e.out.encode(data)
}

// fileLogs is the file target's log exporter.
type fileLogs struct{ fileSink }

// recordJSON is a log record as the stdout exporter wrote it.
type recordJSON struct {
	Timestamp         *time.Time `json:",omitempty"`
	ObservedTimestamp *time.Time `json:",omitempty"`
	EventName         string     `json:",omitempty"`
	Severity          otlp.Severity
	SeverityText      string
	Body              attribute.Value
	Attributes        []attribute.KeyValue
	TraceID           otlp.TraceID
	SpanID            otlp.SpanID
	TraceFlags        otlp.TraceFlags
	Resource          *otlp.Resource
	Scope             otlp.Scope
	DroppedAttributes int
}

// Export writes each record as a line; after Shutdown it fails.
func (e *fileLogs) Export(ctx context.Context, records []*otlp.LogRecord) error {
	if e.stopped.Load() {
		return otlp.ErrExporterShutdown
	}
	for _, r := range records {
		if err := ctx.Err(); err != nil {
			return err
		}
		v := recordJSON{
			Timestamp:         &r.Timestamp,
			ObservedTimestamp: &r.ObservedTimestamp,
			EventName:         r.EventName,
			Severity:          r.Severity,
			SeverityText:      r.SeverityText,
			Body:              r.Body,
			Attributes:        r.Attributes,
			TraceID:           r.TraceID,
			SpanID:            r.SpanID,
			TraceFlags:        r.TraceFlags,
			Resource:          r.Resource,
			Scope:             r.Scope,
			DroppedAttributes: r.DroppedAttributes,
		}
		if v.Attributes == nil {
			v.Attributes = []attribute.KeyValue{}
		}
		// By value, as stdoutlog encoded it: the scope's attribute.Set
		// then is not addressable, so its (*Set).MarshalJSON is not
		// called and it is written as {} (by pointer it would be null).
		if err := e.out.encode(v); err != nil {
			return err
		}
	}
	return nil
}
