package telemetry_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/npmtest"
)

// receiverBin is the receiver program (receiver/, a module of its own:
// the OpenTelemetry Collector's otlpreceiver), built once per test binary.
var receiverBin struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// buildReceiver builds the receiver, or skips (fails under CI=true) when
// the go command is missing.
func buildReceiver(t *testing.T) string {
	t.Helper()
	gocmd := npmtest.LookPath(t, "go")
	receiverBin.once.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		dir := filepath.Join(filepath.Dir(file), "receiver")
		// Beside castor's binary, removed with it when the tests end.
		receiverBin.path = filepath.Join(filepath.Dir(e2etest.Binary(t)), "otlp-receiver")
		cmd := exec.Command(gocmd, "build", "-o", receiverBin.path, ".")
		cmd.Dir = dir
		// Its own module, whatever workspace the tests run in: the
		// collector's requirements never meet Castor's.
		cmd.Env = append(os.Environ(), "GOWORK=off")
		receiverBin.out, receiverBin.err = cmd.CombinedOutput()
	})
	if receiverBin.err != nil {
		t.Fatalf("building the OTLP receiver: %v\n%s", receiverBin.err, receiverBin.out)
	}
	return receiverBin.path
}

// receiver is a running OTLP receiver and what it has received.
type receiver struct {
	t          *testing.T
	GRPC, HTTP string // host:port

	mu      sync.Mutex
	changed chan struct{} // closed and replaced at each batch
	batches []batch
	done    bool
}

// batch is one export the receiver acknowledged, in OTLP JSON.
type batch struct {
	Signal string          `json:"signal"`
	Data   json.RawMessage `json:"data"`
}

// startReceiver starts the receiver; it ends with the test.
func startReceiver(t *testing.T) *receiver {
	t.Helper()
	cmd := e2etest.DieWithTest(exec.Command(buildReceiver(t)))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close() // the receiver's signal to stop
		if err := cmd.Wait(); err != nil {
			t.Errorf("receiver: %v\n%s", err, stderr.String())
		}
	})
	r := &receiver{t: t, changed: make(chan struct{})}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 64<<20)
	ready := make(chan error, 1)
	go func() {
		if !lines.Scan() {
			ready <- io.ErrUnexpectedEOF
			return
		}
		var ports struct{ GRPC, HTTP string }
		ready <- json.Unmarshal(lines.Bytes(), &ports)
		r.GRPC, r.HTTP = ports.GRPC, ports.HTTP
		for lines.Scan() {
			var b batch
			if err := json.Unmarshal(lines.Bytes(), &b); err != nil {
				t.Errorf("receiver printed %q: %v", lines.Text(), err)
				continue
			}
			r.mu.Lock()
			r.batches = append(r.batches, b)
			close(r.changed)
			r.changed = make(chan struct{})
			r.mu.Unlock()
		}
		r.mu.Lock()
		r.done = true
		close(r.changed)
		r.mu.Unlock()
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("receiver did not start: %v\n%s", err, stderr.String())
		}
	case <-time.After(e2etest.HangLimit):
		t.Fatalf("receiver did not start within %v\n%s", e2etest.HangLimit, stderr.String())
	}
	return r
}

// waitFor waits until what was received satisfies ok, and returns it;
// the test fails with what came when the receiver stops or HangLimit
// passes first.
func (r *receiver) waitFor(what string, ok func(received) bool) received {
	r.t.Helper()
	limit := time.After(e2etest.HangLimit)
	for {
		r.mu.Lock()
		got := parse(r.t, r.batches)
		changed, done := r.changed, r.done
		r.mu.Unlock()
		if ok(got) {
			return got
		}
		if done {
			r.t.Fatalf("the receiver stopped before %s; received:\n%s", what, got)
		}
		select {
		case <-changed:
		case <-limit:
			r.t.Fatalf("no %s within %v; received:\n%s", what, e2etest.HangLimit, got)
		}
	}
}

// received is what the receiver got, flattened.
type received struct {
	Spans   []span
	Metrics []point
	Logs    []logRecord
	Raw     string // every batch's OTLP JSON, for "is this text anywhere"
}

type span struct {
	Name, TraceID, SpanID, ParentSpanID string
	Attrs                               map[string]any
	Resource                            map[string]any
	StatusCode                          int
}

// point is one data point of a metric.
type point struct {
	Metric string
	Value  float64 // a sum's value, or a histogram's sum
	Count  int     // a histogram's count
	Attrs  map[string]any
}

type logRecord struct {
	EventName, Body string
	Attrs           map[string]any
}

func (r received) String() string {
	var b strings.Builder
	for _, s := range r.Spans {
		b.WriteString("span " + s.Name + "\n")
	}
	for _, p := range r.Metrics {
		b.WriteString("metric " + p.Metric + "\n")
	}
	for _, l := range r.Logs {
		b.WriteString("log " + l.EventName + "\n")
	}
	return b.String()
}

func (r received) spans(name string) []span {
	return named(r.Spans, func(s span) bool { return s.Name == name })
}

func (r received) points(metric string) []point {
	return named(r.Metrics, func(p point) bool { return p.Metric == metric })
}

func (r received) logs(event string) []logRecord {
	return named(r.Logs, func(l logRecord) bool { return l.EventName == event })
}

// named keeps the items of one name.
func named[T any](all []T, is func(T) bool) []T {
	var out []T
	for _, x := range all {
		if is(x) {
			out = append(out, x)
		}
	}
	return out
}

// OTLP JSON, as much as the tests read.
type (
	otlpKV struct {
		Key   string `json:"key"`
		Value struct {
			String *string  `json:"stringValue"`
			Int    *string  `json:"intValue"`
			Bool   *bool    `json:"boolValue"`
			Double *float64 `json:"doubleValue"`
			Array  *struct {
				Values []json.RawMessage `json:"values"`
			} `json:"arrayValue"`
		} `json:"value"`
	}
	otlpPoint struct {
		Attributes []otlpKV `json:"attributes"`
		AsInt      *string  `json:"asInt"`
		AsDouble   *float64 `json:"asDouble"`
		Sum        *float64 `json:"sum"`
		Count      *string  `json:"count"`
	}
	otlpData struct {
		ResourceSpans []struct {
			Resource   struct{ Attributes []otlpKV } `json:"resource"`
			ScopeSpans []struct {
				Spans []struct {
					TraceID      string   `json:"traceId"`
					SpanID       string   `json:"spanId"`
					ParentSpanID string   `json:"parentSpanId"`
					Name         string   `json:"name"`
					Attributes   []otlpKV `json:"attributes"`
					Status       struct {
						Code int `json:"code"`
					} `json:"status"`
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
		ResourceMetrics []struct {
			ScopeMetrics []struct {
				Metrics []struct {
					Name      string                            `json:"name"`
					Sum       *struct{ DataPoints []otlpPoint } `json:"sum"`
					Histogram *struct{ DataPoints []otlpPoint } `json:"histogram"`
				} `json:"metrics"`
			} `json:"scopeMetrics"`
		} `json:"resourceMetrics"`
		ResourceLogs []struct {
			ScopeLogs []struct {
				LogRecords []struct {
					EventName string `json:"eventName"`
					Body      struct {
						String string `json:"stringValue"`
					} `json:"body"`
					Attributes []otlpKV `json:"attributes"`
				} `json:"logRecords"`
			} `json:"scopeLogs"`
		} `json:"resourceLogs"`
	}
)

func attrs(kvs []otlpKV) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		v := kv.Value
		switch {
		case v.String != nil:
			m[kv.Key] = *v.String
		case v.Int != nil:
			m[kv.Key] = *v.Int
		case v.Bool != nil:
			m[kv.Key] = *v.Bool
		case v.Double != nil:
			m[kv.Key] = *v.Double
		case v.Array != nil:
			m[kv.Key] = len(v.Array.Values)
		}
	}
	return m
}

func parse(t *testing.T, batches []batch) received {
	var r received
	var raw strings.Builder
	for _, b := range batches {
		raw.Write(b.Data)
		raw.WriteByte('\n')
		var d otlpData
		if err := json.Unmarshal(b.Data, &d); err != nil {
			t.Errorf("%s batch: %v", b.Signal, err)
			continue
		}
		for _, rs := range d.ResourceSpans {
			res := attrs(rs.Resource.Attributes)
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					r.Spans = append(r.Spans, span{Name: s.Name, TraceID: s.TraceID, SpanID: s.SpanID, ParentSpanID: s.ParentSpanID,
						Attrs: attrs(s.Attributes), Resource: res, StatusCode: s.Status.Code})
				}
			}
		}
		for _, rm := range d.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					var pts []otlpPoint
					if m.Sum != nil {
						pts = m.Sum.DataPoints
					}
					if m.Histogram != nil {
						pts = m.Histogram.DataPoints
					}
					for _, p := range pts {
						pt := point{Metric: m.Name, Attrs: attrs(p.Attributes)}
						switch {
						case p.AsInt != nil:
							pt.Value = atof(*p.AsInt)
						case p.AsDouble != nil:
							pt.Value = *p.AsDouble
						case p.Sum != nil:
							pt.Value = *p.Sum
						}
						if p.Count != nil {
							pt.Count = int(atof(*p.Count))
						}
						r.Metrics = append(r.Metrics, pt)
					}
				}
			}
		}
		for _, rl := range d.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, l := range sl.LogRecords {
					r.Logs = append(r.Logs, logRecord{EventName: l.EventName, Body: l.Body.String, Attrs: attrs(l.Attributes)})
				}
			}
		}
	}
	r.Raw = raw.String()
	return r
}

func atof(s string) float64 {
	var f float64
	_ = json.Unmarshal([]byte(s), &f)
	return f
}
