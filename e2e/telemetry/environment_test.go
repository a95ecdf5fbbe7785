package telemetry_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

// TestTelemetryEnvironment sends a turn's telemetry gzip-compressed, as
// OTEL_EXPORTER_OTLP_COMPRESSION asks, over both protocols to the real
// receiver; a variable that does not read is said on stderr, naming it,
// and the rest goes on.
func TestTelemetryEnvironment(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{"grpc", "http"} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			rc := startReceiver(t)
			e := e2etest.New(t)
			e.Write("README.md", e2etest.Readme)
			e.Srv.Enqueue(readScript(e.WS)...)
			endpoint := rc.GRPC
			if protocol == "http" {
				endpoint = "http://" + rc.HTTP
			}
			res := e.RunExtraEnv([]string{"OTEL_EXPORTER_OTLP_COMPRESSION=gzip", "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT=soon"},
				"-y", "-m", model, "-p", secretPrompt, "--telemetry", "--telemetry-otlp-protocol", protocol, "--telemetry-otlp-endpoint", endpoint)
			if res.Code != 0 {
				t.Fatalf("exit %d\nstderr: %s", res.Code, res.Stderr)
			}
			if want := `telemetry: OTEL_EXPORTER_OTLP_METRICS_TIMEOUT="soon": want milliseconds`; !strings.Contains(res.Stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, res.Stderr)
			}
			got := rc.waitFor("the turn's spans, metrics and events", complete)
			if strings.Contains(got.Raw, "PLUM-7731") {
				t.Error("the prompt's text reached the collector without logPrompts")
			}
		})
	}
}

// TestTelemetryPartialSuccess runs a turn against a collector that
// accepts every request but says it rejected part of it: the run
// succeeds, and stderr says what the collector said, once while the run
// goes and once for what was not all sent at exit.
func TestTelemetryPartialSuccess(t *testing.T) {
	t.Parallel()
	// ExportTraceServiceResponse{partial_success: {rejected: 1,
	// error_message: "over quota"}}; the three signals' responses share
	// the shape.
	partial := []byte{0x0a, 0x0e, 0x08, 0x01, 0x12, 0x0a, 'o', 'v', 'e', 'r', ' ', 'q', 'u', 'o', 't', 'a'}
	var mu sync.Mutex
	paths := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths[r.URL.Path] = true
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(partial)
	}))
	t.Cleanup(srv.Close)
	e := e2etest.New(t)
	e.Write("README.md", e2etest.Readme)
	e.Srv.Enqueue(readScript(e.WS)...)
	res := e.Run("-y", "-m", model, "-p", secretPrompt, "--telemetry", "--telemetry-otlp-protocol", "http", "--telemetry-otlp-endpoint", srv.URL)
	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.Code, res.Stderr)
	}
	for _, want := range []string{"telemetry to " + srv.URL + " (OTLP/http): ", "OTLP partial success: over quota (1 spans rejected)", "not all sent"} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, res.Stderr)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range []string{"/v1/traces", "/v1/metrics", "/v1/logs"} {
		if !paths[p] {
			t.Errorf("nothing was sent to %s (sent to %v)", p, paths)
		}
	}
}
