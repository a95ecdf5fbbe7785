//go:build unix

package builtin

// The model stops its background processes as Gemini CLI's shell tool
// description tells it to: `kill -- -PGID` through run_shell_command. A
// sandboxed command cannot do that itself: Landlock's signal scoping
// gives every command a domain of its own (so no command signals Castor
// or the user's other processes), and bubblewrap and containers put it
// in a pid namespace of its own. So the `kill` commands a line starts
// with are performed by Castor when every target is a process this
// session started in the background; the rest of the line still runs
// in the sandbox, and any other `kill` is left to it (and to its
// refusal).

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/castor-dev/castor/internal/shellword"
	"golang.org/x/sys/unix"
)

// killWaitBound is how long a kill Castor performs waits for a
// background command it signalled to exit, so that what the line does
// next (from inside a sandbox that cannot see it) finds it gone.
const killWaitBound = 3 * time.Second

// killCmd is one recognised `kill`: a signal to targets.
type killCmd struct {
	sig     syscall.Signal
	targets []int // negative: a process group
	quiet   bool  // its errors went to /dev/null
}

// killStep is a kill, then what follows it in an && or || list.
type killStep struct {
	kill killCmd
	op   syntax.BinCmdOperator // 0, AndStmt or OrStmt
	next *syntax.Stmt          // run after kill when op allows
}

// splitKills takes the leading kill commands off a command line: the
// steps Castor performs and the statements left for the shell. ok is
// false when the line does not start with a kill whose every target
// owned accepts (a pid when group is false, a group id when true).
func splitKills(command string, owned func(target int, group bool) bool) (steps []killStep, rest []*syntax.Stmt, ok bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, nil, false
	}
	stmts := f.Stmts
	for len(stmts) > 0 {
		s := stmts[0]
		step, ok := killStepOf(s, owned)
		if !ok {
			break
		}
		steps = append(steps, step)
		stmts = stmts[1:]
	}
	return steps, stmts, len(steps) > 0
}

// killStepOf reads s as a recognised kill, alone or on the left of one
// && or ||.
func killStepOf(s *syntax.Stmt, owned func(int, bool) bool) (killStep, bool) {
	if s.Negated || s.Background || s.Coprocess || len(s.Comments) > 0 {
		return killStep{}, false
	}
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && len(s.Redirs) == 0 && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) {
		k, ok := killOf(b.X, owned)
		if !ok {
			return killStep{}, false
		}
		return killStep{kill: k, op: b.Op, next: b.Y}, true
	}
	k, ok := killOf(s, owned)
	return killStep{kill: k}, ok
}

// killOf reads s as `kill [-s SIG | -SIG | --] target...` with literal
// words only, its output at most sent to /dev/null, and every target
// owned.
func killOf(s *syntax.Stmt, owned func(int, bool) bool) (killCmd, bool) {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Negated || s.Background || s.Coprocess || len(call.Assigns) > 0 || len(call.Args) < 2 {
		return killCmd{}, false
	}
	k := killCmd{sig: syscall.SIGTERM}
	for _, r := range s.Redirs {
		if r.Hdoc != nil || r.Word == nil || shellword.Literal(r.Word) != "/dev/null" ||
			!slices.Contains([]syntax.RedirOperator{syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll}, r.Op) {
			return killCmd{}, false
		}
		k.quiet = true
	}
	words := make([]string, len(call.Args))
	for i, w := range call.Args {
		if words[i] = shellword.Literal(w); words[i] == "" {
			return killCmd{}, false
		}
	}
	if words[0] != "kill" {
		return killCmd{}, false
	}
	args := words[1:]
	// One option at most, as bash's kill reads them: -s SIG, -n NUM,
	// -SIG or -NUM; then an optional "--".
	switch a := args[0]; {
	case a == "--":
	case a == "-s" || a == "-n":
		if len(args) < 2 {
			return killCmd{}, false
		}
		sig, ok := signalNamed(args[1])
		if !ok {
			return killCmd{}, false
		}
		k.sig, args = sig, args[1:]
	case strings.HasPrefix(a, "-") && len(a) > 1:
		sig, ok := signalNamed(a[1:])
		if !ok {
			return killCmd{}, false
		}
		k.sig = sig
	default:
		args = append([]string{""}, args...) // no option: every word is a target
	}
	args = args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return killCmd{}, false
	}
	for _, a := range args {
		group := strings.HasPrefix(a, "-")
		n, err := strconv.Atoi(strings.TrimPrefix(a, "-"))
		if err != nil || n <= 1 || !owned(n, group) {
			return killCmd{}, false
		}
		if group {
			n = -n
		}
		k.targets = append(k.targets, n)
	}
	return k, true
}

// signalNamed reads a signal as kill takes it: a number, or a name with
// or without SIG, in any case.
func signalNamed(s string) (syscall.Signal, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 || n > 64 {
			return 0, false
		}
		return syscall.Signal(n), true
	}
	name := strings.ToUpper(s)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	sig := unix.SignalNum(name)
	return sig, sig != 0
}

// owns reports whether target is a running background process of this
// session: its leader's pid or group id, or (group false) a process of
// one of those groups.
func (b *Background) owns(target int, group bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.procs {
		select {
		case <-p.done:
			continue
		default:
		}
		if p.pid == target {
			return true
		}
		if !group && slices.Contains(p.group.PIDs(), target) {
			return true
		}
	}
	return false
}

// ownKills performs the leading kills of command when they target only
// this session's background processes (see splitKills). It returns
// what kill said (bash's words) and its status, and the rest of the
// line for the shell ("" for nothing); ok is false when Castor left the
// whole line to the shell.
func (b *Background) ownKills(command string) (output string, status int, rest string, ok bool) {
	steps, stmts, ok := splitKills(command, b.owns)
	if !ok {
		return "", 0, "", false
	}
	var out strings.Builder
	var tail []*syntax.Stmt
	for _, st := range steps {
		msg, code := b.signal(st.kill)
		if !st.kill.quiet {
			out.WriteString(msg)
		}
		status = code
		if st.next != nil && (st.op == syntax.AndStmt) == (code == 0) {
			tail = append(tail, st.next)
		}
	}
	tail = append(tail, stmts...)
	if len(tail) > 0 {
		var sb strings.Builder
		p := syntax.NewPrinter()
		for _, s := range tail {
			if err := p.Print(&sb, s); err != nil {
				return "", 0, "", false
			}
			sb.WriteString("\n")
		}
		rest = sb.String()
	}
	return out.String(), status, rest, true
}

// signal sends k's signal to each target and, for a signal that ends a
// process by default, waits (a bounded time) for a signalled leader to
// exit. It returns bash's messages for targets gone and kill's status.
func (b *Background) signal(k killCmd) (string, int) {
	var msgs strings.Builder
	status := 0
	var wait []*bgProc
	for _, t := range k.targets {
		if err := syscall.Kill(t, k.sig); err != nil {
			fmt.Fprintf(&msgs, "bash: line 1: kill: (%d) - %s\n", t, errnoText(err))
			status = 1
			continue
		}
		b.mu.Lock()
		p := b.procs[max(t, -t)]
		b.mu.Unlock()
		if p != nil && terminates(k.sig) {
			wait = append(wait, p)
		}
	}
	if len(wait) > 0 {
		deadline := time.NewTimer(killWaitBound)
		defer deadline.Stop()
		for _, p := range wait {
			select {
			case <-p.done:
			case <-deadline.C:
				return msgs.String(), status
			}
		}
	}
	return msgs.String(), status
}

// terminates reports whether sig ends a process that does not handle it.
func terminates(sig syscall.Signal) bool {
	switch sig {
	case 0, syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU,
		syscall.SIGCONT, syscall.SIGCHLD, syscall.SIGURG, syscall.SIGWINCH:
		return false
	}
	return true
}

// errnoText is kill's message for err, as bash words it.
func errnoText(err error) string {
	s := err.Error()
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}
