package otlp

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/log/logtest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// reply is one answer of a scripted OTLP/HTTP server.
type reply struct {
	status  int
	header  map[string]string
	body    []byte
	blockOn bool // wait until the client goes away
}

// request is what the scripted server received.
type request struct {
	path    string
	header  http.Header
	body    []byte // decompressed
	gzipped bool
}

// script is an OTLP/HTTP server giving its replies in turn (the last one
// again when they run out) and keeping what it received.
type script struct {
	srv      *httptest.Server
	mu       sync.Mutex
	replies  []reply
	got      []request
	received chan struct{} // a request has come
}

func newScript(t *testing.T, tlsServer bool, replies ...reply) *script {
	s := &script{replies: replies, received: make(chan struct{}, 100)}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := io.Reader(r.Body)
		gz := r.Header.Get("Content-Encoding") == "gzip"
		if gz {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				t.Error(err)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			t.Error(err)
		}
		s.mu.Lock()
		rp := s.replies[min(len(s.got), len(s.replies)-1)]
		s.got = append(s.got, request{path: r.URL.Path, header: r.Header.Clone(), body: b, gzipped: gz})
		s.mu.Unlock()
		select {
		case s.received <- struct{}{}:
		default: // no one waits for it
		}
		if rp.blockOn {
			<-r.Context().Done()
			return
		}
		for k, v := range rp.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rp.status)
		_, _ = w.Write(rp.body)
	})
	if tlsServer {
		s.srv = httptest.NewUnstartedServer(h)
		s.srv.TLS = serverTLS(t)
		s.srv.StartTLS()
	} else {
		s.srv = httptest.NewServer(h)
	}
	t.Cleanup(s.srv.Close)
	return s
}

func (s *script) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.got...)
}

// exporters makes this package's exporters for endpoint, with env as
// the environment and no wait between attempts.
func exporters(t *testing.T, endpoint, protocol string, env map[string]string) (*Exporters, *[]string) {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	ex, err := New(Config{Endpoint: u, Protocol: protocol, UserAgent: "castor/test", Getenv: func(k string) string { return env[k] }, Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*client{ex.Spans.c, ex.Metrics.c, ex.Logs.c} {
		c.backoff = backoff{initial: time.Microsecond, max: time.Microsecond, elapsed: time.Minute}
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_ = ex.Spans.Shutdown(ctx)
		_ = ex.Metrics.Shutdown(ctx)
		_ = ex.Logs.Shutdown(ctx)
	})
	return ex, &warnings
}

func oneSpan() []sdktrace.ReadOnlySpan {
	return tracetest.SpanStubs{{Name: "turn", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}), Resource: res1}}.Snapshots()
}

// exportEach sends one datum of each signal.
func exportEach(t *testing.T, ex *Exporters) {
	t.Helper()
	ctx := context.Background()
	if err := ex.Spans.ExportSpans(ctx, ourSpans(oneSpan())); err != nil {
		t.Fatal(err)
	}
	rm := &metricdata.ResourceMetrics{Resource: res1, ScopeMetrics: []metricdata.ScopeMetrics{{Scope: scope1, Metrics: []metricdata.Metrics{{Name: "m", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{Value: 1}}}}}}}}
	if err := ex.Metrics.Export(ctx, ourMetrics(rm)); err != nil {
		t.Fatal(err)
	}
	if err := ex.Logs.Export(ctx, ourRecords([]sdklog.Record{logtest.RecordFactory{Body: attribute.StringValue("b"), Resource: res1}.NewRecord()})); err != nil {
		t.Fatal(err)
	}
}

func tracesResponse(t *testing.T, rejected int64, msg string) []byte {
	b, err := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: rejected, ErrorMessage: msg}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHTTPSpans(t *testing.T) {
	protobuf := map[string]string{"Content-Type": "application/x-protobuf"}
	tests := []struct {
		name     string
		env      map[string]string
		replies  []reply
		err      string // "" for none
		requests int    // -1: more than one
		check    func(t *testing.T, r request)
	}{
		{name: "accepted", replies: []reply{{status: 200}}, requests: 1,
			env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20tok, x-tenant = a ,bad, =x"},
			check: func(t *testing.T, r request) {
				if r.path != "/base/v1/traces" {
					t.Errorf("path %s", r.path)
				}
				for k, want := range map[string]string{"Content-Type": "application/x-protobuf", "Authorization": "Bearer tok", "X-Tenant": "a", "User-Agent": "castor/test"} {
					if got := r.header.Get(k); got != want {
						t.Errorf("%s: %q, want %q", k, got, want)
					}
				}
				var req coltracepb.ExportTraceServiceRequest
				mustUnmarshal(t, r.body, &req)
				if n := req.ResourceSpans[0].ScopeSpans[0].Spans[0].Name; n != "turn" {
					t.Errorf("span %q", n)
				}
			}},
		{name: "the signal's headers over the general ones", replies: []reply{{status: 200}}, requests: 1,
			env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1,b=2", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "a=3", "OTEL_EXPORTER_OTLP_LOGS_HEADERS": "a=4"},
			check: func(t *testing.T, r request) {
				if r.header.Get("a") != "3" || r.header.Get("b") != "" {
					t.Errorf("headers %v", r.header)
				}
			}},
		{name: "gzip", replies: []reply{{status: 200}}, requests: 1, env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "gzip"},
			check: func(t *testing.T, r request) {
				var req coltracepb.ExportTraceServiceRequest
				mustUnmarshal(t, r.body, &req)
				if !r.gzipped {
					t.Error("not compressed")
				}
			}},
		{name: "partial success", replies: []reply{{status: 200, header: protobuf, body: tracesResponse(t, 2, "too old")}}, requests: 1,
			err: "traces export: OTLP partial success: too old (2 spans rejected)"},
		{name: "partial success without a message", replies: []reply{{status: 200, header: protobuf, body: tracesResponse(t, 1, "")}}, requests: 1,
			err: "OTLP partial success: empty message (1 spans rejected)"},
		{name: "an empty partial success is a success", replies: []reply{{status: 200, header: protobuf, body: tracesResponse(t, 0, "")}}, requests: 1},
		{name: "a body of another type is not read", replies: []reply{{status: 200, header: map[string]string{"Content-Type": "text/plain"}, body: []byte("\x0a\x02\x08\x05")}}, requests: 1},
		{name: "a response that does not read", replies: []reply{{status: 200, header: protobuf, body: []byte{0x0a, 0x05, 0x08}}}, requests: 1, err: "reading the response"},
		{name: "503 then accepted", replies: []reply{{status: 503}, {status: 200}}, requests: 2},
		{name: "429 with Retry-After, 502, 504, then accepted", replies: []reply{{status: 429, header: map[string]string{"Retry-After": "0"}}, {status: 502}, {status: 504}, {status: 200}}, requests: 4},
		{name: "400 is not retried", replies: []reply{{status: 400, body: []byte("no such tenant\n")}}, requests: 1,
			err: "/base/v1/traces: 400 Bad Request (body: no such tenant)"},
		{name: "503 until the timeout", replies: []reply{{status: 503}}, requests: -1, env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "100"},
			err: "exporter export timeout: "},
		{name: "a server that does not answer", replies: []reply{{blockOn: true}}, requests: 1, env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "50"},
			err: "traces export: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScript(t, false, tt.replies...)
			ex, _ := exporters(t, s.srv.URL+"/base/", ProtocolHTTP, tt.env)
			err := ex.Spans.ExportSpans(context.Background(), ourSpans(oneSpan()))
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			got := s.requests()
			if tt.requests >= 0 && len(got) != tt.requests || tt.requests < 0 && len(got) < 2 {
				t.Fatalf("%d requests, want %d", len(got), tt.requests)
			}
			if tt.check != nil {
				tt.check(t, got[0])
			}
		})
	}
}

func TestHTTPPartialSuccessIsAnError(t *testing.T) {
	s := newScript(t, false, reply{status: 200, header: map[string]string{"Content-Type": "application/x-protobuf"}, body: tracesResponse(t, 3, "quota")})
	ex, _ := exporters(t, s.srv.URL, ProtocolHTTP, nil)
	err := ex.Spans.ExportSpans(context.Background(), ourSpans(oneSpan()))
	var ps *PartialSuccess
	if !errors.As(err, &ps) || ps.Rejected != 3 || ps.Message != "quota" || ps.Kind != "spans" {
		t.Errorf("error %v: want a PartialSuccess of 3 spans", err)
	}
}

// TestHTTPSignals sends each signal to its path, decodable as its
// request, and reads each one's partial success.
func TestHTTPSignals(t *testing.T) {
	s := newScript(t, false, reply{status: 200})
	ex, _ := exporters(t, s.srv.URL, ProtocolHTTP, nil)
	exportEach(t, ex)
	got := s.requests()
	if len(got) != 3 {
		t.Fatalf("%d requests", len(got))
	}
	for i, want := range []struct {
		path string
		msg  proto.Message
	}{{"/v1/traces", &coltracepb.ExportTraceServiceRequest{}}, {"/v1/metrics", &colmetricspb.ExportMetricsServiceRequest{}}, {"/v1/logs", &collogspb.ExportLogsServiceRequest{}}} {
		if got[i].path != want.path {
			t.Errorf("request %d to %s, want %s", i, got[i].path, want.path)
		}
		mustUnmarshal(t, got[i].body, want.msg)
	}
	// Nothing to send is no request.
	if err := ex.Spans.ExportSpans(context.Background(), nil); err != nil || len(s.requests()) != 3 {
		t.Errorf("an empty export: %v, %d requests", err, len(s.requests()))
	}
}

func TestPartialSuccessOfEachSignal(t *testing.T) {
	metrics, _ := proto.Marshal(&colmetricspb.ExportMetricsServiceResponse{PartialSuccess: &colmetricspb.ExportMetricsPartialSuccess{RejectedDataPoints: 4, ErrorMessage: "m"}})
	logs, _ := proto.Marshal(&collogspb.ExportLogsServiceResponse{PartialSuccess: &collogspb.ExportLogsPartialSuccess{RejectedLogRecords: 5, ErrorMessage: "l"}})
	ctx := context.Background()
	for _, tt := range []struct {
		body   []byte
		export func(ex *Exporters) error
		want   string
	}{
		{metrics, func(ex *Exporters) error {
			return ex.Metrics.Export(ctx, ourMetrics(&metricdata.ResourceMetrics{Resource: res1}))
		}, "metrics export: OTLP partial success: m (4 metric data points rejected)"},
		{logs, func(ex *Exporters) error {
			return ex.Logs.Export(ctx, ourRecords([]sdklog.Record{logtest.RecordFactory{}.NewRecord()}))
		}, "logs export: OTLP partial success: l (5 log records rejected)"},
	} {
		s := newScript(t, false, reply{status: 200, header: map[string]string{"Content-Type": "application/x-protobuf"}, body: tt.body})
		ex, _ := exporters(t, s.srv.URL, ProtocolHTTP, nil)
		if err := tt.export(ex); err == nil || err.Error() != tt.want {
			t.Errorf("error %v, want %q", err, tt.want)
		}
	}
}

// TestShutdownInterruptsAnExport: an export under way ends at Shutdown,
// and later ones fail without a request.
func TestShutdownInterruptsAnExport(t *testing.T) {
	s := newScript(t, false, reply{blockOn: true})
	ex, _ := exporters(t, s.srv.URL, ProtocolHTTP, map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "0"})
	done := make(chan error)
	go func() { done <- ex.Spans.ExportSpans(context.Background(), ourSpans(oneSpan())) }()
	<-s.received
	if err := ex.Spans.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "shut down") {
		t.Errorf("the interrupted export: %v", err)
	}
	if err := ex.Spans.ExportSpans(context.Background(), ourSpans(oneSpan())); !errors.Is(err, errShutdown) {
		t.Errorf("an export after Shutdown: %v", err)
	}
	if err := ex.Logs.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := ex.Logs.Export(context.Background(), ourRecords([]sdklog.Record{{}})); !errors.Is(err, ErrExporterShutdown) {
		t.Errorf("a log export after Shutdown: %v", err)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestTooLargeARequest(t *testing.T) {
	s := newScript(t, false, reply{status: 200})
	ex, _ := exporters(t, s.srv.URL, ProtocolHTTP, nil)
	big := make([]byte, maxRequest+1)
	if err := ex.Spans.c.export(context.Background(), big); err == nil || !strings.Contains(err.Error(), "over the") {
		t.Errorf("error %v", err)
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}
