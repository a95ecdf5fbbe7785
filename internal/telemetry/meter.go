package telemetry

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/castor-dev/castor/internal/telemetry/otlp"
)

// defaultBounds are the SDK's explicit histogram buckets.
var defaultBounds = []float64{0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000}

// Base-2 exponential histograms: the SDK's defaults.
const (
	expMaxSize  = 160
	expMaxScale = 20
	expMinScale = -10
)

// meter holds the instruments and exports their data periodically, as
// the SDK's MeterProvider with a PeriodicReader did.
type meter struct {
	exp       metricExporter
	res       *otlp.Resource
	scope     otlp.Scope
	exemplars func(otlp.SpanContext) bool
	timeout   time.Duration

	mu    sync.Mutex // serializes collections
	insts []interface {
		collect(now time.Time) (otlp.Metrics, bool)
	}

	cancel context.CancelFunc
	done   chan struct{}
}

// instrument is a counter or a histogram of N, with its data points by
// attribute set, in the order each first came.
type instrument[N int64 | float64] struct {
	m                *meter
	name, desc, unit string
	kind             otlp.InstrumentKind
	temporality      otlp.Temporality
	agg              otlp.Aggregation
	mu               sync.Mutex
	start            time.Time
	points           map[attribute.Distinct]*point[N]
	order            []*point[N]
}

// point is one attribute set's aggregate.
type point[N int64 | float64] struct {
	attrs    attribute.Set
	sum      N
	count    uint64
	min, max N
	buckets  []uint64 // explicit histograms
	exp      expHist  // exponential histograms
	ex       reservoir[N]
}

func newInstrument[N int64 | float64](m *meter, kind otlp.InstrumentKind, name, desc, unit string) *instrument[N] {
	i := &instrument[N]{m: m, name: name, desc: desc, unit: unit, kind: kind,
		temporality: m.exp.Temporality(kind), agg: m.exp.Aggregation(kind),
		start: time.Now(), points: map[attribute.Distinct]*point[N]{}}
	m.mu.Lock()
	m.insts = append(m.insts, i)
	m.mu.Unlock()
	return i
}

// Add adds n to a counter.
func (i *instrument[N]) Add(ctx context.Context, n N, kv ...attribute.KeyValue) {
	i.measure(ctx, n, kv)
}

// Record records v in a histogram.
func (i *instrument[N]) Record(ctx context.Context, v N, kv ...attribute.KeyValue) {
	i.measure(ctx, v, kv)
}

func (i *instrument[N]) measure(ctx context.Context, v N, kv []attribute.KeyValue) {
	if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
		return
	}
	set := attribute.NewSet(kv...)
	i.mu.Lock()
	defer i.mu.Unlock()
	p := i.points[set.Equivalent()]
	if p == nil {
		p = &point[N]{attrs: set}
		slots := max(runtime.GOMAXPROCS(0), 1)
		switch i.agg {
		case otlp.AggregationExplicitHistogram:
			p.buckets = make([]uint64, len(defaultBounds)+1)
			slots = len(p.buckets)
		case otlp.AggregationExponentialHistogram:
			p.exp.scale = expMaxScale
			slots = min(expMaxSize, 20)
		}
		p.ex = reservoir[N]{slots: make([]otlp.Exemplar[N], slots), seen: make([]int, slots), perSlot: p.buckets != nil}
		i.points[set.Equivalent()] = p
		i.order = append(i.order, p)
	}
	slot := -1
	p.sum += v
	if i.agg != otlp.AggregationSum {
		if p.count == 0 || v < p.min {
			p.min = v
		}
		if p.count == 0 || v > p.max {
			p.max = v
		}
		p.count++
		if p.buckets != nil {
			slot = sort.SearchFloat64s(defaultBounds, float64(v))
			p.buckets[slot]++
		} else {
			p.exp.record(float64(v))
		}
	}
	if sc := spanContext(ctx); i.m.exemplars(sc) {
		x := otlp.Exemplar[N]{Time: time.Now(), Value: v}
		if sc.TraceID.IsValid() {
			x.TraceID = append([]byte(nil), sc.TraceID[:]...)
		}
		if sc.SpanID.IsValid() {
			x.SpanID = append([]byte(nil), sc.SpanID[:]...)
		}
		p.ex.offer(x, slot)
	}
}

// collect is the instrument's data, false when it has none. A delta
// instrument starts anew.
func (i *instrument[N]) collect(now time.Time) (otlp.Metrics, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	m := otlp.Metrics{Name: i.name, Description: i.desc, Unit: i.unit}
	n := len(i.order)
	switch i.agg {
	case otlp.AggregationSum:
		s := otlp.Sum[N]{Temporality: i.temporality, IsMonotonic: i.kind == otlp.KindCounter, DataPoints: make([]otlp.DataPoint[N], 0, n)}
		for _, p := range i.order {
			s.DataPoints = append(s.DataPoints, otlp.DataPoint[N]{Attributes: p.attrs, StartTime: i.start, Time: now, Value: p.sum, Exemplars: p.ex.collect()})
		}
		m.Data = s
	case otlp.AggregationExplicitHistogram:
		h := otlp.Histogram[N]{Temporality: i.temporality, DataPoints: make([]otlp.HistogramDataPoint[N], 0, n)}
		for _, p := range i.order {
			h.DataPoints = append(h.DataPoints, otlp.HistogramDataPoint[N]{Attributes: p.attrs, StartTime: i.start, Time: now,
				Count: p.count, Bounds: append([]float64(nil), defaultBounds...), BucketCounts: append([]uint64(nil), p.buckets...),
				Min: otlp.NewExtrema(p.min), Max: otlp.NewExtrema(p.max), Sum: p.sum, Exemplars: p.ex.collect()})
		}
		m.Data = h
	default:
		h := otlp.ExponentialHistogram[N]{Temporality: i.temporality, DataPoints: make([]otlp.ExponentialHistogramDataPoint[N], 0, n)}
		for _, p := range i.order {
			h.DataPoints = append(h.DataPoints, otlp.ExponentialHistogramDataPoint[N]{Attributes: p.attrs, StartTime: i.start, Time: now,
				Count: p.count, Min: otlp.NewExtrema(p.min), Max: otlp.NewExtrema(p.max), Sum: p.sum,
				Scale: p.exp.scale, ZeroCount: p.exp.zero, PositiveBucket: p.exp.pos.bucket(), NegativeBucket: p.exp.neg.bucket(),
				Exemplars: p.ex.collect()})
		}
		m.Data = h
	}
	if i.temporality == otlp.DeltaTemporality {
		i.start, i.points, i.order = now, map[attribute.Distinct]*point[N]{}, nil
	}
	return m, n > 0
}

// reservoir keeps exemplars as the SDK's default reservoirs: for an
// explicit histogram one per bucket, else a few; each slot is a uniform
// sample of the measurements offered since the last collection, and is
// kept until one replaces it.
type reservoir[N int64 | float64] struct {
	slots   []otlp.Exemplar[N]
	seen    []int // per slot for perSlot, else seen[0] for all
	perSlot bool
}

func (r *reservoir[N]) offer(x otlp.Exemplar[N], slot int) {
	if r.perSlot {
		r.seen[slot]++
		if rand.IntN(r.seen[slot]) == 0 {
			r.slots[slot] = x
		}
		return
	}
	r.seen[0]++
	if n := r.seen[0]; n <= len(r.slots) {
		r.slots[n-1] = x
	} else if j := rand.IntN(n); j < len(r.slots) {
		r.slots[j] = x
	}
}

func (r *reservoir[N]) collect() []otlp.Exemplar[N] {
	var out []otlp.Exemplar[N]
	for _, x := range r.slots {
		if !x.Time.IsZero() {
			out = append(out, x)
		}
	}
	clear(r.seen)
	return out
}

// expHist is a base-2 exponential histogram's buckets, as the SDK keeps
// them: from scale 20 down, so that at most 160 buckets a sign hold the
// values.
type expHist struct {
	scale    int32
	zero     uint64
	pos, neg expBuckets
}

type expBuckets struct {
	start  int32
	counts []uint64
}

func (h *expHist) record(v float64) {
	if v == 0 {
		h.zero++
		return
	}
	b := &h.pos
	if v < 0 {
		b = &h.neg
	}
	abs := math.Abs(v)
	bin := binOf(abs, h.scale)
	if len(b.counts) > 0 {
		lo, hi := min(int(b.start), int(bin)), max(int(b.start)+len(b.counts)-1, int(bin))
		var delta int32
		for hi-lo >= expMaxSize {
			lo, hi = lo>>1, hi>>1
			delta++
		}
		if delta > 0 {
			if h.scale-delta < expMinScale {
				return
			}
			h.scale -= delta
			h.pos.downscale(delta)
			h.neg.downscale(delta)
			bin = binOf(abs, h.scale)
		}
	}
	b.add(bin)
}

// binOf is v's bucket at scale, as the SDK computes it.
func binOf(v float64, scale int32) int32 {
	frac, e := math.Frexp(v)
	exp := int32(e)
	if scale <= 0 {
		correction := int32(1)
		if frac == .5 {
			correction = 2
		}
		return (exp - correction) >> -scale
	}
	return exp<<scale + int32(math.Log(frac)*math.Ldexp(math.Log2E, int(scale))) - 1
}

func (b *expBuckets) add(bin int32) {
	if len(b.counts) == 0 {
		b.start, b.counts = bin, []uint64{1}
		return
	}
	if bin < b.start {
		b.counts = append(make([]uint64, b.start-bin), b.counts...)
		b.start = bin
	}
	if i := int(bin - b.start); i >= len(b.counts) {
		b.counts = append(b.counts, make([]uint64, i-len(b.counts)+1)...)
	}
	b.counts[bin-b.start]++
}

func (b *expBuckets) downscale(by int32) {
	start := b.start >> by
	if len(b.counts) == 0 {
		b.start = start
		return
	}
	out := make([]uint64, (b.start+int32(len(b.counts))-1)>>by-start+1)
	for i, c := range b.counts {
		out[(b.start+int32(i))>>by-start] += c
	}
	b.start, b.counts = start, out
}

func (b *expBuckets) bucket() otlp.ExponentialBucket {
	return otlp.ExponentialBucket{Offset: b.start, Counts: append([]uint64(nil), b.counts...)}
}

// newMeter starts the periodic export every interval.
func newMeter(exp metricExporter, res *otlp.Resource, scope otlp.Scope, s envSettings, failed func(error)) *meter {
	ctx, cancel := context.WithCancel(context.Background())
	m := &meter{exp: exp, res: res, scope: scope, exemplars: s.exemplars, timeout: s.mTimeout, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		t := time.NewTicker(s.interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				// An export that Shutdown cut short is not a failure
				// to say: Shutdown exports again.
				if err := m.export(ctx); err != nil && ctx.Err() == nil {
					failed(err)
				}
			}
		}
	}()
	return m
}

// export collects every instrument's data and exports it, within the
// export timeout.
func (m *meter) export(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	m.mu.Lock()
	now := time.Now()
	rm := &otlp.ResourceMetrics{Resource: m.res, ScopeMetrics: []otlp.ScopeMetrics{}}
	sm := otlp.ScopeMetrics{Scope: m.scope}
	for _, i := range m.insts {
		if d, ok := i.collect(now); ok {
			sm.Metrics = append(sm.Metrics, d)
		}
	}
	m.mu.Unlock()
	if len(sm.Metrics) > 0 {
		rm.ScopeMetrics = append(rm.ScopeMetrics, sm)
	}
	return m.exp.Export(ctx, rm)
}

// shutdown stops the periodic export and exports what is left, within
// ctx; the exporter is not stopped here.
func (m *meter) shutdown(ctx context.Context) error {
	m.cancel()
	<-m.done
	return m.export(ctx)
}
