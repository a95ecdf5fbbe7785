//go:build unix

package tui

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/tool/builtin"
)

// TestPTYShell: the model's command runs on a terminal (tty succeeds),
// its output comes back with the escape sequences and carriage returns
// gone and its exit code kept; the terminal is told when it starts and
// ends; with the setting off the command goes back to the pipes.
func TestPTYShell(t *testing.T) {
	var mu sync.Mutex
	var msgs []ptyCallMsg
	p := &ptyShell{send: func(m tea.Msg) {
		mu.Lock()
		defer mu.Unlock()
		msgs = append(msgs, m.(ptyCallMsg))
	}}
	out := p.run(context.Background(), builtin.ShellCommand{
		Command: `tty >/dev/null && printf 'one\r\n\033[1mtwo\033[0m\n'; exit 3`,
		Dir:     t.TempDir(), Env: os.Environ(), Timeout: time.Minute,
	})
	if out.Err != nil || out.ExitCode == nil || *out.ExitCode != 3 || out.Output != "one\ntwo" {
		t.Fatalf("outcome %+v (output %q)", out, out.Output)
	}
	mu.Lock()
	if len(msgs) != 2 || msgs[0].done || !msgs[1].done || msgs[0].call != msgs[1].call {
		t.Errorf("start and end messages: %+v", msgs)
	}
	mu.Unlock()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out = p.run(ctx, builtin.ShellCommand{Command: "sleep 30", Dir: t.TempDir(), Env: os.Environ()})
	if out.ExitCode != nil && *out.ExitCode == 0 {
		t.Errorf("a cancelled command ended well: %+v", out)
	}

	// Silent for longer than the inactivity bound: stopped.
	out = p.run(context.Background(), builtin.ShellCommand{Command: "sleep 30", Dir: t.TempDir(), Env: os.Environ(), Timeout: 100 * time.Millisecond})
	if !out.TimedOut {
		t.Errorf("a silent command was not stopped: %+v", out)
	}

	p.off.Store(true)
	if out := p.run(context.Background(), builtin.ShellCommand{Command: "true"}); !errors.Is(out.Err, builtin.ErrShellLocal) {
		t.Errorf("with the setting off: %+v", out)
	}
}
