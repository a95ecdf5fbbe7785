package policy

import (
	"strings"
	"testing"
)

func TestCheckRule(t *testing.T) {
	tests := []struct {
		rule string
		want string // a fragment of the error; "" for none
	}{
		{"run_shell_command", ""},
		{"run_shell_command(git status)", ""},
		{" run_shell_command ( git status ) ", ""},
		{"run_shell_command(echo (nested))", ""},
		{"mcp_server_*", ""},
		{"ShellTool(ls)", ""},
		{"", "is empty"},
		{"   ", "is empty"},
		{"run_shell_command(", `without a closing ")"`},
		{"run_shell_command(git status", `without a closing ")"`},
		{"run_shell_command git status)", `without an opening "("`},
		{")", `without an opening "("`},
		{")run_shell_command", `without an opening "("`},
		{"(git status)", "names no tool"},
		{"run_shell_command(git)x", `has "x" after the closing ")"`},
		{"run_shell_command)(", `")" in the tool name`},
		{"run_shell_command()", "empty parentheses"},
		{"run_shell_command( )", "write run_shell_command alone for every command"},
		{"write_file()", "write write_file alone (only shell rules take arguments)"},
	}
	for _, tt := range tests {
		err := CheckRule(tt.rule)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckRule(%q) = %v, want nil", tt.rule, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckRule(%q) = %v, want an error with %q", tt.rule, err, tt.want)
		}
	}
}

// FuzzCheckRule: CheckRule takes any text without panicking, and every
// entry it accepts parses to a tool name without parentheses.
func FuzzCheckRule(f *testing.F) {
	for _, s := range []string{"run_shell_command(git status)", "run_shell_command(", "()", "a)b(c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckRule(s) != nil {
			return
		}
		name, _, ok := ParseRule(s)
		if !ok || strings.ContainsAny(name, "()") {
			t.Errorf("CheckRule accepted %q, parsed as %q (ok %v)", s, name, ok)
		}
	})
}
