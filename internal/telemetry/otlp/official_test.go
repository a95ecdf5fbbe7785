package otlp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
)

// The official exporters, run over HTTP to a server that keeps what they
// send: what this package sends is compared with it.

// capture is an OTLP/HTTP server that keeps each request's body.
type capture struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newCapture(t *testing.T) *capture {
	c := &capture{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
		}
		c.mu.Lock()
		c.bodies = append(c.bodies, b)
		c.mu.Unlock()
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// last is the only body received.
func (c *capture) only(t *testing.T) []byte {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bodies) != 1 {
		t.Fatalf("the official exporter sent %d requests, want 1", len(c.bodies))
	}
	return c.bodies[0]
}

func officialSpans(t *testing.T, spans []sdktrace.ReadOnlySpan) *coltracepb.ExportTraceServiceRequest {
	c := newCapture(t)
	ctx := context.Background()
	ex, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(c.srv.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ex.ExportSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	_ = ex.Shutdown(ctx)
	var req coltracepb.ExportTraceServiceRequest
	mustUnmarshal(t, c.only(t), &req)
	return &req
}

func officialLogs(t *testing.T, records []sdklog.Record) *collogspb.ExportLogsServiceRequest {
	c := newCapture(t)
	ctx := context.Background()
	ex, err := otlploghttp.New(ctx, otlploghttp.WithEndpointURL(c.srv.URL+"/v1/logs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ex.Export(ctx, records); err != nil {
		t.Fatal(err)
	}
	_ = ex.Shutdown(ctx)
	var req collogspb.ExportLogsServiceRequest
	mustUnmarshal(t, c.only(t), &req)
	return &req
}

// officialMetrics is what the official exporter sends, and its error
// (a metric it leaves out).
func officialMetrics(t *testing.T, rm *metricdata.ResourceMetrics) (*colmetricspb.ExportMetricsServiceRequest, error) {
	c := newCapture(t)
	ctx := context.Background()
	ex, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(c.srv.URL+"/v1/metrics"))
	if err != nil {
		t.Fatal(err)
	}
	exportErr := ex.Export(ctx, rm)
	_ = ex.Shutdown(ctx)
	var req colmetricspb.ExportMetricsServiceRequest
	mustUnmarshal(t, c.only(t), &req)
	return &req, exportErr
}

func mustUnmarshal(t *testing.T, b []byte, m proto.Message) {
	t.Helper()
	if err := proto.Unmarshal(b, m); err != nil {
		t.Fatalf("decoding %T: %v", m, err)
	}
}

// byResource orders resources as encoded: the official exporters keep
// them in a map.
func byResource[T interface{ comparable }](xs []T, res func(T) proto.Message) {
	slices.SortStableFunc(xs, func(a, b T) int {
		ma, _ := proto.MarshalOptions{Deterministic: true}.Marshal(res(a))
		mb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(res(b))
		return bytes.Compare(ma, mb)
	})
}

// diff is the difference of two messages, "" if equal.
func diff(want, got proto.Message) string {
	return cmp.Diff(want, got, protocmp.Transform())
}
