//go:build unix

package telemetry_test

import (
	"errors"
	"net"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestTelemetryOffConnectsNowhere checks that without telemetry turned on
// castor connects to no endpoint, even one configured everywhere else.
func TestTelemetryOffConnectsNowhere(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Text("Hello."))
	e.WriteUserSettings(`{"telemetry": {"enabled": false, "otlpEndpoint": "http://` + l.Addr().String() + `"}}`)
	res := e.RunExtraEnv([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + l.Addr().String()}, "-p", "hi", "--telemetry-otlp-endpoint", l.Addr().String())
	if res.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.Code, res.Stderr)
	}
	// castor has exited: a connection it made waits in the backlog.
	if pending(t, l.(*net.TCPListener)) {
		t.Fatal("castor connected to the OTLP endpoint with telemetry off")
	}
}

// pending reports whether a connection waits in l's backlog, without
// waiting: an accept on the listener's non-blocking socket, which says
// EAGAIN when none has come.
func pending(t *testing.T, l *net.TCPListener) bool {
	t.Helper()
	rc, err := l.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var got bool
	var aerr error
	if err := rc.Control(func(fd uintptr) {
		nfd, _, err := syscall.Accept(int(fd))
		if err == nil {
			got = true
			syscall.Close(nfd)
			return
		}
		if !errors.Is(err, syscall.EAGAIN) {
			aerr = err
		}
	}); err != nil {
		t.Fatal(err)
	}
	if aerr != nil {
		t.Fatal(aerr)
	}
	return got
}

// TestTelemetryFlushedOnSIGTERM stops castor mid-turn with SIGTERM: what
// it had, the turn's span (ended in error), its prompt event and the
// model call that failed, still reaches the collector.
func TestTelemetryFlushedOnSIGTERM(t *testing.T) {
	t.Parallel()
	rc := startReceiver(t)
	e := e2etest.New(t, fakegemini.Hang())
	p := e.Start(e2etest.Options{}, "-m", model, "-p", secretPrompt, "--telemetry", "--telemetry-otlp-endpoint", rc.GRPC)
	e2etest.InterruptMidTurn(t, p, e.Srv, syscall.SIGTERM)
	got := rc.waitFor("the stopped turn's telemetry", func(r received) bool {
		return len(r.spans("user_prompt")) == 1 && len(r.logs("gemini_cli.user_prompt")) == 1 && len(r.logs("gemini_cli.api_error")) == 1
	})
	if turn := got.spans("user_prompt")[0]; turn.StatusCode != 2 { // STATUS_CODE_ERROR
		t.Errorf("the stopped turn's span has status %d, want an error", turn.StatusCode)
	}
}
