package otlp

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The tests make their data with the OpenTelemetry SDK, which the
// official exporters they compare with take, and convert it to this
// package's types field for field.

func ourResource(r *resource.Resource) *Resource {
	if r == nil {
		return nil
	}
	return NewResource(r.SchemaURL(), r.Attributes()...)
}

func ourScope(s instrumentation.Scope) Scope {
	return Scope{Name: s.Name, Version: s.Version, SchemaURL: s.SchemaURL, Attributes: s.Attributes}
}

func ourSpanContext(c trace.SpanContext) SpanContext {
	return SpanContext{TraceID: TraceID(c.TraceID()), SpanID: SpanID(c.SpanID()), TraceFlags: TraceFlags(c.TraceFlags()),
		TraceState: c.TraceState().String(), Remote: c.IsRemote()}
}

func ourSpans(spans []sdktrace.ReadOnlySpan) []*Span {
	var out []*Span
	for _, s := range spans {
		if s == nil {
			out = append(out, nil)
			continue
		}
		o := &Span{
			Name: s.Name(), SpanContext: ourSpanContext(s.SpanContext()), Parent: ourSpanContext(s.Parent()),
			SpanKind: SpanKind(s.SpanKind()), StartTime: s.StartTime(), EndTime: s.EndTime(), Attributes: s.Attributes(),
			Status:            Status{Code: StatusCode(s.Status().Code), Description: s.Status().Description},
			DroppedAttributes: s.DroppedAttributes(), DroppedEvents: s.DroppedEvents(), DroppedLinks: s.DroppedLinks(),
			ChildSpanCount: s.ChildSpanCount(), Resource: ourResource(s.Resource()), InstrumentationScope: ourScope(s.InstrumentationScope()),
		}
		for _, e := range s.Events() {
			o.Events = append(o.Events, Event{Name: e.Name, Attributes: e.Attributes, DroppedAttributeCount: e.DroppedAttributeCount, Time: e.Time})
		}
		for _, l := range s.Links() {
			o.Links = append(o.Links, Link{SpanContext: ourSpanContext(l.SpanContext), Attributes: l.Attributes, DroppedAttributeCount: l.DroppedAttributeCount})
		}
		out = append(out, o)
	}
	return out
}

func ourRecords(records []sdklog.Record) []*LogRecord {
	var out []*LogRecord
	for i := range records {
		r := &records[i]
		o := &LogRecord{
			Timestamp: r.Timestamp(), ObservedTimestamp: r.ObservedTimestamp(), EventName: r.EventName(),
			Severity: Severity(r.Severity()), SeverityText: r.SeverityText(), Body: r.Body(),
			TraceID: TraceID(r.TraceID()), SpanID: SpanID(r.SpanID()), TraceFlags: TraceFlags(r.TraceFlags()),
			Resource: ourResource(r.Resource()), Scope: ourScope(r.InstrumentationScope()), DroppedAttributes: r.DroppedAttributes(),
		}
		r.WalkAttributes(func(kv attribute.KeyValue) bool {
			o.Attributes = append(o.Attributes, kv)
			return true
		})
		out = append(out, o)
	}
	return out
}

func ourMetrics(rm *metricdata.ResourceMetrics) *ResourceMetrics {
	o := &ResourceMetrics{Resource: ourResource(rm.Resource)}
	for _, sm := range rm.ScopeMetrics {
		s := ScopeMetrics{Scope: ourScope(sm.Scope)}
		for _, m := range sm.Metrics {
			s.Metrics = append(s.Metrics, Metrics{Name: m.Name, Description: m.Description, Unit: m.Unit, Data: ourData(m.Data)})
		}
		o.ScopeMetrics = append(o.ScopeMetrics, s)
	}
	return o
}

func ourData(d metricdata.Aggregation) any {
	switch d := d.(type) {
	case metricdata.Gauge[int64]:
		return Gauge[int64]{DataPoints: ourPoints(d.DataPoints)}
	case metricdata.Gauge[float64]:
		return Gauge[float64]{DataPoints: ourPoints(d.DataPoints)}
	case metricdata.Sum[int64]:
		return Sum[int64]{DataPoints: ourPoints(d.DataPoints), Temporality: Temporality(d.Temporality), IsMonotonic: d.IsMonotonic}
	case metricdata.Sum[float64]:
		return Sum[float64]{DataPoints: ourPoints(d.DataPoints), Temporality: Temporality(d.Temporality), IsMonotonic: d.IsMonotonic}
	case metricdata.Histogram[int64]:
		return Histogram[int64]{DataPoints: ourHistPoints(d.DataPoints), Temporality: Temporality(d.Temporality)}
	case metricdata.Histogram[float64]:
		return Histogram[float64]{DataPoints: ourHistPoints(d.DataPoints), Temporality: Temporality(d.Temporality)}
	case metricdata.ExponentialHistogram[int64]:
		return ExponentialHistogram[int64]{DataPoints: ourExpPoints(d.DataPoints), Temporality: Temporality(d.Temporality)}
	case metricdata.ExponentialHistogram[float64]:
		return ExponentialHistogram[float64]{DataPoints: ourExpPoints(d.DataPoints), Temporality: Temporality(d.Temporality)}
	case metricdata.Summary:
		var s Summary
		for _, p := range d.DataPoints {
			q := SummaryDataPoint{Attributes: p.Attributes, StartTime: p.StartTime, Time: p.Time, Count: p.Count, Sum: p.Sum}
			for _, v := range p.QuantileValues {
				q.QuantileValues = append(q.QuantileValues, QuantileValue(v))
			}
			s.DataPoints = append(s.DataPoints, q)
		}
		return s
	}
	return d
}

func ourPoints[N int64 | float64](ps []metricdata.DataPoint[N]) []DataPoint[N] {
	var out []DataPoint[N]
	for _, p := range ps {
		out = append(out, DataPoint[N]{Attributes: p.Attributes, StartTime: p.StartTime, Time: p.Time, Value: p.Value, Exemplars: ourExemplars(p.Exemplars)})
	}
	return out
}

func ourHistPoints[N int64 | float64](ps []metricdata.HistogramDataPoint[N]) []HistogramDataPoint[N] {
	var out []HistogramDataPoint[N]
	for _, p := range ps {
		out = append(out, HistogramDataPoint[N]{Attributes: p.Attributes, StartTime: p.StartTime, Time: p.Time, Count: p.Count,
			Bounds: p.Bounds, BucketCounts: p.BucketCounts, Min: ourExtrema(p.Min), Max: ourExtrema(p.Max), Sum: p.Sum, Exemplars: ourExemplars(p.Exemplars)})
	}
	return out
}

func ourExpPoints[N int64 | float64](ps []metricdata.ExponentialHistogramDataPoint[N]) []ExponentialHistogramDataPoint[N] {
	var out []ExponentialHistogramDataPoint[N]
	for _, p := range ps {
		out = append(out, ExponentialHistogramDataPoint[N]{Attributes: p.Attributes, StartTime: p.StartTime, Time: p.Time, Count: p.Count,
			Min: ourExtrema(p.Min), Max: ourExtrema(p.Max), Sum: p.Sum, Scale: p.Scale, ZeroCount: p.ZeroCount,
			PositiveBucket: ExponentialBucket(p.PositiveBucket), NegativeBucket: ExponentialBucket(p.NegativeBucket),
			ZeroThreshold: p.ZeroThreshold, Exemplars: ourExemplars(p.Exemplars)})
	}
	return out
}

func ourExtrema[N int64 | float64](e metricdata.Extrema[N]) Extrema[N] {
	if v, ok := e.Value(); ok {
		return NewExtrema(v)
	}
	return Extrema[N]{}
}

func ourExemplars[N int64 | float64](xs []metricdata.Exemplar[N]) []Exemplar[N] {
	var out []Exemplar[N]
	for _, x := range xs {
		out = append(out, Exemplar[N](x))
	}
	return out
}
