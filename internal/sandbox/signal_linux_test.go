//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/castor-dev/castor/internal/proc"
	"github.com/castor-dev/castor/internal/proc/proctest"
)

// TestNoSignalsOut: a confined command may signal what it started
// itself, but neither the process that confined it (Castor) nor an
// unrelated process of the same user; unconfined, it may.
func TestNoSignalsOut(t *testing.T) {
	s, ws, _, _ := landlockSandbox(t)
	sandboxes := []struct {
		name string
		s    proc.Sandbox
		// confined is whether signals out are refused.
		confined bool
	}{{"plain", nil, false}}
	if usableABI() >= 6 {
		sandboxes = append(sandboxes, struct {
			name     string
			s        proc.Sandbox
			confined bool
		}{"landlock", s, true})
	} else {
		t.Logf("Landlock ABI %d has no signal scoping: only bwrap is checked", usableABI())
	}
	if _, err := exec.LookPath("bwrap"); err == nil {
		p := s.Profile
		p.Method = Bwrap
		bw, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		sandboxes = append(sandboxes, struct {
			name     string
			s        proc.Sandbox
			confined bool
		}{"bwrap", bw, true})
	} else if os.Getenv("CI") == "true" {
		t.Fatal("CI needs bwrap (bubblewrap)")
	}
	for _, sb := range sandboxes {
		t.Run(sb.name, func(t *testing.T) {
			proc.SetSandbox(sb.s)
			defer proc.SetSandbox(nil)
			run := func(script string) (string, error) {
				cmd := exec.Command("/bin/bash", "-c", script)
				cmd.Dir = ws
				var out strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &out
				err := proc.New(cmd, proc.Options{}).Run()
				return out.String(), err
			}
			// Its own child, in its own domain or namespace.
			if out, err := run("sleep 600 & kill $! && wait $!; echo status=$?"); err != nil || !strings.Contains(out, "status=143") {
				t.Errorf("killing its own child: %v: %s", err, out)
			}
			// An unrelated process: SIGTERM, which would end it.
			victim, exited := proctest.Bystander(t)
			out, err := run(fmt.Sprintf("kill -TERM %d", victim))
			if refused := err != nil; refused != sb.confined {
				t.Errorf("kill of an unrelated process refused %v, want %v: %s", refused, sb.confined, out)
			}
			if sb.confined {
				// Still running: Wait has not returned.
				select {
				case <-exited:
					t.Error("the unrelated process ended")
				default:
				}
				if err := syscall.Kill(victim, 0); err != nil {
					t.Errorf("the unrelated process is gone: %v", err)
				}
			} else {
				<-exited // ended by the command's SIGTERM
			}
			// This process, Castor's stand-in: signal 0 asks only
			// whether it may be signalled, and harms nothing. Many
			// times, since the thread a command is confined from
			// could be the main one, whose domain is the process's.
			for range 50 {
				out, err = run(fmt.Sprintf("kill -0 %d", os.Getpid()))
				if refused := err != nil; refused != sb.confined {
					t.Fatalf("signalling the confining process refused %v, want %v: %s", refused, sb.confined, out)
				}
			}
		})
	}
}

// onMain runs functions on the main thread, which TestMain holds.
var onMain = make(chan func())

// init keeps the main goroutine, and so TestMain, on the main thread.
func init() { runtime.LockOSThread() }

// TestMain serves onMain from the main thread while the tests run.
func TestMain(m *testing.M) {
	code := make(chan int)
	go func() { code <- m.Run() }()
	for {
		select {
		case f := <-onMain:
			f()
		case c := <-code:
			os.Exit(c)
		}
	}
}

// TestNotConfinedFromMainThread: a command whose start begins on the
// main thread is confined from another one: the process's id is the
// main thread's, and a command sharing its domain could signal Castor.
func TestNotConfinedFromMainThread(t *testing.T) {
	s, ws, _, _ := landlockSandbox(t)
	if usableABI() < 6 {
		t.Skipf("Landlock ABI %d has no signal scoping", usableABI())
	}
	r, err := newLandlockRuleset(s.Profile)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	cmd := exec.Command("/bin/bash", "-c", fmt.Sprintf("kill -0 %d", os.Getpid()))
	cmd.Dir = ws
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	started := make(chan error, 1)
	onMain <- func() {
		if unix.Gettid() != unix.Getpid() {
			started <- errors.New("TestMain is not on the main thread")
			return
		}
		errc := make(chan error, 1)
		r.startConfined(cmd, errc)
		started <- <-errc
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Errorf("a command started from the main thread signalled this process: %s", out.String())
	}
}
