// Package otlp exports OpenTelemetry traces, metrics and logs as OTLP,
// over HTTP (protobuf bodies) or gRPC. The data are Castor's own types
// (data.go), which its telemetry pipeline records.
//
// It does what the official otlptrace/otlpmetric/otlplog exporters do
// for Castor, encoding the requests itself with protowire: those
// exporters and the generated OTLP types they bring (with grpc-gateway
// and their init code) cost every start of the binary about a megabyte
// of memory, although telemetry is off by default. The tests decode what
// is sent with the generated types and compare it with what the official
// exporters send for the same data.
//
// The OTEL_EXPORTER_OTLP_* variables the official exporters read for
// headers, timeout, compression and certificates apply, the signal's own
// over the general one; the endpoint is the one given.
package otlp

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Protocols.
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http"
)

// Config says where and how to send.
type Config struct {
	// Endpoint is the collector: http:// or https://, host and port,
	// and for HTTP a base path (v1/traces, v1/metrics and v1/logs are
	// appended, as Gemini CLI does). gRPC uses the host and port alone,
	// in plaintext for http://, over TLS for https://.
	Endpoint *url.URL
	// Protocol is ProtocolGRPC or ProtocolHTTP.
	Protocol string
	// UserAgent is sent with every request ("" sends the transport's).
	UserAgent string
	// Getenv reads the OTEL_EXPORTER_OTLP_* variables; nil is os.Getenv.
	Getenv func(string) string
	// Warn receives what does not read in those variables; nil drops it.
	Warn func(string)
}

// Exporters are the three signals' exporters for one endpoint.
type Exporters struct {
	Spans   *SpanExporter
	Metrics *MetricExporter
	Logs    *LogExporter
}

// New makes the exporters. Nothing is connected here: a connection is
// made at the first export.
func New(cfg Config) (*Exporters, error) {
	u := cfg.Endpoint
	if u == nil || u.Host == "" {
		return nil, fmt.Errorf("OTLP endpoint %v: no host", u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("OTLP endpoint %v: scheme %q: want http or https", u, u.Scheme)
	}
	r := envReader{getenv: cfg.Getenv, readFile: os.ReadFile, warn: cfg.Warn}
	if r.getenv == nil {
		r.getenv = os.Getenv
	}
	if r.warn == nil {
		r.warn = func(string) {}
	}
	// A general variable (OTEL_EXPORTER_OTLP_TIMEOUT) is read for each
	// of the three signals: its warning is said once, not three times.
	said := map[string]bool{}
	warn := r.warn
	r.warn = func(s string) {
		if !said[s] {
			said[s] = true
			warn(s)
		}
	}
	var clients [3]*client
	for i, sig := range []signal{tracesSignal, metricsSignal, logsSignal} {
		s := r.settings(sig.name, cfg.Protocol)
		var (
			snd sender
			err error
		)
		switch cfg.Protocol {
		case ProtocolHTTP:
			base := strings.TrimSuffix(u.String(), "/")
			snd = newHTTPSender(base+"/v1/"+sig.name, s, cfg.UserAgent)
		case ProtocolGRPC:
			snd, err = newGRPCSender(u.Host, sig.method, u.Scheme == "http", s, cfg.UserAgent)
		default:
			err = fmt.Errorf("OTLP protocol %q: want %s or %s", cfg.Protocol, ProtocolGRPC, ProtocolHTTP)
		}
		if err != nil {
			for _, c := range clients[:i] {
				_ = c.sender.close()
			}
			return nil, err
		}
		clients[i] = newClient(sig, snd, s.timeout)
	}
	return &Exporters{
		Spans:   &SpanExporter{c: clients[0]},
		Metrics: &MetricExporter{c: clients[1], prefs: r.metricPrefs()},
		Logs:    &LogExporter{c: clients[2]},
	}, nil
}
