//go:build unix

package proc

import (
	"bufio"
	"os/exec"
	"strings"
	"testing"
)

// TestStartPTY: a command that reads its input gets the line typed into
// the terminal, sees a terminal (test -t), and its output, the echoed
// input included, is read from the master side.
func TestStartPTY(t *testing.T) {
	cmd := exec.Command("sh", "-c", `test -t 0 && echo tty; read x; echo "got $x"`)
	g := New(cmd, Options{})
	ptmx, err := g.StartPTY(Size{Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Kill(); ptmx.Close(); cmd.Wait() })
	r := bufio.NewReader(ptmx)
	line := func() string {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the terminal: %v", err)
		}
		return strings.TrimRight(l, "\r\n")
	}
	if l := line(); l != "tty" {
		t.Fatalf("first line %q, want tty", l)
	}
	if _, err := ptmx.Write([]byte("hello\r")); err != nil {
		t.Fatal(err)
	}
	if l := line(); l != "hello" {
		t.Errorf("echo %q", l)
	}
	if l := line(); l != "got hello" {
		t.Errorf("answer %q", l)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
	if g.Pid() <= 0 {
		t.Error("no pid")
	}
}
