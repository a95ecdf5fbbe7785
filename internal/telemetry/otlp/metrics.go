package otlp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of opentelemetry.proto.metrics.v1 and its collector.
const (
	reqResourceMetrics = 1
	rmResource         = 1
	rmScopeMetrics     = 2
	rmSchemaURL        = 3
	smScope            = 1
	smMetrics          = 2
	smSchemaURL        = 3

	metricName        = 1
	metricDescription = 2
	metricUnit        = 3
	metricGauge       = 5
	metricSum         = 7
	metricHistogram   = 9
	metricExpHist     = 10
	metricSummary     = 11

	dataPoints     = 1 // Gauge, Sum, Histogram, ExponentialHistogram, Summary
	aggTemporality = 2 // Sum, Histogram, ExponentialHistogram
	sumMonotonic   = 3

	ndpStart     = 2
	ndpTime      = 3
	ndpAsDouble  = 4
	ndpExemplars = 5
	ndpAsInt     = 6
	ndpAttrs     = 7

	hdpStart     = 2
	hdpTime      = 3
	hdpCount     = 4
	hdpSum       = 5
	hdpBuckets   = 6
	hdpBounds    = 7
	hdpExemplars = 8
	hdpAttrs     = 9
	hdpMin       = 11
	hdpMax       = 12

	edpAttrs         = 1
	edpStart         = 2
	edpTime          = 3
	edpCount         = 4
	edpSum           = 5
	edpScale         = 6
	edpZeroCount     = 7
	edpPositive      = 8
	edpNegative      = 9
	edpExemplars     = 11
	edpMin           = 12
	edpMax           = 13
	edpZeroThreshold = 14
	bucketsOffset    = 1
	bucketsCounts    = 2

	sdpStart     = 2
	sdpTime      = 3
	sdpCount     = 4
	sdpSum       = 5
	sdpQuantiles = 6
	sdpAttrs     = 7
	quantileQ    = 1
	quantileV    = 2

	exTime     = 2
	exAsDouble = 3
	exSpanID   = 4
	exTraceID  = 5
	exAsInt    = 6
	exAttrs    = 7

	// AggregationTemporality.
	temporalityDelta      = 1
	temporalityCumulative = 2
)

// MetricExporter sends metrics as OTLP ExportMetricsServiceRequests.
type MetricExporter struct {
	c     *client
	prefs metricPrefs
}

// Temporality is the temporality of kind's instrument: cumulative unless
// OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE says otherwise, as
// the official exporters default.
func (e *MetricExporter) Temporality(k InstrumentKind) Temporality {
	return e.prefs.temporality(k)
}

// Aggregation is the aggregation of kind's instrument: the SDK's default
// unless OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION asks for
// exponential histograms.
func (e *MetricExporter) Aggregation(k InstrumentKind) Aggregation {
	return e.prefs.aggregation(k)
}

// Export sends rm in one request. A metric whose data or temporality is
// unknown is left out and named in the error, the rest is sent.
func (e *MetricExporter) Export(ctx context.Context, rm *ResourceMetrics) error {
	body, encErr := encodeMetrics(rm)
	if err := e.c.export(ctx, body); err != nil {
		if encErr != nil {
			return fmt.Errorf("metrics export (incomplete: %w): %w", encErr, err)
		}
		return fmt.Errorf("metrics export: %w", err)
	}
	return encErr
}

// ForceFlush has nothing to do: an export is sent before it returns.
func (e *MetricExporter) ForceFlush(ctx context.Context) error { return ctx.Err() }

// Shutdown stops the exporter, interrupting an export under way; later
// exports fail.
func (e *MetricExporter) Shutdown(ctx context.Context) error { return e.c.shutdown(ctx) }

// encodeMetrics is the ExportMetricsServiceRequest for rm, and the
// metrics it could not encode.
func encodeMetrics(rm *ResourceMetrics) ([]byte, error) {
	e := enc{b: make([]byte, 0, 4096)}
	var errs []error
	r := e.open(reqResourceMetrics)
	e.resource(rmResource, rm.Resource)
	for _, sm := range rm.ScopeMetrics {
		s := e.open(rmScopeMetrics)
		e.scope(smScope, sm.Scope)
		for _, m := range sm.Metrics {
			mark := len(e.b)
			if err := e.metric(m); err != nil {
				e.b = e.b[:mark]
				errs = append(errs, fmt.Errorf("metric %q: %w", m.Name, err))
			}
		}
		e.stringNZ(smSchemaURL, sm.Scope.SchemaURL)
		e.close(s)
	}
	e.stringNZ(rmSchemaURL, rm.Resource.SchemaURL())
	e.close(r)
	return e.b, errors.Join(errs...)
}

// errUnknown is a kind of data the SDK can make that OTLP has no place for.
var errUnknown = errors.New("unknown aggregation or temporality")

// metric writes one Metric field.
func (e *enc) metric(m Metrics) error {
	f := e.open(smMetrics)
	e.stringNZ(metricName, m.Name)
	e.stringNZ(metricDescription, m.Description)
	e.stringNZ(metricUnit, m.Unit)
	var err error
	switch d := m.Data.(type) {
	case Gauge[int64]:
		gauge(e, d)
	case Gauge[float64]:
		gauge(e, d)
	case Sum[int64]:
		err = sum(e, d)
	case Sum[float64]:
		err = sum(e, d)
	case Histogram[int64]:
		err = histogram(e, d)
	case Histogram[float64]:
		err = histogram(e, d)
	case ExponentialHistogram[int64]:
		err = expHistogram(e, d)
	case ExponentialHistogram[float64]:
		err = expHistogram(e, d)
	case Summary:
		summary(e, d)
	default:
		err = fmt.Errorf("%w: %T", errUnknown, d)
	}
	e.close(f)
	return err
}

func temporality(t Temporality) (uint64, error) {
	switch t {
	case DeltaTemporality:
		return temporalityDelta, nil
	case CumulativeTemporality:
		return temporalityCumulative, nil
	}
	return 0, fmt.Errorf("%w: temporality %s", errUnknown, t)
}

func gauge[N int64 | float64](e *enc, g Gauge[N]) {
	m := e.open(metricGauge)
	numberPoints(e, g.DataPoints)
	e.close(m)
}

func sum[N int64 | float64](e *enc, s Sum[N]) error {
	t, err := temporality(s.Temporality)
	if err != nil {
		return err
	}
	m := e.open(metricSum)
	numberPoints(e, s.DataPoints)
	e.varint(aggTemporality, t)
	e.varintNZ(sumMonotonic, boolBit(s.IsMonotonic))
	e.close(m)
	return nil
}

func numberPoints[N int64 | float64](e *enc, pts []DataPoint[N]) {
	for _, p := range pts {
		m := e.open(dataPoints)
		e.fixed64NZ(ndpStart, unixNano(p.StartTime))
		e.fixed64NZ(ndpTime, unixNano(p.Time))
		asDouble, asInt := number(p.Value)
		if asInt == nil {
			e.double(ndpAsDouble, asDouble)
		}
		exemplars(e, ndpExemplars, p.Exemplars)
		if asInt != nil {
			e.fixed64(ndpAsInt, uint64(*asInt))
		}
		e.attrSet(ndpAttrs, &p.Attributes)
		e.close(m)
	}
}

// number says which of the oneof's members v is: a float64, or an int64
// (non-nil).
func number[N int64 | float64](v N) (float64, *int64) {
	switch x := any(v).(type) {
	case int64:
		return 0, &x
	case float64:
		return x, nil
	}
	panic("unreachable")
}

func exemplars[N int64 | float64](e *enc, num protowire.Number, exs []Exemplar[N]) {
	for _, x := range exs {
		m := e.open(num)
		e.fixed64NZ(exTime, unixNano(x.Time))
		asDouble, asInt := number(x.Value)
		if asInt == nil {
			e.double(exAsDouble, asDouble)
		}
		e.bytesNZ(exSpanID, x.SpanID)
		e.bytesNZ(exTraceID, x.TraceID)
		if asInt != nil {
			e.fixed64(exAsInt, uint64(*asInt))
		}
		e.keyValues(exAttrs, x.FilteredAttributes)
		e.close(m)
	}
}

func histogram[N int64 | float64](e *enc, h Histogram[N]) error {
	t, err := temporality(h.Temporality)
	if err != nil {
		return err
	}
	m := e.open(metricHistogram)
	for _, p := range h.DataPoints {
		d := e.open(dataPoints)
		e.fixed64NZ(hdpStart, unixNano(p.StartTime))
		e.fixed64NZ(hdpTime, unixNano(p.Time))
		e.fixed64NZ(hdpCount, p.Count)
		e.double(hdpSum, float64(p.Sum)) // optional: always present
		e.packedFixed64(hdpBuckets, len(p.BucketCounts), func(i int) uint64 { return p.BucketCounts[i] })
		e.packedFixed64(hdpBounds, len(p.Bounds), func(i int) uint64 { return math.Float64bits(p.Bounds[i]) })
		exemplars(e, hdpExemplars, p.Exemplars)
		e.attrSet(hdpAttrs, &p.Attributes)
		minMax(e, hdpMin, hdpMax, p.Min, p.Max)
		e.close(d)
	}
	e.varint(aggTemporality, t)
	e.close(m)
	return nil
}

func minMax[N int64 | float64](e *enc, minNum, maxNum protowire.Number, lo, hi Extrema[N]) {
	if v, ok := lo.Value(); ok {
		e.double(minNum, float64(v))
	}
	if v, ok := hi.Value(); ok {
		e.double(maxNum, float64(v))
	}
}

func expHistogram[N int64 | float64](e *enc, h ExponentialHistogram[N]) error {
	t, err := temporality(h.Temporality)
	if err != nil {
		return err
	}
	m := e.open(metricExpHist)
	for _, p := range h.DataPoints {
		d := e.open(dataPoints)
		e.attrSet(edpAttrs, &p.Attributes)
		e.fixed64NZ(edpStart, unixNano(p.StartTime))
		e.fixed64NZ(edpTime, unixNano(p.Time))
		e.fixed64NZ(edpCount, p.Count)
		e.double(edpSum, float64(p.Sum))
		e.sint32NZ(edpScale, p.Scale)
		e.fixed64NZ(edpZeroCount, p.ZeroCount)
		for _, b := range []struct {
			num protowire.Number
			b   ExponentialBucket
		}{{edpPositive, p.PositiveBucket}, {edpNegative, p.NegativeBucket}} {
			bm := e.open(b.num)
			e.sint32NZ(bucketsOffset, b.b.Offset)
			e.packedVarint(bucketsCounts, b.b.Counts)
			e.close(bm)
		}
		exemplars(e, edpExemplars, p.Exemplars)
		minMax(e, edpMin, edpMax, p.Min, p.Max)
		e.doubleNZ(edpZeroThreshold, p.ZeroThreshold)
		e.close(d)
	}
	e.varint(aggTemporality, t)
	e.close(m)
	return nil
}

func summary(e *enc, s Summary) {
	m := e.open(metricSummary)
	for _, p := range s.DataPoints {
		d := e.open(dataPoints)
		e.fixed64NZ(sdpStart, unixNano(p.StartTime))
		e.fixed64NZ(sdpTime, unixNano(p.Time))
		e.fixed64NZ(sdpCount, p.Count)
		e.doubleNZ(sdpSum, p.Sum)
		for _, q := range p.QuantileValues {
			qm := e.open(sdpQuantiles)
			e.doubleNZ(quantileQ, q.Quantile)
			e.doubleNZ(quantileV, q.Value)
			e.close(qm)
		}
		e.attrSet(sdpAttrs, &p.Attributes)
		e.close(d)
	}
	e.close(m)
}
