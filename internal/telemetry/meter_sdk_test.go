package telemetry

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/castor-dev/castor/internal/telemetry/otlp"
)

// prefs is a metric exporter that only states its choices.
type prefs struct{ agg otlp.Aggregation }

func (p prefs) Temporality(otlp.InstrumentKind) otlp.Temporality  { return otlp.CumulativeTemporality }
func (p prefs) Aggregation(otlp.InstrumentKind) otlp.Aggregation  { return p.agg }
func (prefs) Export(context.Context, *otlp.ResourceMetrics) error { return nil }
func (prefs) Shutdown(context.Context) error                      { return nil }

// sdkData records values on an instrument of the OpenTelemetry SDK, which
// Castor's pipeline replaces, and returns what its reader collects.
func sdkData(t *testing.T, kind otlp.InstrumentKind, agg otlp.Aggregation, values []float64) metricdata.Aggregation {
	t.Helper()
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	opts := []sdkmetric.Option{sdkmetric.WithReader(reader), sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter)}
	if agg == otlp.AggregationExponentialHistogram {
		opts = append(opts, sdkmetric.WithView(sdkmetric.NewView(sdkmetric.Instrument{Name: "m"},
			sdkmetric.Stream{Aggregation: sdkmetric.AggregationBase2ExponentialHistogram{MaxSize: expMaxSize, MaxScale: expMaxScale}})))
	}
	mp := sdkmetric.NewMeterProvider(opts...)
	m := mp.Meter("test")
	switch kind {
	case otlp.KindCounter:
		c, _ := m.Float64Counter("m")
		for _, v := range values {
			c.Add(ctx, v)
		}
	case otlp.KindUpDownCounter:
		c, _ := m.Float64UpDownCounter("m")
		for _, v := range values {
			c.Add(ctx, v)
		}
	default:
		h, _ := m.Float64Histogram("m")
		for _, v := range values {
			h.Record(ctx, v)
		}
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	return rm.ScopeMetrics[0].Metrics[0].Data
}

// TestMeterMatchesSDK: Castor's instruments aggregate as the SDK's did:
// sums and their monotonicity, explicit buckets (a value on a bound
// counts in the bucket it closes), count, sum, min and max, and base-2
// exponential scale, zero count and buckets, also once a wide spread
// lowers the scale.
func TestMeterMatchesSDK(t *testing.T) {
	tests := []struct {
		name   string
		kind   otlp.InstrumentKind
		agg    otlp.Aggregation
		values []float64
	}{
		{"counter", otlp.KindCounter, otlp.AggregationSum, []float64{1, 2.5, 7}},
		{"up-down counter", otlp.KindUpDownCounter, otlp.AggregationSum, []float64{5, -2}},
		{"explicit buckets", otlp.KindHistogram, otlp.AggregationExplicitHistogram, []float64{0, 5, 5.5, 10, 99, 10000, 10001, 3}},
		{"explicit, falling then rising", otlp.KindHistogram, otlp.AggregationExplicitHistogram, []float64{7, 2, 9, 1, 400}},
		{"exponential", otlp.KindHistogram, otlp.AggregationExponentialHistogram, []float64{1, 2, 3, 0.5, 0, 4, 1024}},
		{"exponential, negative", otlp.KindHistogram, otlp.AggregationExponentialHistogram, []float64{-1, -3, 2}},
		{"exponential, wide spread", otlp.KindHistogram, otlp.AggregationExponentialHistogram, []float64{1e-9, 1, 1e9, 0.25, 8}},
		{"exponential, powers of two", otlp.KindHistogram, otlp.AggregationExponentialHistogram, []float64{0.5, 1, 2, 4, 8, 1 << 20}},
		{"exponential, powers of two at scale 0 and below", otlp.KindHistogram, otlp.AggregationExponentialHistogram, []float64{0x1p-200, 0.5, 1, 2, 0x1p200}},
		{"exponential, falling one bucket at a time", otlp.KindHistogram, otlp.AggregationExponentialHistogram, []float64{2, 1.9999987, 1.9999974, 1.9999961}},
		{"exponential, a span of 160 buckets", otlp.KindHistogram, otlp.AggregationExponentialHistogram, []float64{1, 0x1p80}},
		{"exponential, a span of 159 buckets", otlp.KindHistogram, otlp.AggregationExponentialHistogram, []float64{1, 0x1p79, 0x1.8p79}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &meter{exp: prefs{tt.agg}, exemplars: func(otlp.SpanContext) bool { return false }}
			inst := newInstrument[float64](m, tt.kind, "m", "", "")
			for _, v := range tt.values {
				inst.measure(context.Background(), v, nil)
			}
			got, _ := inst.collect(time.Now())
			want := sdkData(t, tt.kind, tt.agg, tt.values)
			if g, w := summary(got.Data), summary(want); g != w {
				t.Errorf("Castor's:\n%s\nthe SDK's:\n%s", g, w)
			}
		})
	}
}

// summary prints what both pipelines must agree on, from either's data.
func summary(data any) string {
	ext := func(v float64, ok bool) string { return fmt.Sprintf("%v/%v", v, ok) }
	switch d := data.(type) {
	case otlp.Sum[float64]:
		p := d.DataPoints[0]
		return fmt.Sprintf("sum monotonic=%v value=%v", d.IsMonotonic, p.Value)
	case metricdata.Sum[float64]:
		p := d.DataPoints[0]
		return fmt.Sprintf("sum monotonic=%v value=%v", d.IsMonotonic, p.Value)
	case otlp.Histogram[float64]:
		p := d.DataPoints[0]
		return fmt.Sprintf("histogram count=%d sum=%v min=%s max=%s bounds=%v buckets=%v", p.Count, p.Sum, ext(p.Min.Value()), ext(p.Max.Value()), p.Bounds, p.BucketCounts)
	case metricdata.Histogram[float64]:
		p := d.DataPoints[0]
		return fmt.Sprintf("histogram count=%d sum=%v min=%s max=%s bounds=%v buckets=%v", p.Count, p.Sum, ext(p.Min.Value()), ext(p.Max.Value()), p.Bounds, p.BucketCounts)
	case otlp.ExponentialHistogram[float64]:
		p := d.DataPoints[0]
		return fmt.Sprintf("exponential count=%d sum=%v min=%s max=%s scale=%d zero=%d pos=%d%v neg=%d%v", p.Count, p.Sum, ext(p.Min.Value()), ext(p.Max.Value()),
			p.Scale, p.ZeroCount, p.PositiveBucket.Offset, trim(p.PositiveBucket.Counts), p.NegativeBucket.Offset, trim(p.NegativeBucket.Counts))
	case metricdata.ExponentialHistogram[float64]:
		p := d.DataPoints[0]
		return fmt.Sprintf("exponential count=%d sum=%v min=%s max=%s scale=%d zero=%d pos=%d%v neg=%d%v", p.Count, p.Sum, ext(p.Min.Value()), ext(p.Max.Value()),
			p.Scale, p.ZeroCount, p.PositiveBucket.Offset, trim(p.PositiveBucket.Counts), p.NegativeBucket.Offset, trim(p.NegativeBucket.Counts))
	}
	return fmt.Sprintf("%T", data)
}

// trim drops an empty bucket list's nil/empty difference.
func trim(c []uint64) []uint64 {
	if len(c) == 0 {
		return nil
	}
	return slices.Clone(c)
}

// TestReservoir: a reservoir keeps every measurement while it has free
// slots, and after a collection samples anew, so that the measurement
// after each collection is always among the next exemplars.
func TestReservoir(t *testing.T) {
	ex := func(v float64) otlp.Exemplar[float64] { return otlp.Exemplar[float64]{Time: time.Unix(1, 0), Value: v} }
	values := func(xs []otlp.Exemplar[float64]) []float64 {
		var out []float64
		for _, x := range xs {
			out = append(out, x.Value)
		}
		slices.Sort(out)
		return out
	}
	for round := range 20 {
		r := reservoir[float64]{slots: make([]otlp.Exemplar[float64], 4), seen: make([]int, 1)}
		for v := range 4 {
			r.offer(ex(float64(v)), -1)
		}
		if got := values(r.collect()); !slices.Equal(got, []float64{0, 1, 2, 3}) {
			t.Fatalf("round %d: exemplars %v, want all four measurements", round, got)
		}
	}
	r := reservoir[float64]{slots: make([]otlp.Exemplar[float64], 2), seen: make([]int, 1)}
	for v := range 50 {
		r.offer(ex(float64(v)), -1)
		if got := values(r.collect()); !slices.Contains(got, float64(v)) {
			t.Fatalf("measurement %d, the only one since the last collection, not among exemplars %v", v, got)
		}
	}
}
