package otlp

import (
	"context"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// grpcSender calls a collector's Export methods over one connection.
type grpcSender struct {
	conn   *grpc.ClientConn
	method string
	md     metadata.MD
}

// newGRPCSender makes the connection, which dials at the first call.
// plaintext is for http:// endpoints; TLS otherwise, with s.tls or the
// system's roots.
func newGRPCSender(target, method string, plaintext bool, s settings, userAgent string) (*grpcSender, error) {
	creds := insecure.NewCredentials()
	if !plaintext {
		creds = credentials.NewTLS(s.tls)
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	if userAgent != "" {
		opts = append(opts, grpc.WithUserAgent(userAgent))
	}
	if s.gzip {
		// The registered gzip codec is a package of its own (with an
		// init) that Castor would link for this alone; the compressor
		// in package grpc itself does the same work.
		//lint:ignore SA1019 supported throughout gRPC 1.x, and needs no other package.
		opts = append(opts, grpc.WithCompressor(grpc.NewGZIPCompressor()))
	}
	conn, err := grpc.NewClient(target, opts...)
	if err != nil {
		return nil, err
	}
	g := &grpcSender{conn: conn, method: method}
	if len(s.headers) > 0 {
		g.md = metadata.New(s.headers)
	}
	return g, nil
}

// rawCodec passes requests that are already encoded, and keeps the
// response's bytes for partialSuccess: the generated OTLP types are not
// linked.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

// Name is the content-subtype: application/grpc+proto, as protobuf is
// what the bytes are.
func (rawCodec) Name() string { return "proto" }

func (g *grpcSender) send(ctx context.Context, body []byte) ([]byte, error) {
	if g.md != nil {
		if out, ok := metadata.FromOutgoingContext(ctx); ok {
			ctx = metadata.NewOutgoingContext(ctx, metadata.Join(g.md, out))
		} else {
			ctx = metadata.NewOutgoingContext(ctx, g.md)
		}
	}
	var resp []byte
	err := g.conn.Invoke(ctx, g.method, body, &resp, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		if ok, after := retryableStatus(status.Convert(err)); ok {
			return nil, &retryable{err: err, after: after}
		}
		return nil, err
	}
	return resp, nil
}

// retryableStatus says whether a call that ended with s may be retried,
// and after how long the server asks: the OTLP specification's transient
// codes, and RESOURCE_EXHAUSTED only when the server says when to retry.
func retryableStatus(s *status.Status) (bool, time.Duration) {
	switch s.Code() {
	case codes.Canceled, codes.DeadlineExceeded, codes.Aborted, codes.OutOfRange, codes.Unavailable, codes.DataLoss:
		_, d := retryInfo(s)
		return true, d
	case codes.ResourceExhausted:
		return retryInfo(s)
	}
	return false, 0
}

// retryInfo is the status's RetryInfo delay, if it has one.
func retryInfo(s *status.Status) (bool, time.Duration) {
	for _, d := range s.Details() {
		if r, ok := d.(*errdetails.RetryInfo); ok {
			return true, r.GetRetryDelay().AsDuration()
		}
	}
	return false, 0
}

func (g *grpcSender) close() error { return g.conn.Close() }
