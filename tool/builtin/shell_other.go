//go:build !unix

package builtin

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"sync"
)

// runShell is the minimal runner for systems without process groups: the
// command runs under bash from PATH, cancellation kills the shell only,
// and no background processes are reported.
func runShell(ctx context.Context, req shellRequest) shellResult {
	one := 1
	cmd := exec.Command("bash", "-c", req.command)
	cmd.Dir = req.dir
	cmd.Env = req.env
	var mu sync.Mutex
	var buf bytes.Buffer
	w := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	})
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		return shellResult{err: err, exitCode: &one}
	}
	res := shellResult{pid: cmd.Process.Pid}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-exited:
	case <-ctx.Done():
		res.aborted = true
		_ = cmd.Process.Kill()
		waitErr = <-exited
	}
	mu.Lock()
	res.output = buf.String()
	mu.Unlock()
	if st := cmd.ProcessState; st != nil {
		code := st.ExitCode()
		res.exitCode = &code
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		res.err = waitErr
	}
	if req.out != nil && res.output != "" {
		req.out(res.output)
	}
	return res
}

// writerFunc adapts a function to io.Writer.
type writerFunc func([]byte) (int, error)

// Write implements io.Writer.
func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
