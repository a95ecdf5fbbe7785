package telemetry

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/log/logtest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// update rewrites the golden files from what the exporters write.
var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestOutfileGolden pins the bytes a --telemetry-outfile holds for one
// span, one batch of metrics and two log records: the JSON shape that
// OpenTelemetry Go's stdout exporters wrote (testdata/outfile.golden was
// written by them, v1.47.0 and log v0.23.0), which users' tools read.
func TestOutfileGolden(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "telemetry.log")
	tel := &Telemetry{cfg: Config{Outfile: path}}
	spans, metrics, logs, err := tel.fileExporters(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res := resource.NewSchemaless(attribute.String("service.name", ServiceName), attribute.String("service.version", "1.2.3"))
	scope := instrumentation.Scope{Name: scopeName, Version: "v1"}
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 123456789, time.UTC)
	tid := trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	sid := trace.SpanID{0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6, 0x07, 0x18}
	psid := trace.SpanID{8, 7, 6, 5, 4, 3, 2, 1}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
	parent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: psid, TraceFlags: trace.FlagsSampled, Remote: true})
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
	span := tracetest.SpanStub{
		Name: "tool_call", SpanContext: sc, Parent: parent, SpanKind: trace.SpanKindInternal,
		StartTime: t0, EndTime: t0.Add(1500 * time.Millisecond), Attributes: attrs,
		Events: []sdktrace.Event{{Name: "exception", Attributes: attrs[:2], Time: t0.Add(time.Second), DroppedAttributeCount: 1}},
		Links:  []sdktrace.Link{{SpanContext: parent, Attributes: attrs[2:3]}},
		Status: sdktrace.Status{Code: codes.Error, Description: "it broke"}, DroppedAttributes: 2, ChildSpanCount: 3,
		Resource: res, InstrumentationScope: scope,
	}
	bare := tracetest.SpanStub{Name: "user_prompt"}
	if err := spans.ExportSpans(ctx, tracetest.SpanStubs{span, bare}.Snapshots()); err != nil {
		t.Fatal(err)
	}
	set := attribute.NewSet(attrs[0], attrs[2])
	rm := &metricdata.ResourceMetrics{Resource: res, ScopeMetrics: []metricdata.ScopeMetrics{{Scope: scope, Metrics: []metricdata.Metrics{
		{Name: "gemini_cli.session.count", Description: "Count of CLI sessions started.", Unit: "1", Data: metricdata.Sum[int64]{
			DataPoints:  []metricdata.DataPoint[int64]{{Attributes: set, StartTime: t0, Time: t0.Add(time.Minute), Value: 1}},
			Temporality: metricdata.CumulativeTemporality, IsMonotonic: true}},
		{Name: "gemini_cli.api.request.latency", Unit: "ms", Data: metricdata.Histogram[float64]{
			DataPoints: []metricdata.HistogramDataPoint[float64]{{Attributes: set, StartTime: t0, Time: t0, Count: 2,
				Bounds: []float64{0, 5, 10}, BucketCounts: []uint64{0, 1, 1, 0}, Min: metricdata.NewExtrema(3.5), Sum: 12}},
			Temporality: metricdata.DeltaTemporality}},
		{Name: "g", Data: metricdata.Gauge[float64]{DataPoints: []metricdata.DataPoint[float64]{{Value: 0.5}}}},
	}}}}
	if err := metrics.Export(ctx, rm); err != nil {
		t.Fatal(err)
	}
	records := []sdklog.Record{
		logtest.RecordFactory{
			EventName: "gemini_cli.tool_call", Timestamp: t0, ObservedTimestamp: t0.Add(time.Millisecond),
			Severity: otellog.SeverityInfo, SeverityText: "INFO", Body: attribute.StringValue("Tool call: read_file."),
			Attributes: attrs, TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled,
			Resource: res, InstrumentationScope: &scope, DroppedAttributes: 1,
		}.NewRecord(),
		logtest.RecordFactory{Body: attribute.Int64Value(7)}.NewRecord(),
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
	golden := filepath.Join("testdata", "outfile.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the outfile differs from %s:\n got: %s\nwant: %s", golden, got, want)
	}
}

// TestOutfileAfterShutdown: what the SDK hands an exporter after Shutdown
// is not written, and each signal answers as the stdout exporters did
// (spans silently, metrics and logs with an error).
func TestOutfileAfterShutdown(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "telemetry.log")
	tel := &Telemetry{cfg: Config{Outfile: path}}
	spans, metrics, logs, err := tel.fileExporters(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, err := range []error{spans.Shutdown(ctx), metrics.Shutdown(ctx), logs.Shutdown(ctx)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := spans.ExportSpans(ctx, tracetest.SpanStubs{{Name: "late"}}.Snapshots()); err != nil {
		t.Errorf("spans after Shutdown: %v", err)
	}
	if err := metrics.Export(ctx, &metricdata.ResourceMetrics{}); err == nil {
		t.Error("metrics after Shutdown: no error")
	}
	if err := logs.Export(ctx, []sdklog.Record{logtest.RecordFactory{EventName: "late"}.NewRecord()}); !errors.Is(err, sdklog.ErrExporterShutdown) {
		t.Errorf("logs after Shutdown: %v, want %v", err, sdklog.ErrExporterShutdown)
	}
	if err := tel.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || len(b) != 0 {
		t.Errorf("the outfile holds %q (%v), want nothing", b, err)
	}
}
