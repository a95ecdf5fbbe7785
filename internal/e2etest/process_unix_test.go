//go:build unix

package e2etest

import (
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/proc/proctest"
)

// sh starts a shell script as a Process.
func sh(t *testing.T, o Options, script string) *Process {
	t.Helper()
	return StartCommand(t, exec.Command("sh", "-c", script), o)
}

func TestProcessLinesAndExit(t *testing.T) {
	t.Parallel()
	p := sh(t, Options{}, `echo one; echo noise; echo 'Castor X server listening on http://127.0.0.1:9/ '; echo warn >&2; printf 'two\nthree'; exit 3`)
	if got := p.Line("the first line"); got != "one" {
		t.Errorf("Line = %q", got)
	}
	if got := p.ListenURL(); got != "http://127.0.0.1:9/" {
		t.Errorf("ListenURL = %q", got)
	}
	if got := p.ExitCode(); got != 3 {
		t.Errorf("ExitCode = %d", got)
	}
	// After the exit, the unread lines are all there, the last one
	// without its newline too.
	if got := slices.Collect(p.Unread()); !slices.Equal(got, []string{"two", "three"}) {
		t.Errorf("Unread = %q", got)
	}
	if p.Stderr.String() != "warn\n" || !strings.HasPrefix(p.Stdout.String(), "one\nnoise\n") {
		t.Errorf("stdout %q, stderr %q", p.Stdout, p.Stderr)
	}
}

func TestProcessStdinAndSignal(t *testing.T) {
	t.Parallel()
	p := sh(t, Options{Stdin: true}, `read line; echo "got $line"; exec sleep 600`)
	p.Send("hello")
	if got := p.LineWhere("the echo", func(l string) bool { return strings.HasPrefix(l, "got ") }); got != "got hello" {
		t.Errorf("LineWhere = %q", got)
	}
	p.Signal(syscall.SIGTERM)
	if err := p.Wait(); err == nil || !strings.Contains(err.Error(), "terminated") {
		t.Errorf("Wait = %v, want the SIGTERM", err)
	}
	if got := p.ExitCode(); got != -1 {
		t.Errorf("ExitCode = %d, want -1 for a signal", got)
	}
}

func TestProcessCloseStdinEndsReader(t *testing.T) {
	t.Parallel()
	p := sh(t, Options{Stdin: true}, `cat; echo done`)
	p.Send("a")
	p.CloseStdin()
	p.WantExit(0)
	if got := slices.Collect(p.Unread()); !slices.Equal(got, []string{"a", "done"}) {
		t.Errorf("Unread = %q", got)
	}
}

// TestProcessOutputHeldOpen: a child that outlives the process and keeps
// its stdout does not hold up Wait past the hang limit.
func TestProcessOutputHeldOpen(t *testing.T) {
	t.Parallel()
	p := sh(t, Options{HangLimit: 200 * time.Millisecond}, `sleep 600 & echo $!`)
	pid, err := strconv.Atoi(p.Line("the child's pid"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL); proctest.WaitGone(t, pid) })
	if err := p.Wait(); err != nil {
		t.Errorf("Wait = %v", err)
	}
}

// TestProcessEndsWithTest: the cleanup kills a process the test left
// running and reaps it.
func TestProcessEndsWithTest(t *testing.T) {
	t.Parallel()
	var pid int
	t.Run("leaves it running", func(t *testing.T) {
		p := sh(t, Options{}, `echo up; exec sleep 600`)
		p.Line("up")
		pid = p.Cmd.Process.Pid
	})
	if !proctest.Gone(pid) {
		t.Errorf("process %d still runs after its test ended", pid)
	}
}
