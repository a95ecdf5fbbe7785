package cli

import (
	"testing"
	"time"

	"github.com/castor-dev/castor/agent"
)

// A session's telemetry hears each of the engine's optional observations.
var (
	_ agent.CompressionObserver = sessionTelemetry{}
	_ agent.RoutingObserver     = sessionTelemetry{}
	_ agent.LoopObserver        = sessionTelemetry{}
	_ agent.LoopDisableObserver = sessionTelemetry{}
)

func TestFlushBound(t *testing.T) {
	for _, c := range []struct {
		env  string
		want time.Duration
	}{
		{"", telemetryFlush},
		{"300", telemetryFlush},
		{"60000", time.Minute},
		{"nope", telemetryFlush},
		{"-5", telemetryFlush},
	} {
		got := flushBound(func(string) string { return c.env })
		if got != c.want {
			t.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT=%q: %v, want %v", c.env, got, c.want)
		}
	}
}
