package otlp

import (
	"encoding/hex"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"
)

// The data this package exports: spans, log records and metrics as
// Castor's telemetry pipeline records them. The types have the fields
// (names, order, JSON forms) of the OpenTelemetry Go SDK's read-only
// spans, log records and metricdata, which Castor used before it had
// its own pipeline: the outfile writes them with encoding/json, byte for
// byte as the SDK's stdout exporters did. Attributes are the API's
// attribute values, which the Gemini API client links anyway.

// TraceID is a W3C trace id; its JSON form is lowercase hex.
type TraceID [16]byte

// SpanID is a W3C span id; its JSON form is lowercase hex.
type SpanID [8]byte

// IsValid says whether t is not all zeros.
func (t TraceID) IsValid() bool { return t != TraceID{} }

// IsValid says whether s is not all zeros.
func (s SpanID) IsValid() bool { return s != SpanID{} }

// MarshalJSON writes t as hex.
func (t TraceID) MarshalJSON() ([]byte, error) { return json.Marshal(hex.EncodeToString(t[:])) }

// MarshalJSON writes s as hex.
func (s SpanID) MarshalJSON() ([]byte, error) { return json.Marshal(hex.EncodeToString(s[:])) }

// TraceFlags are the W3C trace flags; its JSON form is two hex digits.
type TraceFlags byte

// FlagsSampled marks a sampled trace.
const FlagsSampled TraceFlags = 1

// MarshalJSON writes f as two hex digits.
func (f TraceFlags) MarshalJSON() ([]byte, error) {
	return json.Marshal(hex.EncodeToString([]byte{byte(f)}))
}

// SpanContext identifies a span.
type SpanContext struct {
	TraceID    TraceID
	SpanID     SpanID
	TraceFlags TraceFlags
	// TraceState is the W3C tracestate header's value.
	TraceState string
	// Remote says the context came from another process.
	Remote bool
}

// IsValid says whether both ids are set.
func (c SpanContext) IsValid() bool { return c.TraceID.IsValid() && c.SpanID.IsValid() }

// IsSampled says whether the sampled flag is set.
func (c SpanContext) IsSampled() bool { return c.TraceFlags&FlagsSampled != 0 }

// SpanKind is OTLP's span kind (Castor's spans are SpanKindInternal).
type SpanKind int

// The span kinds.
const (
	SpanKindUnspecified SpanKind = iota
	SpanKindInternal
	SpanKindServer
	SpanKindClient
	SpanKindProducer
	SpanKindConsumer
)

// StatusCode is a span's status, numbered as the OpenTelemetry Go API
// numbers it (not as OTLP does).
type StatusCode uint32

// The status codes.
const (
	StatusUnset StatusCode = iota
	StatusError
	StatusOK
)

// MarshalJSON writes the code's name.
func (c *StatusCode) MarshalJSON() ([]byte, error) {
	return json.Marshal([...]string{"Unset", "Error", "Ok"}[min(*c, StatusOK)])
}

// Status is a span's status: a description only for an error.
type Status struct {
	Code        StatusCode
	Description string
}

// Event is a span's event.
type Event struct {
	Name                  string
	Attributes            []attribute.KeyValue
	DroppedAttributeCount int
	Time                  time.Time
}

// Link is a span's link to another span.
type Link struct {
	SpanContext           SpanContext
	Attributes            []attribute.KeyValue
	DroppedAttributeCount int
}

// Resource is what produced the data: service.name and the like.
type Resource struct {
	attrs     attribute.Set
	schemaURL string
}

// NewResource makes a resource of kvs (the last of a key wins).
func NewResource(schemaURL string, kvs ...attribute.KeyValue) *Resource {
	return &Resource{attrs: attribute.NewSet(kvs...), schemaURL: schemaURL}
}

// Set is the resource's attributes, sorted by key.
func (r *Resource) Set() *attribute.Set {
	if r == nil {
		return attribute.EmptySet()
	}
	return &r.attrs
}

// Len is the number of attributes.
func (r *Resource) Len() int { return r.Set().Len() }

// SchemaURL is the resource's schema URL.
func (r *Resource) SchemaURL() string {
	if r == nil {
		return ""
	}
	return r.schemaURL
}

// MarshalJSON writes the attributes as a list of keys and values.
func (r *Resource) MarshalJSON() ([]byte, error) { return r.Set().MarshalJSON() }

// Scope is the instrumentation scope: what recorded the data.
type Scope struct {
	Name       string
	Version    string
	SchemaURL  string
	Attributes attribute.Set
}

// Span is an ended span.
type Span struct {
	Name                 string
	SpanContext          SpanContext
	Parent               SpanContext
	SpanKind             SpanKind
	StartTime            time.Time
	EndTime              time.Time
	Attributes           []attribute.KeyValue
	Events               []Event
	Links                []Link
	Status               Status
	DroppedAttributes    int
	DroppedEvents        int
	DroppedLinks         int
	ChildSpanCount       int
	Resource             *Resource
	InstrumentationScope Scope
}

// Severity is a log record's severity number (SeverityInfo is 9).
type Severity int

// SeverityInfo is the severity of Castor's event records.
const SeverityInfo Severity = 9

// LogRecord is one log record.
type LogRecord struct {
	Timestamp         time.Time
	ObservedTimestamp time.Time
	EventName         string
	Severity          Severity
	SeverityText      string
	Body              attribute.Value
	Attributes        []attribute.KeyValue
	TraceID           TraceID
	SpanID            SpanID
	TraceFlags        TraceFlags
	Resource          *Resource
	Scope             Scope
	DroppedAttributes int
}

// ResourceMetrics is one collection of metrics.
type ResourceMetrics struct {
	Resource     *Resource
	ScopeMetrics []ScopeMetrics
}

// ScopeMetrics are one scope's metrics.
type ScopeMetrics struct {
	Scope   Scope
	Metrics []Metrics
}

// Metrics is one instrument's data.
type Metrics struct {
	Name        string
	Description string
	Unit        string
	// Data is a Gauge, Sum, Histogram or ExponentialHistogram of int64
	// or float64, or a Summary.
	Data any
}

// Temporality says whether points accumulate from the start or since the
// last collection.
type Temporality uint8

// The temporalities.
const (
	undefinedTemporality Temporality = iota
	CumulativeTemporality
	DeltaTemporality
)

// String is the temporality's name.
func (t Temporality) String() string {
	return [...]string{"undefinedTemporality", "CumulativeTemporality", "DeltaTemporality"}[min(t, DeltaTemporality)]
}

// MarshalText writes the temporality's name.
func (t Temporality) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Gauge is the last values measured.
type Gauge[N int64 | float64] struct {
	DataPoints []DataPoint[N]
}

// Sum is a counter's or up-down counter's sums.
type Sum[N int64 | float64] struct {
	DataPoints  []DataPoint[N]
	Temporality Temporality
	IsMonotonic bool
}

// DataPoint is one value for one attribute set.
type DataPoint[N int64 | float64] struct {
	Attributes attribute.Set
	StartTime  time.Time
	Time       time.Time
	Value      N
	Exemplars  []Exemplar[N] `json:",omitempty"`
}

// Histogram is explicit-bucket histograms.
type Histogram[N int64 | float64] struct {
	DataPoints  []HistogramDataPoint[N]
	Temporality Temporality
}

// HistogramDataPoint is one explicit-bucket histogram.
type HistogramDataPoint[N int64 | float64] struct {
	Attributes   attribute.Set
	StartTime    time.Time
	Time         time.Time
	Count        uint64
	Bounds       []float64
	BucketCounts []uint64
	Min          Extrema[N]
	Max          Extrema[N]
	Sum          N
	Exemplars    []Exemplar[N] `json:",omitempty"`
}

// ExponentialHistogram is base-2 exponential histograms.
type ExponentialHistogram[N int64 | float64] struct {
	DataPoints  []ExponentialHistogramDataPoint[N]
	Temporality Temporality
}

// ExponentialHistogramDataPoint is one base-2 exponential histogram.
type ExponentialHistogramDataPoint[N int64 | float64] struct {
	Attributes     attribute.Set
	StartTime      time.Time
	Time           time.Time
	Count          uint64
	Min            Extrema[N]
	Max            Extrema[N]
	Sum            N
	Scale          int32
	ZeroCount      uint64
	PositiveBucket ExponentialBucket
	NegativeBucket ExponentialBucket
	ZeroThreshold  float64
	Exemplars      []Exemplar[N] `json:",omitempty"`
}

// ExponentialBucket is the counts of consecutive buckets from Offset.
type ExponentialBucket struct {
	Offset int32
	Counts []uint64
}

// Extrema is a minimum or maximum, which may be undefined.
type Extrema[N int64 | float64] struct {
	value N
	valid bool
}

// NewExtrema is a defined extremum v.
func NewExtrema[N int64 | float64](v N) Extrema[N] { return Extrema[N]{value: v, valid: true} }

// Value is the extremum and whether it is defined.
func (e Extrema[N]) Value() (N, bool) { return e.value, e.valid }

// MarshalJSON writes the value, or null when undefined.
func (e *Extrema[N]) MarshalJSON() ([]byte, error) {
	if !e.valid {
		return []byte("null"), nil
	}
	return json.Marshal(e.value)
}

// Exemplar is a measurement kept with a point, with the span it was
// made in.
type Exemplar[N int64 | float64] struct {
	FilteredAttributes []attribute.KeyValue
	Time               time.Time
	Value              N
	SpanID             []byte `json:",omitempty"`
	TraceID            []byte `json:",omitempty"`
}

// Summary is quantile summaries (which Castor does not make; OTLP can
// carry them).
type Summary struct {
	DataPoints []SummaryDataPoint
}

// SummaryDataPoint is one summary.
type SummaryDataPoint struct {
	Attributes     attribute.Set
	StartTime      time.Time
	Time           time.Time
	Count          uint64
	Sum            float64
	QuantileValues []QuantileValue
}

// QuantileValue is one quantile of a summary.
type QuantileValue struct {
	Quantile float64
	Value    float64
}
