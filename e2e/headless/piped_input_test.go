package headless_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestPipedInputTooLong pipes more than the 8 MiB castor reads from stdin:
// the prompt is cut and castor says so on stderr with Gemini CLI's
// warning, instead of answering a silently shortened prompt.
func TestPipedInputTooLong(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("read it"))
	cmd := e2etest.Command(t, "-p", "summarize")
	cmd.Dir = e.WS
	cmd.Env = e.Environ()
	cmd.Stdin = strings.NewReader(strings.Repeat("log line\n", (9<<20)/9))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	if stdout.String() != "read it\n" {
		t.Errorf("stdout %q", stdout.String())
	}
	if !strings.Contains(stderr.String(), "Warning: stdin input truncated to 8388608 bytes.") {
		t.Errorf("stderr %q", stderr.String())
	}
}
