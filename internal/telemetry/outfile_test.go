package telemetry

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/internal/telemetry/otlp"
)

// fileTarget is a Telemetry writing to a new outfile, and the file
// target's three exporters.
func fileTarget(t *testing.T) (string, *Telemetry, spanExporter, metricExporter, logExporter) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "telemetry.log")
	tel := &Telemetry{cfg: Config{Outfile: path}}
	spans, metrics, logs, err := tel.fileExporters(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, tel, spans, metrics, logs
}

// TestOutfileGolden pins the bytes a --telemetry-outfile holds for one
// span, one batch of metrics and two log records: the JSON shape that
// OpenTelemetry Go's stdout exporters wrote (testdata/outfile.golden was
// written by them, v1.47.0 and log v0.23.0), which users' tools read.
func TestOutfileGolden(t *testing.T) {
	t.Parallel()
	path, tel, spans, metrics, logs := fileTarget(t)
	ctx := context.Background()
	res := otlp.NewResource("", attribute.String("service.name", ServiceName), attribute.String("service.version", "1.2.3"))
	scope := otlp.Scope{Name: scopeName, Version: "v1"}
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 123456789, time.UTC)
	tid := otlp.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	sid := otlp.SpanID{0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6, 0x07, 0x18}
	psid := otlp.SpanID{8, 7, 6, 5, 4, 3, 2, 1}
	sc := otlp.SpanContext{TraceID: tid, SpanID: sid, TraceFlags: otlp.FlagsSampled}
	parent := otlp.SpanContext{TraceID: tid, SpanID: psid, TraceFlags: otlp.FlagsSampled, Remote: true}
	attrs := []attribute.KeyValue{
		attribute.String("s", "quote \" <tag> & é \u2028"),
		attribute.Bool("b", true),
		attribute.Int64("i", -42),
		attribute.Float64("f", 0.25),
		attribute.StringSlice("ss", []string{"a", "b"}),
		attribute.Int64Slice("is", []int64{1, 2}),
		attribute.Float64Slice("fs", []float64{1.5}),
		attribute.BoolSlice("bs", []bool{false}),
	}
	span := &otlp.Span{
		Name: "tool_call", SpanContext: sc, Parent: parent, SpanKind: otlp.SpanKindInternal,
		StartTime: t0, EndTime: t0.Add(1500 * time.Millisecond), Attributes: attrs,
		Events: []otlp.Event{{Name: "exception", Attributes: attrs[:2], Time: t0.Add(time.Second), DroppedAttributeCount: 1}},
		Links:  []otlp.Link{{SpanContext: parent, Attributes: attrs[2:3]}},
		Status: otlp.Status{Code: otlp.StatusError, Description: "it broke"}, DroppedAttributes: 2, ChildSpanCount: 3,
		Resource: res, InstrumentationScope: scope,
	}
	bare := &otlp.Span{Name: "user_prompt"}
	if err := spans.ExportSpans(ctx, []*otlp.Span{span, bare}); err != nil {
		t.Fatal(err)
	}
	set := attribute.NewSet(attrs[0], attrs[2])
	rm := &otlp.ResourceMetrics{Resource: res, ScopeMetrics: []otlp.ScopeMetrics{{Scope: scope, Metrics: []otlp.Metrics{
		{Name: "gemini_cli.session.count", Description: "Count of CLI sessions started.", Unit: "1", Data: otlp.Sum[int64]{
			DataPoints:  []otlp.DataPoint[int64]{{Attributes: set, StartTime: t0, Time: t0.Add(time.Minute), Value: 1}},
			Temporality: otlp.CumulativeTemporality, IsMonotonic: true}},
		{Name: "gemini_cli.api.request.latency", Unit: "ms", Data: otlp.Histogram[float64]{
			DataPoints: []otlp.HistogramDataPoint[float64]{{Attributes: set, StartTime: t0, Time: t0, Count: 2,
				Bounds: []float64{0, 5, 10}, BucketCounts: []uint64{0, 1, 1, 0}, Min: otlp.NewExtrema(3.5), Sum: 12}},
			Temporality: otlp.DeltaTemporality}},
		{Name: "g", Data: otlp.Gauge[float64]{DataPoints: []otlp.DataPoint[float64]{{Value: 0.5}}}},
	}}}}
	if err := metrics.Export(ctx, rm); err != nil {
		t.Fatal(err)
	}
	records := []*otlp.LogRecord{
		{
			EventName: "gemini_cli.tool_call", Timestamp: t0, ObservedTimestamp: t0.Add(time.Millisecond),
			Severity: otlp.SeverityInfo, SeverityText: "INFO", Body: attribute.StringValue("Tool call: read_file."),
			Attributes: attrs, TraceID: tid, SpanID: sid, TraceFlags: otlp.FlagsSampled,
			Resource: res, Scope: scope, DroppedAttributes: 1,
		},
		{Body: attribute.Int64Value(7)},
	}
	if err := logs.Export(ctx, records); err != nil {
		t.Fatal(err)
	}
	if err := tel.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "outfile.golden", got)
}

// TestOutfileAfterShutdown: what the SDK hands an exporter after Shutdown
// is not written, and each signal answers as the stdout exporters did
// (spans silently, metrics and logs with an error).
func TestOutfileAfterShutdown(t *testing.T) {
	t.Parallel()
	path, tel, spans, metrics, logs := fileTarget(t)
	ctx := context.Background()
	for _, err := range []error{spans.Shutdown(ctx), metrics.Shutdown(ctx), logs.Shutdown(ctx)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := spans.ExportSpans(ctx, []*otlp.Span{{Name: "late"}}); err != nil {
		t.Errorf("spans after Shutdown: %v", err)
	}
	if err := metrics.Export(ctx, &otlp.ResourceMetrics{}); err == nil {
		t.Error("metrics after Shutdown: no error")
	}
	if err := logs.Export(ctx, []*otlp.LogRecord{{EventName: "late"}}); !errors.Is(err, otlp.ErrExporterShutdown) {
		t.Errorf("logs after Shutdown: %v, want %v", err, otlp.ErrExporterShutdown)
	}
	if err := tel.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || len(b) != 0 {
		t.Errorf("the outfile holds %q (%v), want nothing", b, err)
	}
}
