package otlp

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSettings(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	ca := certFile(t)
	tests := []struct {
		name    string
		env     map[string]string
		headers map[string]string
		timeout time.Duration
		gzip    bool
		tls     bool
		warn    string // in the warnings, "" for none
	}{
		{name: "nothing set", timeout: defaultTimeout},
		{name: "headers", env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": " api-key = a%2Cb , x=1=2,"},
			headers: map[string]string{"api-key": "a,b", "x": "1=2"}, timeout: defaultTimeout, warn: `OTEL_EXPORTER_OTLP_HEADERS: "" is not name=value`},
		{name: "a bad header name", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "a b=1,ok=2,é=3"},
			headers: map[string]string{"ok": "2"}, timeout: defaultTimeout, warn: `OTEL_EXPORTER_OTLP_TRACES_HEADERS: "a b=1" is not name=value`},
		{name: "a bad escape", env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=%zz"},
			headers: map[string]string{}, timeout: defaultTimeout, warn: "the value of a"},
		{name: "timeout", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "1500"}, timeout: 1500 * time.Millisecond},
		{name: "the signal's timeout", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "1500", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "0"}, timeout: 0},
		{name: "a bad timeout", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "10s"}, timeout: defaultTimeout, warn: `OTEL_EXPORTER_OTLP_TIMEOUT="10s": want milliseconds`},
		{name: "gzip", env: map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"}, timeout: defaultTimeout, gzip: true},
		{name: "no compression for traces", env: map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "none"}, timeout: defaultTimeout},
		{name: "an unknown compression", env: map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, timeout: defaultTimeout, warn: `OTEL_EXPORTER_OTLP_COMPRESSION="zstd": want gzip or none`},
		{name: "the protocol in use", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, timeout: defaultTimeout},
		{name: "JSON asked for", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, timeout: defaultTimeout,
			warn: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="http/json": not used; OTLP goes as http/protobuf`},
		{name: "certificate", env: map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": ca}, timeout: defaultTimeout, tls: true},
		{name: "a certificate file that is not there", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": filepath.Join(dir, "nope.pem")}, timeout: defaultTimeout, warn: "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: open "},
		{name: "a certificate file without PEM", env: map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": notPEM}, timeout: defaultTimeout, warn: "no PEM certificate in " + notPEM},
		{name: "a client key pair that does not read", env: map[string]string{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": notPEM, "OTEL_EXPORTER_OTLP_CLIENT_KEY": notPEM}, timeout: defaultTimeout,
			warn: "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warnings []string
			r := envReader{getenv: func(k string) string { return tt.env[k] }, readFile: os.ReadFile, warn: func(s string) { warnings = append(warnings, s) }}
			s := r.settings("traces", ProtocolHTTP)
			if !maps.Equal(s.headers, tt.headers) || s.timeout != tt.timeout || s.gzip != tt.gzip || (s.tls != nil) != tt.tls {
				t.Errorf("settings %+v", s)
			}
			if got := strings.Join(warnings, "\n"); tt.warn == "" && got != "" || !strings.Contains(got, tt.warn) {
				t.Errorf("warnings %q, want %q", got, tt.warn)
			}
		})
	}
}

func TestMetricSelectors(t *testing.T) {
	tests := []struct {
		env         map[string]string
		counter     Temporality
		upDown      Temporality
		exponential bool
		warn        bool
	}{
		{counter: CumulativeTemporality, upDown: CumulativeTemporality},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": "Delta"}, counter: DeltaTemporality, upDown: CumulativeTemporality},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": "lowmemory"}, counter: DeltaTemporality, upDown: CumulativeTemporality},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": "weekly"}, counter: CumulativeTemporality, upDown: CumulativeTemporality, warn: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION": "base2_exponential_bucket_histogram"}, counter: CumulativeTemporality, upDown: CumulativeTemporality, exponential: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION": "explicit_bucket_histogram"}, counter: CumulativeTemporality, upDown: CumulativeTemporality},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION": "log"}, counter: CumulativeTemporality, upDown: CumulativeTemporality, warn: true},
	}
	for _, tt := range tests {
		warned := false
		p := envReader{getenv: func(k string) string { return tt.env[k] }, warn: func(string) { warned = true }}.metricPrefs()
		if p.temporality(KindCounter) != tt.counter || p.temporality(KindUpDownCounter) != tt.upDown || warned != tt.warn {
			t.Errorf("%v: counter %v, up-down %v, warned %v", tt.env, p.temporality(KindCounter), p.temporality(KindUpDownCounter), warned)
		}
		exp := p.aggregation(KindHistogram) == AggregationExponentialHistogram
		if exp != tt.exponential {
			t.Errorf("%v: histogram aggregation %v", tt.env, p.aggregation(KindHistogram))
		}
		if p.aggregation(KindCounter) != AggregationSum {
			t.Errorf("%v: counter aggregation %v", tt.env, p.aggregation(KindCounter))
		}
	}
}

// A general variable that does not read is said once, though each of
// the three signals reads it; a signal's own is said for that signal.
func TestNewWarnsOnce(t *testing.T) {
	_, warnings := exporters(t, "http://127.0.0.1:1", ProtocolHTTP, map[string]string{
		"OTEL_EXPORTER_OTLP_TIMEOUT":          "10s",
		"OTEL_EXPORTER_OTLP_PROTOCOL":         "http/json",
		"OTEL_EXPORTER_OTLP_LOGS_COMPRESSION": "zstd",
	})
	if len(*warnings) != 3 {
		t.Errorf("%d warnings, want one per variable:\n%s", len(*warnings), strings.Join(*warnings, "\n"))
	}
}
