//go:build unix

package builtin

import (
	"slices"
	"strings"
	"syscall"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestSplitKills: which leading kills Castor performs itself (every
// target one of the session's, here 100 and its group), and what is
// left for the sandboxed shell.
func TestSplitKills(t *testing.T) {
	owned := func(n int, group bool) bool { return n == 100 }
	for _, tt := range []struct {
		command string
		ok      bool
		sigs    []syscall.Signal
		targets [][]int
		rest    string
	}{
		{"kill 100", true, []syscall.Signal{syscall.SIGTERM}, [][]int{{100}}, ""},
		{"kill -- -100", true, []syscall.Signal{syscall.SIGTERM}, [][]int{{-100}}, ""},
		{"kill -9 -100", true, []syscall.Signal{syscall.SIGKILL}, [][]int{{-100}}, ""},
		{"kill -s INT -- -100", true, []syscall.Signal{syscall.SIGINT}, [][]int{{-100}}, ""},
		{"kill -SIGKILL 100 -100", true, []syscall.Signal{syscall.SIGKILL}, [][]int{{100, -100}}, ""},
		{"kill -term 100 2>/dev/null", true, []syscall.Signal{syscall.SIGTERM}, [][]int{{100}}, ""},
		{"kill -0 100", true, []syscall.Signal{0}, [][]int{{100}}, ""},
		{"kill -- -100; while kill -0 100 2>/dev/null; do sleep 0.05; done", true,
			[]syscall.Signal{syscall.SIGTERM}, [][]int{{-100}}, "while kill -0 100 2>/dev/null; do sleep 0.05; done"},
		{"kill 100; kill -9 -100 && echo gone", true,
			[]syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}, [][]int{{100}, {-100}}, ""},
		// Not Castor's: some target is not the session's, or the words
		// are not known before the shell runs.
		{"kill 101", false, nil, nil, ""},
		{"kill 100 101", false, nil, nil, ""},
		{"kill -- -1", false, nil, nil, ""},
		{"kill -9 1", false, nil, nil, ""},
		{"kill $PPID", false, nil, nil, ""},
		{"kill %1", false, nil, nil, ""},
		{"kill -l", false, nil, nil, ""},
		{"kill -100", false, nil, nil, ""},
		{"kill -s NOPE 100", false, nil, nil, ""},
		{"kill 100 > out.txt", false, nil, nil, ""},
		{"kill 100 &", false, nil, nil, ""},
		{"! kill 100", false, nil, nil, ""},
		{"X=1 kill 100", false, nil, nil, ""},
		{"echo hi; kill 100", false, nil, nil, ""},
		{"sudo kill 100", false, nil, nil, ""},
		{"kill 100 | cat", false, nil, nil, ""},
		{"kill '100", false, nil, nil, ""},
	} {
		steps, rest, ok := splitKills(tt.command, owned)
		if ok != tt.ok {
			t.Errorf("%q: ok %v, want %v", tt.command, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if len(steps) != len(tt.sigs) {
			t.Errorf("%q: %d kills, want %d", tt.command, len(steps), len(tt.sigs))
			continue
		}
		for i, st := range steps {
			if st.kill.sig != tt.sigs[i] || !slices.Equal(st.kill.targets, tt.targets[i]) {
				t.Errorf("%q: kill %d is %v to %v, want %v to %v", tt.command, i, st.kill.sig, st.kill.targets, tt.sigs[i], tt.targets[i])
			}
		}
		var b strings.Builder
		for _, s := range rest {
			_ = syntax.NewPrinter().Print(&b, s)
		}
		if b.String() != tt.rest {
			t.Errorf("%q: rest %q, want %q", tt.command, b.String(), tt.rest)
		}
	}
}

// FuzzSplitKills: the model's command line never panics the reader, and
// every target it accepts is one the session owns.
func FuzzSplitKills(f *testing.F) {
	for _, s := range []string{"kill -- -100", "kill -s TERM 100; echo x", "kill -9 100 && ls || true", "kill $(id -u)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) {
		steps, _, _ := splitKills(command, func(n int, _ bool) bool { return n == 100 })
		for _, st := range steps {
			for _, target := range st.kill.targets {
				if target != 100 && target != -100 {
					t.Fatalf("%q: target %d accepted", command, target)
				}
			}
		}
	})
}
