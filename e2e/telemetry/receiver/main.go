// Command receiver is a real OTLP receiver for Castor's telemetry tests:
// the OpenTelemetry Collector's otlpreceiver, on loopback gRPC and HTTP
// ports of its own choosing, with a sink that prints everything it
// receives. It lives in a module of its own so that the collector's
// dependencies never touch Castor's module graph or binary.
//
// It prints one JSON line first, {"grpc": "127.0.0.1:P", "http":
// "127.0.0.1:Q"}, once both listen; then one line per batch received,
// {"signal": "traces"|"metrics"|"logs", "data": <OTLP JSON>}, written
// before the batch is acknowledged, so a sender that has flushed has
// been printed. It runs until stdin closes.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/config/configtls"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "receiver:", err)
		os.Exit(1)
	}
}

// sink prints each batch as one line.
type sink struct {
	mu  sync.Mutex
	out io.Writer
}

func (s *sink) print(signal string, data []byte, err error) error {
	if err != nil {
		return err
	}
	line, err := json.Marshal(map[string]any{"signal": signal, "data": json.RawMessage(data)})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err = fmt.Fprintf(s.out, "%s\n", line)
	return err
}

func run() error {
	gport, err := freePort()
	if err != nil {
		return err
	}
	hport, err := freePort()
	if err != nil {
		return err
	}
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	g := configgrpc.NewDefaultServerConfig()
	g.NetAddr.Endpoint = gport
	cfg.Protocols.GRPC = configoptional.Some(g)
	h := otlpreceiver.HTTPConfig{
		ServerConfig:   confighttp.NewDefaultServerConfig(),
		TracesURLPath:  "/v1/traces",
		MetricsURLPath: "/v1/metrics",
		LogsURLPath:    "/v1/logs",
	}
	h.ServerConfig.NetAddr.Endpoint = hport
	h.ServerConfig.TLS = configoptional.None[configtls.ServerConfig]()
	cfg.Protocols.HTTP = configoptional.Some(h)

	s := &sink{out: os.Stdout}
	traces, _ := consumer.NewTraces(func(_ context.Context, td ptrace.Traces) error {
		b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		return s.print("traces", b, err)
	})
	metrics, _ := consumer.NewMetrics(func(_ context.Context, md pmetric.Metrics) error {
		b, err := (&pmetric.JSONMarshaler{}).MarshalMetrics(md)
		return s.print("metrics", b, err)
	})
	logs, _ := consumer.NewLogs(func(_ context.Context, ld plog.Logs) error {
		b, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
		return s.print("logs", b, err)
	})
	ctx := context.Background()
	set := receivertest.NewNopSettings(f.Type())
	// The three share one receiver (one config): all are created before
	// it starts, so that its servers serve the three signals.
	var made []component.Component
	for _, mk := range []func() (component.Component, error){
		func() (component.Component, error) { return f.CreateTraces(ctx, set, cfg, traces) },
		func() (component.Component, error) { return f.CreateMetrics(ctx, set, cfg, metrics) },
		func() (component.Component, error) { return f.CreateLogs(ctx, set, cfg, logs) },
	} {
		c, err := mk()
		if err != nil {
			return err
		}
		made = append(made, c)
	}
	var started []component.Component
	for _, c := range made {
		if err := c.Start(ctx, componenttest.NewNopHost()); err != nil {
			return err
		}
		started = append(started, c)
	}
	defer func() {
		for _, c := range started {
			_ = c.Shutdown(ctx)
		}
	}()
	ready, _ := json.Marshal(map[string]string{"grpc": gport, "http": hport})
	s.mu.Lock()
	fmt.Fprintf(os.Stdout, "%s\n", ready)
	s.mu.Unlock()
	_, _ = io.Copy(io.Discard, os.Stdin) // until the test closes stdin
	return nil
}

// freePort finds a free loopback port; the receiver binds it at once.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}
