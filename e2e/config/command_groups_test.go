package cli_test

import (
	"strings"
	"testing"
)

// TestCommandGroupsBare: `castor mcp`, `castor skills` and `castor
// extensions` without a subcommand fail alike, as Gemini CLI 0.61's do
// (yargs' demandCommand): the group's help and "You need at least one
// command before continuing." on stderr, nothing on stdout, exit 1. Asked
// for, the help goes to stdout with exit 0.
func TestCommandGroupsBare(t *testing.T) {
	e := newEnv(t)
	groups := []struct {
		args []string
		sub  string // a subcommand the help lists
	}{
		{[]string{"mcp"}, "add"},
		{[]string{"skills"}, "enable"},
		{[]string{"extensions"}, "install"},
		{[]string{"extension"}, "install"}, // the alias
	}
	for _, g := range groups {
		t.Run(g.args[0], func(t *testing.T) {
			r := e.run(g.args...)
			if r.code != 1 || r.stdout != "" {
				t.Errorf("exit %d, stdout %q", r.code, r.stdout)
			}
			for _, want := range []string{"Usage:", "  " + g.sub + " ", "Error: You need at least one command before continuing."} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			h := e.run(append(g.args, "--help")...)
			if h.code != 0 || !strings.Contains(h.stdout, "  "+g.sub+" ") || strings.Contains(h.stderr, "Error") {
				t.Errorf("--help: exit %d\nstdout %s\nstderr %s", h.code, h.stdout, h.stderr)
			}
		})
	}
	if len(e.srv.Requests()) != 0 {
		t.Error("a command group reached the model")
	}
}
