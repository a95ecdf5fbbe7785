package telemetry

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/telemetry/otlp"
)

// memory is an in-memory exporter of the three signals: what the
// pipeline hands its exporters.
type memory struct {
	mu          sync.Mutex
	spans       []*otlp.Span
	logs        []*otlp.LogRecord
	metrics     []*otlp.ResourceMetrics
	temporality otlp.Temporality
}

func (m *memory) ExportSpans(_ context.Context, s []*otlp.Span) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spans = append(m.spans, s...)
	return nil
}

func (m *memory) Export(_ context.Context, r []*otlp.LogRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.logs = append(m.logs, r...)
	return nil
}

func (m *memory) Shutdown(context.Context) error { return nil }

type memoryMetrics struct{ *memory }

func (m memoryMetrics) Temporality(otlp.InstrumentKind) otlp.Temporality { return m.temporality }
func (m memoryMetrics) Aggregation(k otlp.InstrumentKind) otlp.Aggregation {
	return (&fileMetrics{}).Aggregation(k)
}
func (m memoryMetrics) Export(_ context.Context, rm *otlp.ResourceMetrics) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.metrics = append(m.metrics, rm)
	return nil
}

// started is a pipeline on a memory exporter, with env as the
// environment.
func started(t *testing.T, env map[string]string, temporality otlp.Temporality) (*Telemetry, *memory) {
	t.Helper()
	mem := &memory{temporality: temporality}
	tel := &Telemetry{cfg: Config{Enabled: true}, info: Info{Version: "1.0"}}
	tel.SetWarn(func(s string) { t.Errorf("warning: %s", s) })
	st := readSettings(func(k string) string { return env[k] }, "1.0", func(s string) { t.Errorf("warning: %s", s) })
	tel.run(context.Background(), st, mem, mem, memoryMetrics{mem})
	return tel, mem
}

func attr(kvs []attribute.KeyValue, key string) (attribute.Value, bool) {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// TestPipelineTurn: a turn's spans nest (one trace, the parent's span id,
// the child counted), a failed model call has its exception event and
// error status, the events carry the span they were logged in, and the
// metrics carry exemplars of the sampled turn.
func TestPipelineTurn(t *testing.T) {
	tel, mem := started(t, nil, otlp.CumulativeTemporality)
	ctx := context.Background()
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	tctx, end := tel.TurnStarted(ctx, &agent.ObservedTurn{SessionID: "s", PromptID: "p", Model: "m", Prompt: "hi", Start: t0})
	tel.ModelCalled(tctx, &agent.ObservedModelCall{SessionID: "s", PromptID: "p", Model: "m", Start: t0.Add(time.Second), Duration: 7 * time.Millisecond, Err: errors.New("boom")})
	end(agent.TurnEndReason("done"), nil)
	if err := tel.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if len(mem.spans) != 2 {
		t.Fatalf("%d spans, want 2", len(mem.spans))
	}
	llm, turn := mem.spans[0], mem.spans[1]
	if llm.Name != opLLMCall || turn.Name != opUserPrompt {
		t.Fatalf("spans %s, %s", llm.Name, turn.Name)
	}
	if llm.SpanContext.TraceID != turn.SpanContext.TraceID || llm.Parent.SpanID != turn.SpanContext.SpanID || turn.Parent.IsValid() {
		t.Errorf("llm_call %+v under %+v", llm.Parent, turn.SpanContext)
	}
	if !turn.SpanContext.IsSampled() || turn.ChildSpanCount != 1 || !turn.StartTime.Equal(t0) || turn.EndTime.Before(t0) {
		t.Errorf("user_prompt: %+v", turn)
	}
	if v, _ := attr(turn.Attributes, "castor.turn.end_reason"); v.AsString() != "done" {
		t.Errorf("user_prompt attributes %v", turn.Attributes)
	}
	if llm.Status != (otlp.Status{Code: otlp.StatusError, Description: "boom"}) || len(llm.Events) != 1 ||
		llm.Events[0].Name != "exception" || !llm.Events[0].Time.Equal(llm.EndTime) || !llm.EndTime.Equal(t0.Add(time.Second+7*time.Millisecond)) {
		t.Errorf("llm_call: %+v", llm)
	}
	if v, _ := attr(llm.Events[0].Attributes, "exception.type"); v.AsString() != "*errors.errorString" {
		t.Errorf("exception attributes %v", llm.Events[0].Attributes)
	}
	if llm.Resource.Len() != 2 || llm.InstrumentationScope.Name != scopeName {
		t.Errorf("resource %v, scope %v", llm.Resource.Set().ToSlice(), llm.InstrumentationScope)
	}
	var names []string
	for _, r := range mem.logs {
		names = append(names, r.EventName)
		if r.TraceID != turn.SpanContext.TraceID || r.SpanID != turn.SpanContext.SpanID || r.TraceFlags != otlp.FlagsSampled || r.Severity != otlp.SeverityInfo {
			t.Errorf("%s: in %x/%x, want the turn's", r.EventName, r.TraceID, r.SpanID)
		}
	}
	if want := []string{eventUserPrompt, eventAPIRequest, eventAPIError}; !slices.Equal(names, want) {
		t.Errorf("events %v, want %v", names, want)
	}
	if len(mem.metrics) != 1 || len(mem.metrics[0].ScopeMetrics) != 1 {
		t.Fatalf("metrics %+v", mem.metrics)
	}
	byName := map[string]any{}
	for _, m := range mem.metrics[0].ScopeMetrics[0].Metrics {
		byName[m.Name] = m.Data
	}
	lat, ok := byName[metricAPIRequestLat].(otlp.Histogram[int64])
	if !ok || len(lat.DataPoints) != 1 {
		t.Fatalf("%s: %#v", metricAPIRequestLat, byName[metricAPIRequestLat])
	}
	p := lat.DataPoints[0]
	if p.Count != 1 || p.Sum != 7 || p.BucketCounts[2] != 1 || len(p.Bounds) != 15 || lat.Temporality != otlp.CumulativeTemporality {
		t.Errorf("latency point %+v", p)
	}
	if len(p.Exemplars) != 1 || p.Exemplars[0].Value != 7 || string(p.Exemplars[0].TraceID) != string(turn.SpanContext.TraceID[:]) {
		t.Errorf("latency exemplars %+v", p.Exemplars)
	}
	sessions, ok := byName[metricSessionCount].(otlp.Sum[int64])
	if !ok || !sessions.IsMonotonic || sessions.DataPoints[0].Value != 1 || len(sessions.DataPoints[0].Exemplars) != 0 {
		t.Errorf("sessions %+v", byName[metricSessionCount])
	}
}

// TestDeltaTemporality: a delta instrument's points start anew at each
// collection, and one with no new measurement is left out.
func TestDeltaTemporality(t *testing.T) {
	tel, mem := started(t, nil, otlp.DeltaTemporality)
	ctx := context.Background()
	tel.m.tokens.Add(ctx, 5, attribute.String("type", "input"))
	tel.m.tokens.Add(ctx, 2, attribute.String("type", "input"))
	if err := tel.meter.export(ctx); err != nil {
		t.Fatal(err)
	}
	tel.m.tokens.Add(ctx, 1, attribute.String("type", "input"))
	if err := tel.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, rm := range mem.metrics {
		for _, m := range rm.ScopeMetrics[0].Metrics {
			if m.Name == metricTokenUsage {
				got = append(got, m.Data.(otlp.Sum[int64]).DataPoints[0].Value)
			}
		}
	}
	if want := []int64{7, 1}; !slices.Equal(got, want) {
		t.Errorf("token sums %v, want %v", got, want)
	}
	if n := len(mem.metrics[1].ScopeMetrics[0].Metrics); n != 1 {
		t.Errorf("second collection has %d metrics, want only the token usage", n)
	}
}

func TestSampler(t *testing.T) {
	sampled := otlp.SpanContext{TraceID: otlp.TraceID{1}, SpanID: otlp.SpanID{1}, TraceFlags: otlp.FlagsSampled}
	unsampled := otlp.SpanContext{TraceID: otlp.TraceID{1}, SpanID: otlp.SpanID{1}}
	low := otlp.TraceID{8: 0x10}  // low 63 bits: a small number
	high := otlp.TraceID{8: 0xf0} // and a large one
	tests := []struct {
		sampler, arg string
		warn         bool
		// root spans with low and high trace ids, children of a
		// sampled and of an unsampled parent
		low, high, child, orphan bool
	}{
		{"", "", false, true, true, true, false},
		{"parentbased_always_on", "", false, true, true, true, false},
		{"always_on", "", false, true, true, true, true},
		{"always_off", "", false, false, false, false, false},
		{"parentbased_always_off", "", false, false, false, true, false},
		{"traceidratio", "0.5", false, true, false, false, true},
		{"TraceIdRatio", "", false, true, true, true, true},
		{"parentbased_traceidratio", "0.5", false, true, false, true, false},
		{"traceidratio", "2", true, true, true, true, true},
		{"jaeger_remote", "", true, true, true, true, false},
	}
	for _, tt := range tests {
		env := map[string]string{"OTEL_TRACES_SAMPLER": tt.sampler, "OTEL_TRACES_SAMPLER_ARG": tt.arg}
		warned := false
		s := samplerOf(func(k string) string { return env[k] }, func(string) { warned = true })
		got := []bool{s.sample(otlp.SpanContext{}, low), s.sample(otlp.SpanContext{}, high), s.sample(sampled, high), s.sample(unsampled, low)}
		if want := []bool{tt.low, tt.high, tt.child, tt.orphan}; !slices.Equal(got, want) || warned != tt.warn {
			t.Errorf("%s %s: sampled %v, want %v; warned %v", tt.sampler, tt.arg, got, want, warned)
		}
	}
}

func TestReadSettings(t *testing.T) {
	tests := []struct {
		env      map[string]string
		resource string
		check    func(envSettings) bool
		warn     string
	}{
		{resource: "service.name=castor,service.version=2.0", check: func(s envSettings) bool {
			return s.interval == exportInterval && s.spans == batchConfig{5 * time.Second, 30 * time.Second, 2048, 512} &&
				s.logs == batchConfig{time.Second, 30 * time.Second, 2048, 512} && s.mTimeout == 30*time.Second
		}},
		{env: map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "team=a%20b, service.name=x,bad,=v", "OTEL_SERVICE_NAME": "svc"},
			resource: "service.name=svc,service.version=2.0,team=a b", warn: `["bad"] are not key=value`},
		{env: map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "service.version=3"}, resource: "service.name=castor,service.version=3"},
		{env: map[string]string{"OTEL_METRIC_EXPORT_INTERVAL": "500", "OTEL_METRIC_EXPORT_TIMEOUT": "100"}, resource: "service.name=castor,service.version=2.0",
			check: func(s envSettings) bool {
				return s.interval == 500*time.Millisecond && s.mTimeout == 100*time.Millisecond
			}},
		{env: map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "50", "OTEL_BSP_MAX_QUEUE_SIZE": "10", "OTEL_BLRP_MAX_EXPORT_BATCH_SIZE": "3", "OTEL_BLRP_EXPORT_TIMEOUT": "7"},
			resource: "service.name=castor,service.version=2.0", check: func(s envSettings) bool {
				return s.spans == batchConfig{50 * time.Millisecond, 30 * time.Second, 10, 10} && s.logs == batchConfig{time.Second, 7 * time.Millisecond, 2048, 3}
			}},
		{env: map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "5s"}, resource: "service.name=castor,service.version=2.0", warn: `OTEL_BSP_SCHEDULE_DELAY="5s": want milliseconds; 5000 applies`},
		{env: map[string]string{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "3"}, resource: "service.name=castor,service.version=2.0", warn: "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT is not supported"},
		{env: map[string]string{"OTEL_METRICS_EXEMPLAR_FILTER": "always_off"}, resource: "service.name=castor,service.version=2.0",
			check: func(s envSettings) bool { return !s.exemplars(otlp.SpanContext{TraceFlags: otlp.FlagsSampled}) }},
		{env: map[string]string{"OTEL_METRICS_EXEMPLAR_FILTER": "sometimes"}, resource: "service.name=castor,service.version=2.0", warn: "OTEL_METRICS_EXEMPLAR_FILTER"},
	}
	for _, tt := range tests {
		var warnings []string
		s := readSettings(func(k string) string { return tt.env[k] }, "2.0", func(w string) { warnings = append(warnings, w) })
		var kv []string
		for _, a := range s.res.Set().ToSlice() {
			kv = append(kv, string(a.Key)+"="+a.Value.String())
		}
		if got := strings.Join(kv, ","); got != tt.resource {
			t.Errorf("%v: resource %s, want %s", tt.env, got, tt.resource)
		}
		if tt.check != nil && !tt.check(s) {
			t.Errorf("%v: settings %+v", tt.env, s)
		}
		if got := strings.Join(warnings, "\n"); tt.warn == "" && got != "" || !strings.Contains(got, tt.warn) {
			t.Errorf("%v: warnings %q, want %q", tt.env, got, tt.warn)
		}
	}
}

// TestBatcher: a full batch is exported at once and its failure said;
// Shutdown exports what waits and returns that export's failure, also
// said; an item added after Shutdown is dropped. Each case waits for
// the exports it needs, never for time.
func TestBatcher(t *testing.T) {
	fail := errors.New("down")
	type result struct {
		got  [][]int
		said []error
		err  error
		left int // items queued after Shutdown
	}
	run := func(t *testing.T, before, after []int, waitKick bool) result {
		t.Helper()
		var r result
		exported := make(chan struct{}, 10)
		b := newBatcher(batchConfig{delay: time.Hour, timeout: time.Minute, queue: 5, batch: 2}, func(_ context.Context, xs []int) error {
			r.got = append(r.got, slices.Clone(xs))
			exported <- struct{}{}
			return fail
		}, func(err error) { r.said = append(r.said, err) })
		for _, x := range before {
			b.add(x)
		}
		if waitKick {
			<-exported
		}
		r.err = b.shutdown(context.Background())
		for _, x := range after {
			b.add(x)
		}
		b.mu.Lock()
		r.left = len(b.queue)
		b.mu.Unlock()
		if err := b.shutdown(context.Background()); err != nil {
			t.Errorf("a second shutdown: %v", err)
		}
		return r
	}
	t.Run("a full batch goes at once", func(t *testing.T) {
		r := run(t, []int{1, 2}, nil, true)
		if want := [][]int{{1, 2}}; !slices.EqualFunc(r.got, want, slices.Equal) {
			t.Errorf("exported %v, want %v", r.got, want)
		}
		if r.err != nil || len(r.said) != 1 || r.said[0] != fail {
			t.Errorf("shutdown %v, failures said %v; want nil and %v", r.err, r.said, fail)
		}
	})
	t.Run("shutdown sends what waits", func(t *testing.T) {
		r := run(t, []int{3}, []int{4}, false)
		if want := [][]int{{3}}; !slices.EqualFunc(r.got, want, slices.Equal) {
			t.Errorf("exported %v, want %v", r.got, want)
		}
		if !errors.Is(r.err, fail) || len(r.said) != 1 || r.said[0] != fail {
			t.Errorf("shutdown %v, failures said %v; want %v once", r.err, r.said, fail)
		}
		if r.left != 0 {
			t.Errorf("%d items queued after shutdown, want none", r.left)
		}
	})
}

// TestExponentialHistogram: values spread wider than 160 buckets lower
// the scale, and the counts stay whole.
func TestExponentialHistogram(t *testing.T) {
	tests := []struct {
		values []float64
		scale  int32
		zero   uint64
	}{
		{[]float64{1}, 20, 0},
		{[]float64{0, 1, 2}, 7, 1},
		{[]float64{1, 1e9, -3}, 2, 0},
	}
	for _, tt := range tests {
		var h expHist
		h.scale = expMaxScale
		for _, v := range tt.values {
			h.record(v)
		}
		var n uint64
		for _, c := range append(slices.Clone(h.pos.counts), h.neg.counts...) {
			n += c
		}
		if h.scale != tt.scale || h.zero != tt.zero || n+h.zero != uint64(len(tt.values)) || len(h.pos.counts) > expMaxSize {
			t.Errorf("%v: scale %d, zero %d, counts %v %v", tt.values, h.scale, h.zero, h.pos, h.neg)
		}
	}
}

// TestBatcherQueueFull: past the queue's size, new items are dropped (the
// SDK's processors drop rather than block the recording goroutine).
func TestBatcherQueueFull(t *testing.T) {
	var got [][]int
	b := newBatcher(batchConfig{delay: time.Hour, timeout: time.Minute, queue: 3, batch: 10}, func(_ context.Context, xs []int) error {
		got = append(got, slices.Clone(xs))
		return nil
	}, func(error) {})
	for i := 1; i <= 5; i++ {
		b.add(i)
	}
	if err := b.shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{1, 2, 3}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("exported %v, want %v", got, want)
	}
}

// TestAddAttributes: a key seen again replaces its value in place, an
// invalid attribute is dropped, and so is any past attrLimit keys; each
// drop is counted.
func TestAddAttributes(t *testing.T) {
	many := make([]attribute.KeyValue, attrLimit+2)
	for i := range many {
		many[i] = attribute.Int("k"+strings.Repeat("x", i), i)
	}
	tests := []struct {
		name     string
		kv       []attribute.KeyValue
		wantKeys int
		dropped  int
		first    string
	}{
		{"replaced in place", []attribute.KeyValue{attribute.String("a", "1"), attribute.String("b", "2"), attribute.String("a", "3")}, 2, 0, "3"},
		{"invalid", []attribute.KeyValue{{Key: "", Value: attribute.StringValue("x")}, attribute.String("a", "1")}, 1, 1, "1"},
		{"past the limit", many, attrLimit, 2, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, dropped := addAttributes(nil, tt.kv)
			if len(got) != tt.wantKeys || dropped != tt.dropped {
				t.Errorf("%d attributes, %d dropped; want %d, %d", len(got), dropped, tt.wantKeys, tt.dropped)
			}
			if len(got) > 0 && got[0].Value.String() != tt.first {
				t.Errorf("first value %q, want %q", got[0].Value.String(), tt.first)
			}
		})
	}
}
