package telemetry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/agent"
)

var _ agent.LoopDisableObserver = (*Telemetry)(nil)

// TestLoopDetectionDisabled: turning loop detection off for a session is
// logged as Gemini CLI logs it, with the prompt's id.
func TestLoopDetectionDisabled(t *testing.T) {
	out := filepath.Join(t.TempDir(), "telemetry.log")
	tel, err := Start(context.Background(), Config{Enabled: true, Target: TargetLocal, Outfile: out}, Info{})
	if err != nil {
		t.Fatal(err)
	}
	tel.LoopDetectionDisabled(context.Background(), "s1", "s1########2")
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`gemini_cli.loop_detection_disabled`, `Loop detection disabled.`, `s1########2`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the outfile lacks %s:\n%s", want, b)
		}
	}
}
