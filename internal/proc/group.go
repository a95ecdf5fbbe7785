package proc

import (
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// Sandbox confines the commands started from here (internal/sandbox).
type Sandbox interface {
	// Start starts cmd (exec.Cmd.Start) confined.
	Start(cmd *exec.Cmd) error
	// Denials explains, in lines for the model, what in a failed
	// command's output the sandbox denied; "" when nothing.
	Denials(output string) string
}

// sandbox is the active Sandbox, if any.
var sandbox atomic.Pointer[Sandbox]

// SetSandbox makes every command started from now on run confined by s
// (nil: unconfined): the one place the sandbox plugs in, so that no
// runner of user commands can forget it.
func SetSandbox(s Sandbox) {
	if s == nil {
		sandbox.Store(nil)
		return
	}
	sandbox.Store(&s)
}

// Denials is the active sandbox's explanation of a failed command's
// output ("" without a sandbox).
func Denials(output string) string {
	if s := sandbox.Load(); s != nil {
		return (*s).Denials(output)
	}
	return ""
}

// Options say how a command's group is stopped and how long it lives.
type Options struct {
	// Grace is how long the group has to exit after SIGTERM before it is
	// killed, when it is stopped (Stop, or the end of the context of a
	// command made with exec.CommandContext). Zero kills at once. Windows
	// has no polite stop for a console program: there it always kills.
	Grace time.Duration
	// Tether ends the group when Castor exits, where the system can
	// (Windows: the job kills its processes when its last handle closes,
	// even when Castor is killed). Without it what the command left
	// running in the background outlives Release, as on Unix.
	Tether bool
	// Unconfined starts the command outside the sandbox: a program the
	// user configured for Castor itself (a language server reading the
	// trusted project), not a command of the model.
	Unconfined bool
}

// Group is the process group a started command leads (a job object on
// Windows): the command and everything it starts, unless a process moves
// itself out (setsid, a daemon).
type Group struct {
	cmd  *exec.Cmd
	opts Options
	mu   sync.Mutex // guards sys against Kill and Release racing
	sys  groupSys
}

// New returns the group cmd, not yet started, will lead. Its methods may
// be called once Start has returned, and Kill and Stop also from cmd's
// output writers as soon as output arrives.
func New(cmd *exec.Cmd, o Options) *Group { return &Group{cmd: cmd, opts: o} }

// Start starts the command as the leader of a new group. A command made
// with exec.CommandContext stops its whole group when the context ends,
// as Options.Grace says, rather than killing its own process only.
func (g *Group) Start() error {
	prepare(g.cmd)
	if g.cmd.Cancel != nil {
		g.cmd.Cancel = g.cancel
	}
	start := g.cmd.Start
	if s := sandbox.Load(); s != nil && !g.opts.Unconfined {
		start = func() error { return (*s).Start(g.cmd) }
	}
	if err := start(); err != nil {
		return err
	}
	g.mu.Lock()
	g.sys = join(g.cmd, g.opts)
	g.mu.Unlock()
	return nil
}

// Run starts the command, waits for it and releases its group.
func (g *Group) Run() error {
	if err := g.Start(); err != nil {
		return err
	}
	defer g.Release()
	return g.cmd.Wait()
}

// Pid is the leader's process id; on Unix also the group's id.
func (g *Group) Pid() int { return g.cmd.Process.Pid }

// Stop ends the group: SIGTERM, then SIGKILL for whatever is left once
// the grace period passes. It returns once the group is empty, or a
// moment after SIGKILL when a process is stuck in the kernel.
func (g *Group) Stop() {
	if g.opts.Grace > 0 && g.Terminate() == nil && g.awaitEmpty(g.opts.Grace) {
		return
	}
	_ = g.Kill()
	g.awaitEmpty(killWait)
}

// killWait bounds how long Stop waits for killed processes to go.
const killWait = time.Second

// cancel is exec.Cmd.Cancel: Stop without waiting.
func (g *Group) cancel() error {
	if g.opts.Grace <= 0 {
		return g.Kill()
	}
	if err := g.Terminate(); err != nil {
		return g.Kill()
	}
	go func() {
		if !g.awaitEmpty(g.opts.Grace) {
			_ = g.Kill()
		}
	}()
	return nil
}

// awaitEmpty waits up to d for the group to empty and reports whether it
// did.
func (g *Group) awaitEmpty(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if !g.Alive() {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(min(pause, time.Until(deadline)))
	}
}
