package config_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

// TestCommandGroupsBare: `castor mcp`, `castor skills` and `castor
// extensions` without a subcommand fail alike, as Gemini CLI 0.61's do
// (yargs' demandCommand): the group's help and "You need at least one
// command before continuing." on stderr, nothing on stdout, exit 1. Asked
// for, the help goes to stdout with exit 0.
func TestCommandGroupsBare(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
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
			r := e.Run(g.args...)
			if r.Code != 1 || r.Stdout != "" {
				t.Errorf("exit %d, stdout %q", r.Code, r.Stdout)
			}
			for _, want := range []string{"Usage:", "  " + g.sub + " ", "Error: You need at least one command before continuing."} {
				if !strings.Contains(r.Stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
				}
			}
			h := e.Run(append(g.args, "--help")...)
			if h.Code != 0 || !strings.Contains(h.Stdout, "  "+g.sub+" ") || strings.Contains(h.Stderr, "Error") {
				t.Errorf("--help: exit %d\nstdout %s\nstderr %s", h.Code, h.Stdout, h.Stderr)
			}
		})
	}
	if len(e.Srv.Requests()) != 0 {
		t.Error("a command group reached the model")
	}
}
