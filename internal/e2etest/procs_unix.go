//go:build unix

package e2etest

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ReadPids waits for a script a test gave castor to have written its two
// child pids to file, and returns them.
func ReadPids(t *testing.T, file string) []int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(file)
		if f := strings.Fields(string(b)); len(f) == 2 {
			var pids []int
			for _, s := range f {
				pid, err := strconv.Atoi(s)
				if err != nil {
					t.Fatal(err)
				}
				pids = append(pids, pid)
			}
			return pids
		}
	}
	t.Fatalf("the server never wrote its children's pids to %s", file)
	return nil
}

// WaitExited waits for pid to be gone (or a zombie awaiting its reaper),
// and kills it if it is not: a generous bound on a hang, not a timing.
func WaitExited(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return
		}
		out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
		if err != nil || strings.HasPrefix(strings.TrimSpace(string(out)), "Z") {
			return
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	out, _ := exec.Command("ps", "-o", "args=", "-p", strconv.Itoa(pid)).Output()
	t.Errorf("process %d (%s) still runs after castor exited", pid, strings.TrimSpace(string(out)))
}
