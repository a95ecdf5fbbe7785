//go:build unix

package proc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/proc/proctest"
)

// startScript starts script under sh in a group and returns the pid it
// prints first: the background child whose fate the test checks.
func startScript(t *testing.T, ctx context.Context, script string, o Options) (*Group, *exec.Cmd, int) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	g := New(cmd, o)
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = g.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no pid from the script: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return g, cmd, pid
}

// TestStop: Stop ends the command and what it left in the background,
// SIGKILL reaching those that ignore SIGTERM once the grace is over.
func TestStop(t *testing.T) {
	tests := []struct {
		name   string
		script string
		grace  time.Duration
	}{
		{"kill at once", `sleep 300 >/dev/null & echo $!; wait`, 0},
		{"SIGTERM obeyed", `sleep 300 >/dev/null & echo $!; wait`, time.Minute},
		{"SIGTERM ignored", `trap '' TERM; sleep 300 >/dev/null & echo $!; wait`, 50 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, cmd, child := startScript(t, context.Background(), tt.script, Options{Grace: tt.grace})
			if proctest.Gone(child) {
				t.Fatal("the child is not running before the stop")
			}
			g.Stop()
			if g.Alive() {
				_ = g.Kill() // so that Wait returns
				t.Error("the group is alive after Stop")
			}
			_ = cmd.Wait()
			proctest.WaitGone(t, child)
		})
	}
}

// TestCancel: the end of the context of a command made with
// exec.CommandContext stops its whole group, not only its own process.
func TestCancel(t *testing.T) {
	for _, grace := range []time.Duration{0, time.Minute} {
		t.Run("grace "+grace.String(), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			_, cmd, child := startScript(t, ctx, `sleep 300 >/dev/null & echo $!; wait`, Options{Grace: grace})
			cancel()
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("Wait = %v, want the exit of a signalled command", err)
			}
			want := syscall.SIGKILL
			if grace > 0 {
				want = syscall.SIGTERM
			}
			if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != want {
				t.Errorf("ended by %v, want %v", ee, want)
			}
			proctest.WaitGone(t, child)
		})
	}
}

// TestPIDs: once the leader has exited, PIDs names what it left running,
// and the group stays alive until that is stopped.
func TestPIDs(t *testing.T) {
	g, cmd, child := startScript(t, context.Background(), `sleep 300 >/dev/null 2>&1 & echo $!`, Options{})
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if pids := g.PIDs(); !slices.Equal(pids, []int{child}) {
		t.Errorf("PIDs() = %v, want [%d]", pids, child)
	}
	if !g.Alive() {
		t.Error("Alive() = false with a child running")
	}
	g.Stop()
	proctest.WaitGone(t, child)
	if g.Alive() {
		t.Error("Alive() = true after Stop")
	}
}

// TestStartFails: a command that cannot start reports why and leaves no
// group behind.
func TestStartFails(t *testing.T) {
	err := New(exec.Command("/nonexistent/castor-proc-test"), Options{}).Run()
	if err == nil {
		t.Fatal("Run of a missing program succeeded")
	}
}
