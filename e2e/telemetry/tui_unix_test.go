//go:build unix

package telemetry_test

import (
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestTelemetryWarningsInTerminal runs the interactive terminal with
// telemetry to a collector that is down, and target gcp: the gcp notice
// and the failed export are the terminal's notices, not log lines written
// over its screen, and the flush's failure is said after the terminal has
// left the screen.
func TestTelemetryWarningsInTerminal(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: every export is refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	l.Close()
	e := e2etest.New(t, fakegemini.Text("Hello."))
	// Spans are exported within 50 ms of the turn, and an export gives
	// up after 300 ms, so that the failure comes while the terminal runs.
	e.TUIEnv = append(e.TUIEnv, "OTEL_BSP_SCHEDULE_DELAY=50", "OTEL_EXPORTER_OTLP_TIMEOUT=300")
	tm := e.StartTUI("-m", model, "--telemetry", "--telemetry-target", "gcp", "--telemetry-otlp-endpoint", down)
	tm.WaitFor("no direct Google Cloud exporter")
	tm.Submit("hi")
	s := tm.WaitUntil("the failed export's notice", func(s string) bool {
		return e2etest.Idle(s) && strings.Contains(s, "Hello.") && strings.Contains(s, "later failures are not shown")
	})
	// The notices are the terminal's own (⚠), never a raw line written
	// over it: neither "Warning: …" on stderr nor the SDK's log line
	// ("2026/12/07 05:00:00 traces export: …").
	for _, want := range []string{"⚠ telemetry.target gcp: Castor has no direct Google Cloud exporter", "⚠ telemetry to " + down + " (OTLP/grpc): traces export"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen has no notice %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Warning:") || logLine.MatchString(s) {
		t.Errorf("a telemetry warning was written over the terminal:\n%s", s)
	}
	tm.Keys("C-d")
	end := tm.WaitUntil("castor's exit", func(s string) bool { return strings.Contains(s, "[exited]") })
	tail := end[strings.LastIndex(end, "To resume it:"):]
	if !strings.Contains(tail, "Warning: telemetry to "+down) || !strings.Contains(tail, "not all sent") {
		t.Errorf("the flush's failure is not said after the terminal's last words:\n%s", end)
	}
}

// logLine is a line of Go's standard logger, which OpenTelemetry's default
// error handler writes on stderr.
var logLine = regexp.MustCompile(`(?m)^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d `)
