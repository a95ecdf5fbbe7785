//go:build unix

package builtin

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/proc"
)

// A command adopted into the background processes (the terminal's Ctrl+B)
// is listed, logs what it printed before and after, is stopped by Kill,
// and reports how it ended once its owner calls finish.
func TestBackgroundAdopt(t *testing.T) {
	b := NewBackground(t.TempDir())
	t.Cleanup(func() { b.Close() })
	cmd := exec.Command("sleep", "600")
	g := proc.New(cmd, proc.Options{})
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	log, finish, err := b.Adopt(g, "sleep 600", []byte("before\n"))
	if err != nil {
		t.Fatal(err)
	}
	log.Write([]byte("after\n"))
	waited := make(chan struct{})
	go func() {
		cmd.Wait()
		finish(nil, 9)
		close(waited)
	}()
	procs := b.List()
	if len(procs) != 1 || procs[0].PID != g.Pid() || !procs[0].Running || procs[0].Command != "sleep 600" {
		t.Fatalf("listed %+v", procs)
	}
	if !b.Kill(g.Pid()) {
		t.Fatal("Kill found no such process")
	}
	<-waited
	procs = b.List()
	if procs[0].Running || procs[0].Signal != 9 {
		t.Errorf("after Kill: %+v", procs[0])
	}
	data, err := os.ReadFile(procs[0].Log)
	if err != nil || strings.TrimSpace(string(data)) != "before\nafter" {
		t.Errorf("log %q, %v", data, err)
	}
}
