//go:build unix

package proc

import (
	"os"
	"syscall"

	"github.com/creack/pty"
)

// StartPTY starts the command on a new pseudo-terminal of the given size,
// as the leader of a new session (and so of a new process group, which
// Stop, Terminate and Kill end whole) with the terminal as its
// controlling terminal; the sandbox applies as for Start. The command's
// standard input, output and error are the terminal, unless already set.
// It returns the master side: what is written to it is typed into the
// command, and reading it returns the command's output until the command
// and everything holding the terminal have exited. The caller closes it.
func (g *Group) StartPTY(size Size) (*os.File, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, err
	}
	defer tty.Close() // the command holds its own copies
	if size.Cols > 0 && size.Rows > 0 {
		_ = pty.Setsize(ptmx, &pty.Winsize{Cols: size.Cols, Rows: size.Rows})
	}
	c := g.cmd
	if c.Stdin == nil {
		c.Stdin = tty
	}
	if c.Stdout == nil {
		c.Stdout = tty
	}
	if c.Stderr == nil {
		c.Stderr = tty
	}
	// A session of its own instead of prepare's process group: a new
	// session is also a new group, led by the command, and only a
	// session leader can take a controlling terminal. Ctty is the
	// command's descriptor for the terminal: its standard input.
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: c.Stdin == tty, Ctty: 0}
	if c.Cancel != nil {
		c.Cancel = g.cancel
	}
	start := c.Start
	if s := sandbox.Load(); s != nil {
		start = func() error { return (*s).Start(c) }
	}
	if err := start(); err != nil {
		ptmx.Close()
		return nil, err
	}
	g.mu.Lock()
	g.sys = join(c, g.opts)
	g.mu.Unlock()
	return ptmx, nil
}

// ResizePTY tells the command its terminal's new size.
func ResizePTY(ptmx *os.File, size Size) error {
	return pty.Setsize(ptmx, &pty.Winsize{Cols: size.Cols, Rows: size.Rows})
}
