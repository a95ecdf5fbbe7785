package otlp

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	_ "google.golang.org/grpc/encoding/gzip" // the server reads gzip
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// collector is a gRPC OTLP receiver on the generated service types,
// answering each call with its replies in turn (the last one again when
// they run out).
type collector struct {
	coltracepb.UnimplementedTraceServiceServer
	colmetricspb.UnimplementedMetricsServiceServer
	collogspb.UnimplementedLogsServiceServer

	mu          sync.Mutex
	replies     []grpcReply
	calls       int
	md          []metadata.MD
	compression []string
	traces      []*coltracepb.ExportTraceServiceRequest
	metrics     []*colmetricspb.ExportMetricsServiceRequest
	logs        []*collogspb.ExportLogsServiceRequest
}

type grpcReply struct {
	err      error
	rejected int64
	msg      string
}

func (c *collector) next(ctx context.Context) grpcReply {
	c.mu.Lock()
	defer c.mu.Unlock()
	md, _ := metadata.FromIncomingContext(ctx)
	c.md = append(c.md, md)
	r := c.replies[min(c.calls, len(c.replies)-1)]
	c.calls++
	return r
}

func (c *collector) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	r := c.next(ctx)
	c.mu.Lock()
	c.traces = append(c.traces, req)
	c.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	return &coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: r.rejected, ErrorMessage: r.msg}}, nil
}

type metricsService struct{ *collector }

func (c metricsService) Export(ctx context.Context, req *colmetricspb.ExportMetricsServiceRequest) (*colmetricspb.ExportMetricsServiceResponse, error) {
	r := c.next(ctx)
	c.mu.Lock()
	c.metrics = append(c.metrics, req)
	c.mu.Unlock()
	return &colmetricspb.ExportMetricsServiceResponse{PartialSuccess: &colmetricspb.ExportMetricsPartialSuccess{RejectedDataPoints: r.rejected, ErrorMessage: r.msg}}, r.err
}

type logsService struct{ *collector }

func (c logsService) Export(ctx context.Context, req *collogspb.ExportLogsServiceRequest) (*collogspb.ExportLogsServiceResponse, error) {
	r := c.next(ctx)
	c.mu.Lock()
	c.logs = append(c.logs, req)
	c.mu.Unlock()
	return &collogspb.ExportLogsServiceResponse{PartialSuccess: &collogspb.ExportLogsPartialSuccess{RejectedLogRecords: r.rejected, ErrorMessage: r.msg}}, r.err
}

// inHeaders keeps the compression of each call's request.
type inHeaders struct{ c *collector }

func (h inHeaders) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (h inHeaders) HandleRPC(_ context.Context, s stats.RPCStats) {
	if in, ok := s.(*stats.InHeader); ok {
		h.c.mu.Lock()
		h.c.compression = append(h.c.compression, in.Compression)
		h.c.mu.Unlock()
	}
}
func (h inHeaders) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (h inHeaders) HandleConn(context.Context, stats.ConnStats)                       {}

// newCollector listens on loopback: plaintext, or TLS with the test
// certificate. It returns the endpoint.
func newCollector(t *testing.T, tlsOn bool, replies ...grpcReply) (*collector, string) {
	c := &collector{replies: replies}
	opts := []grpc.ServerOption{grpc.StatsHandler(inHeaders{c})}
	scheme := "http://"
	if tlsOn {
		opts = append(opts, grpc.Creds(credentials.NewTLS(serverTLS(t))))
		scheme = "https://"
	}
	srv := grpc.NewServer(opts...)
	coltracepb.RegisterTraceServiceServer(srv, c)
	colmetricspb.RegisterMetricsServiceServer(srv, metricsService{c})
	collogspb.RegisterLogsServiceServer(srv, logsService{c})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	return c, scheme + l.Addr().String()
}

func retryAfterStatus(t *testing.T, code codes.Code) error {
	s, err := status.New(code, "slow down").WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(0)})
	if err != nil {
		t.Fatal(err)
	}
	return s.Err()
}

func TestGRPCSpans(t *testing.T) {
	tests := []struct {
		name    string
		tls     bool
		env     func(t *testing.T) map[string]string
		replies []grpcReply
		err     string
		calls   int // -1: more than one
	}{
		{name: "accepted", replies: []grpcReply{{}}, calls: 1},
		{name: "partial success", replies: []grpcReply{{rejected: 2, msg: "too old"}}, calls: 1, err: "traces export: OTLP partial success: too old (2 spans rejected)"},
		{name: "unavailable then accepted", replies: []grpcReply{{err: status.Error(codes.Unavailable, "busy")}, {}}, calls: 2},
		{name: "aborted, data loss, then accepted", replies: []grpcReply{{err: status.Error(codes.Aborted, "a")}, {err: status.Error(codes.DataLoss, "d")}, {}}, calls: 3},
		{name: "resource exhausted is not retried", replies: []grpcReply{{err: status.Error(codes.ResourceExhausted, "quota")}}, calls: 1, err: "code = ResourceExhausted desc = quota"},
		{name: "resource exhausted with a retry delay is retried", replies: []grpcReply{{err: retryAfterStatus(t, codes.ResourceExhausted)}, {}}, calls: 2},
		{name: "invalid argument is not retried", replies: []grpcReply{{err: status.Error(codes.InvalidArgument, "no")}}, calls: 1, err: "traces export: rpc error: code = InvalidArgument desc = no"},
		{name: "unavailable until the timeout", replies: []grpcReply{{err: status.Error(codes.Unavailable, "busy")}}, calls: -1,
			env: func(*testing.T) map[string]string { return map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "100"} }, err: "exporter export timeout"},
		{name: "TLS with the certificate", tls: true, replies: []grpcReply{{}}, calls: 1,
			env: func(t *testing.T) map[string]string {
				return map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": certFile(t)}
			}},
		{name: "TLS without the certificate", tls: true, replies: []grpcReply{{}}, calls: 0,
			env: func(*testing.T) map[string]string { return map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "200"} }, err: "certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, endpoint := newCollector(t, tt.tls, tt.replies...)
			var env map[string]string
			if tt.env != nil {
				env = tt.env(t)
			}
			ex, _ := exporters(t, endpoint, ProtocolGRPC, env)
			err := ex.Spans.ExportSpans(context.Background(), ourSpans(oneSpan()))
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			if tt.calls >= 0 && c.calls != tt.calls || tt.calls < 0 && c.calls < 2 {
				t.Fatalf("%d calls, want %d", c.calls, tt.calls)
			}
			if c.calls > 0 && c.traces[0].ResourceSpans[0].ScopeSpans[0].Spans[0].Name != "turn" {
				t.Errorf("request %v", c.traces[0])
			}
		})
	}
}

// TestGRPCSignals sends the three signals over one collector, with the
// headers as metadata and gzip when asked.
func TestGRPCSignals(t *testing.T) {
	c, endpoint := newCollector(t, false, grpcReply{})
	ex, _ := exporters(t, endpoint, ProtocolGRPC, map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "x-tenant=a", "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION": "gzip"})
	exportEach(t, ex)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.traces) != 1 || len(c.metrics) != 1 || len(c.logs) != 1 {
		t.Fatalf("%d traces, %d metrics, %d logs requests", len(c.traces), len(c.metrics), len(c.logs))
	}
	if c.metrics[0].ResourceMetrics[0].ScopeMetrics[0].Metrics[0].Name != "m" || c.logs[0].ResourceLogs[0].ScopeLogs[0].LogRecords[0].Body.GetStringValue() != "b" {
		t.Errorf("requests %v %v", c.metrics[0], c.logs[0])
	}
	for i, md := range c.md {
		if got := md.Get("x-tenant"); len(got) != 1 || got[0] != "a" {
			t.Errorf("call %d: x-tenant %v", i, got)
		}
		if ua := md.Get("user-agent"); len(ua) == 0 || !strings.HasPrefix(ua[0], "castor/test") {
			t.Errorf("call %d: user-agent %v", i, ua)
		}
	}
	if want := []string{"", "gzip", ""}; strings.Join(c.compression, ",") != strings.Join(want, ",") {
		t.Errorf("compression %q, want %q", c.compression, want)
	}
}
