package ide_test

import (
	"context"
	"strings"
	"testing"

	"github.com/castor-dev/castor/ide"
)

// TestLostConnectionWarning: when the editor closes, the user reads that
// the IDE connection closed, not the MCP transport's internals (SSE
// stream retries, session ids); those go to the debug log.
func TestLostConnectionWarning(t *testing.T) {
	e := newEnv(t)
	srv := e.start(t, newFakeEditor())
	warns := make(chan string, 16)
	o := e.options()
	o.Warn = func(s string) { warns <- s }
	o.Logf = func(format string, args ...any) {}
	c, err := ide.Connect(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv.Stop(context.Background())
	w := recv(t, warns, "the lost-connection warning")
	if !strings.Contains(w, "IDE connection closed") {
		t.Errorf("warning %q does not say the connection closed", w)
	}
	for _, jargon := range []string{"SSE", "session ID", "retries"} {
		if strings.Contains(w, jargon) {
			t.Errorf("warning %q shows transport internals (%s)", w, jargon)
		}
	}
	waitFor(t, c, "disconnected", func() bool { return c.Status().State == ide.Disconnected })
	if d := c.Status().Detail; strings.Contains(d, "SSE") {
		t.Errorf("status detail %q shows transport internals", d)
	}
}
