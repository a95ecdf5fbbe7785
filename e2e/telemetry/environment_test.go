package telemetry_test

import (
	"strings"
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
