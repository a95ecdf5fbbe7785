//go:build unix

package acp_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/model/fake"
)

// stdioChild makes the test binary, run again by
// TestServeStdioClientStopsReading, serve ACP on its own stdio.
const stdioChild = "CASTOR_ACP_STDIO_CHILD"

// TestServeStdioClientStopsReading: an editor that closes its end of the
// agent's stdout must not kill a program serving with ServeStdio by
// SIGPIPE (Go's default for a broken stdout): the write fails, serving
// ends with a word on the log, and the program goes on to exit by itself.
func TestServeStdioClientStopsReading(t *testing.T) {
	if os.Getenv(stdioChild) != "" {
		srv := acp.NewServer(castor.WithClient(fake.Script(fake.Text("ok"))), castor.WithoutSettings(),
			castor.WithHomeDir(os.Getenv(stdioChild)), castor.WithEnv(noEnv))
		err := srv.ServeStdio(context.Background())
		fmt.Fprintf(os.Stderr, "ServeStdio returned %v\n", err)
		os.Exit(0) // before the test framework writes to the broken stdout
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeStdioClientStopsReading$")
	cmd.Env = append(os.Environ(), stdioChild+"="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = outW
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The client is gone before the agent answers anything.
	outW.Close()
	outR.Close()
	defer stdin.Close()
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(time.Minute): // a hang, not a timing assertion
		cmd.Process.Kill()
		t.Fatalf("the server did not end when its client stopped reading; stderr:\n%s", stderr.String())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("the server died of %v; stderr:\n%s", ws.Signal(), stderr.String())
		}
		t.Fatalf("the server failed: %v; stderr:\n%s", err, stderr.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the client stopped reading", "broken pipe", "ServeStdio returned <nil>"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
		}
	}
}
