package otlp

import (
	"strings"
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
	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// every is an attribute of every kind of value, zero values and nesting
// included, and strings long enough for lengths of two and three bytes.
var every = []attribute.KeyValue{
	attribute.Bool("bool", true),
	attribute.Bool("false", false),
	attribute.Int64("int", -42),
	attribute.Int64("zero", 0),
	attribute.Float64("float", 3.25),
	attribute.Float64("float.zero", 0),
	attribute.String("string", "héllo"),
	attribute.String("empty", ""),
	attribute.String("long", strings.Repeat("x", 300)),
	attribute.String("longer", strings.Repeat("y", 20000)),
	{Key: "bytes", Value: attribute.ByteSliceValue([]byte{0, 1, 2})},
	attribute.BoolSlice("bools", []bool{true, false}),
	attribute.Int64Slice("ints", []int64{1, 0, -1}),
	attribute.Float64Slice("floats", []float64{0.5, 0}),
	attribute.StringSlice("strings", []string{"a", ""}),
	attribute.StringSlice("no.strings", nil),
	{Key: "slice", Value: attribute.SliceValue(attribute.IntValue(1), attribute.StringValue("two"), attribute.SliceValue(attribute.BoolValue(false)), attribute.Value{})},
	{Key: "map", Value: attribute.MapValue(attribute.String("k", "v"), attribute.KeyValue{Key: "nested", Value: attribute.MapValue(attribute.Int("n", 0))})},
	{Key: "empty.value", Value: attribute.Value{}},
	{Key: "", Value: attribute.StringValue("no key")},
}

var (
	res1 = resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "castor"), attribute.String("service.version", "1.2.3"))
	res2 = resource.NewSchemaless(attribute.String("service.name", "other"))

	scope1 = instrumentation.Scope{Name: "github.com/castor-dev/castor", Version: "v1", SchemaURL: "https://example.com/s", Attributes: attribute.NewSet(attribute.Bool("scope", true))}
	scope2 = instrumentation.Scope{Name: "second"}

	tid  = trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	sid  = trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}
	psid = trace.SpanID{8, 7, 6, 5, 4, 3, 2, 1}
	t0   = time.Date(2026, 12, 7, 9, 40, 0, 123456789, time.UTC)
)

func spanContext(t *testing.T, s trace.SpanID, remote bool, state string) trace.SpanContext {
	ts, err := trace.ParseTraceState(state)
	if err != nil {
		t.Fatal(err)
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: s, TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: remote})
}

func TestSpansAsTheOfficialExporter(t *testing.T) {
	full := func(t *testing.T) tracetest.SpanStub {
		return tracetest.SpanStub{
			Name:        "llm_call",
			SpanContext: spanContext(t, sid, false, "vendor=x"),
			Parent:      spanContext(t, psid, true, ""),
			SpanKind:    trace.SpanKindClient,
			StartTime:   t0,
			EndTime:     t0.Add(time.Second),
			Attributes:  every,
			Events: []sdktrace.Event{
				{Name: "exception", Time: t0.Add(time.Millisecond), Attributes: every[:3], DroppedAttributeCount: 2},
				{Name: "bare"},
			},
			Links: []sdktrace.Link{
				{SpanContext: spanContext(t, psid, true, "a=b"), Attributes: every[4:6], DroppedAttributeCount: 1},
				{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid})},
			},
			Status:               sdktrace.Status{Code: codes.Error, Description: "it broke"},
			DroppedAttributes:    3,
			DroppedEvents:        4,
			DroppedLinks:         5,
			Resource:             res1,
			InstrumentationScope: scope1,
		}
	}
	tests := []struct {
		name  string
		spans func(t *testing.T) tracetest.SpanStubs
	}{
		{"every field", func(t *testing.T) tracetest.SpanStubs { return tracetest.SpanStubs{full(t)} }},
		{"zero values", func(t *testing.T) tracetest.SpanStubs {
			return tracetest.SpanStubs{{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}), Resource: resource.Empty()}}
		}},
		{"status ok, every kind", func(t *testing.T) tracetest.SpanStubs {
			var ss tracetest.SpanStubs
			for k := trace.SpanKindUnspecified; k <= trace.SpanKindConsumer+1; k++ {
				ss = append(ss, tracetest.SpanStub{Name: "k", SpanKind: k, SpanContext: spanContext(t, sid, false, ""), Status: sdktrace.Status{Code: codes.Ok}, Resource: res1, InstrumentationScope: scope2})
			}
			return ss
		}},
		{"resources and scopes", func(t *testing.T) tracetest.SpanStubs {
			a, b, c, d := full(t), full(t), full(t), full(t)
			b.InstrumentationScope = scope2
			c.Resource = res2
			d.InstrumentationScope = instrumentation.Scope{}
			return tracetest.SpanStubs{a, b, c, d, a}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans := tt.spans(t).Snapshots()
			want := officialSpans(t, spans)
			var got coltracepb.ExportTraceServiceRequest
			mustUnmarshal(t, encodeSpans(ourSpans(spans)), &got)
			// The official exporter leaves out a link's trace state,
			// which OTLP has a field for: it is checked here, then set
			// aside for the comparison.
			for _, rs := range got.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						for _, l := range s.Links {
							if l.Flags&flagIsRemote != 0 && l.TraceState != "a=b" {
								t.Errorf("link trace state %q, want a=b", l.TraceState)
							}
							l.TraceState = ""
						}
					}
				}
			}
			byResource(want.ResourceSpans, func(r *tracepb.ResourceSpans) proto.Message { return r.Resource })
			byResource(got.ResourceSpans, func(r *tracepb.ResourceSpans) proto.Message { return r.Resource })
			if d := diff(want, &got); d != "" {
				t.Errorf("request differs from the official exporter's (-official +ours):\n%s", d)
			}
		})
	}
}

func TestLogsAsTheOfficialExporter(t *testing.T) {
	record := func(f logtest.RecordFactory) sdklog.Record { return f.NewRecord() }
	full := logtest.RecordFactory{
		EventName:            "gemini_cli.api_response",
		Timestamp:            t0,
		ObservedTimestamp:    t0.Add(time.Millisecond),
		Severity:             otellog.SeverityInfo,
		SeverityText:         "INFO",
		Body:                 attribute.StringValue("the body"),
		Attributes:           every,
		TraceID:              tid,
		SpanID:               sid,
		TraceFlags:           trace.FlagsSampled,
		Resource:             res1,
		InstrumentationScope: &scope1,
		DroppedAttributes:    2,
	}
	tests := []struct {
		name    string
		records func() []sdklog.Record
	}{
		{"every field", func() []sdklog.Record { return []sdklog.Record{record(full)} }},
		{"every body", func() []sdklog.Record {
			var rs []sdklog.Record
			for _, kv := range every {
				f := full
				f.Body = kv.Value
				rs = append(rs, record(f))
			}
			return rs
		}},
		{"every severity", func() []sdklog.Record {
			var rs []sdklog.Record
			for s := otellog.Severity(0); s <= otellog.SeverityFatal4+1; s++ {
				rs = append(rs, record(logtest.RecordFactory{Severity: s, Resource: res1, InstrumentationScope: &scope2}))
			}
			return rs
		}},
		{"empty resource and scope", func() []sdklog.Record {
			return []sdklog.Record{record(logtest.RecordFactory{Body: attribute.IntValue(0)})}
		}},
		{"resources and scopes", func() []sdklog.Record {
			a, b, c := full, full, full
			b.InstrumentationScope = &scope2
			c.Resource = res2
			return []sdklog.Record{record(a), record(b), record(c), record(a)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			records := tt.records()
			want := officialLogs(t, records)
			var got collogspb.ExportLogsServiceRequest
			mustUnmarshal(t, encodeLogs(ourRecords(records)), &got)
			byResource(want.ResourceLogs, func(r *logspb.ResourceLogs) proto.Message { return r.Resource })
			byResource(got.ResourceLogs, func(r *logspb.ResourceLogs) proto.Message { return r.Resource })
			if d := diff(want, &got); d != "" {
				t.Errorf("request differs from the official exporter's (-official +ours):\n%s", d)
			}
		})
	}
}

func TestMetricsAsTheOfficialExporter(t *testing.T) {
	set := attribute.NewSet(every[:8]...)
	exI := []metricdata.Exemplar[int64]{{FilteredAttributes: every[:2], Time: t0, Value: 0, SpanID: sid[:], TraceID: tid[:]}, {Value: -3}}
	exF := []metricdata.Exemplar[float64]{{Time: t0, Value: 0.5}, {Value: 0}}
	scopeOf := func(ms ...metricdata.Metrics) *metricdata.ResourceMetrics {
		return &metricdata.ResourceMetrics{Resource: res1, ScopeMetrics: []metricdata.ScopeMetrics{{Scope: scope1, Metrics: ms}, {Scope: scope2}}}
	}
	tests := []struct {
		name    string
		rm      *metricdata.ResourceMetrics
		wantErr bool
	}{
		{name: "gauges", rm: scopeOf(
			metricdata.Metrics{Name: "g.int", Description: "d", Unit: "1", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{Attributes: set, StartTime: t0, Time: t0.Add(time.Second), Value: 7, Exemplars: exI}, {Value: 0}}}},
			metricdata.Metrics{Name: "g.float", Data: metricdata.Gauge[float64]{DataPoints: []metricdata.DataPoint[float64]{{Time: t0, Value: -1.5, Exemplars: exF}, {Value: 0}}}},
		)},
		{name: "sums", rm: scopeOf(
			metricdata.Metrics{Name: "s.delta", Data: metricdata.Sum[int64]{Temporality: metricdata.DeltaTemporality, IsMonotonic: true, DataPoints: []metricdata.DataPoint[int64]{{Attributes: set, Time: t0, Value: 3}}}},
			metricdata.Metrics{Name: "s.cumulative", Data: metricdata.Sum[float64]{Temporality: metricdata.CumulativeTemporality, DataPoints: []metricdata.DataPoint[float64]{{Value: 2.5}}}},
			metricdata.Metrics{Name: "s.empty", Data: metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality}},
		)},
		{name: "histograms", rm: scopeOf(
			metricdata.Metrics{Name: "h.int", Unit: "ms", Data: metricdata.Histogram[int64]{Temporality: metricdata.CumulativeTemporality, DataPoints: []metricdata.HistogramDataPoint[int64]{
				{Attributes: set, StartTime: t0, Time: t0, Count: 3, Bounds: []float64{0, 5, 10}, BucketCounts: []uint64{1, 0, 2, 0}, Min: metricdata.NewExtrema[int64](0), Max: metricdata.NewExtrema[int64](12), Sum: 13, Exemplars: exI},
				{Count: 0},
			}}},
			metricdata.Metrics{Name: "h.float", Data: metricdata.Histogram[float64]{Temporality: metricdata.DeltaTemporality, DataPoints: []metricdata.HistogramDataPoint[float64]{{Count: 1, Sum: 0.25, Bounds: []float64{1}, BucketCounts: []uint64{1, 0}, Min: metricdata.NewExtrema(0.25), Exemplars: exF}}}},
		)},
		{name: "exponential histograms", rm: scopeOf(
			metricdata.Metrics{Name: "e.int", Data: metricdata.ExponentialHistogram[int64]{Temporality: metricdata.CumulativeTemporality, DataPoints: []metricdata.ExponentialHistogramDataPoint[int64]{
				{Attributes: set, StartTime: t0, Time: t0, Count: 5, Sum: 20, Scale: -3, ZeroCount: 1, ZeroThreshold: 0.001, Min: metricdata.NewExtrema[int64](-2), Max: metricdata.NewExtrema[int64](9),
					PositiveBucket: metricdata.ExponentialBucket{Offset: -2, Counts: []uint64{1, 300, 0}}, NegativeBucket: metricdata.ExponentialBucket{Offset: 4, Counts: []uint64{1}}, Exemplars: exI},
				{},
			}}},
			metricdata.Metrics{Name: "e.float", Data: metricdata.ExponentialHistogram[float64]{Temporality: metricdata.DeltaTemporality, DataPoints: []metricdata.ExponentialHistogramDataPoint[float64]{{Count: 1, Sum: 1.5, Scale: 20, Exemplars: exF}}}},
		)},
		{name: "summary", rm: scopeOf(
			metricdata.Metrics{Name: "summary", Data: metricdata.Summary{DataPoints: []metricdata.SummaryDataPoint{{Attributes: set, StartTime: t0, Time: t0, Count: 4, Sum: 10, QuantileValues: []metricdata.QuantileValue{{Quantile: 0, Value: 1}, {Quantile: 0.5, Value: 0}, {Quantile: 1, Value: 4}}}, {}}}},
		)},
		{name: "unknown temporality is left out", wantErr: true, rm: scopeOf(
			metricdata.Metrics{Name: "before", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{Value: 1}}}},
			metricdata.Metrics{Name: "bad", Data: metricdata.Sum[int64]{DataPoints: []metricdata.DataPoint[int64]{{Value: 1}}}},
			metricdata.Metrics{Name: "bad.histogram", Data: metricdata.Histogram[float64]{DataPoints: []metricdata.HistogramDataPoint[float64]{{Count: 1}}}},
			metricdata.Metrics{Name: "after", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{Value: 2}}}},
		)},
		{name: "empty resource and schema", rm: &metricdata.ResourceMetrics{Resource: resource.Empty()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, wantErr := officialMetrics(t, tt.rm)
			body, err := encodeMetrics(ourMetrics(tt.rm))
			if (err != nil) != tt.wantErr || (wantErr != nil) != tt.wantErr {
				t.Errorf("error %v (the official exporter's: %v), want an error: %v", err, wantErr, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), `"bad"`) {
				t.Errorf("error %q does not name the metric left out", err)
			}
			var got colmetricspb.ExportMetricsServiceRequest
			mustUnmarshal(t, body, &got)
			if d := diff(want, &got); d != "" {
				t.Errorf("request differs from the official exporter's (-official +ours):\n%s", d)
			}
		})
	}
}
