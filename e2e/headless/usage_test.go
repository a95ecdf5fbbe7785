package headless_test

import (
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

// TestUsageExitCodes: a command line that does not parse exits 1 before
// any model call, as Gemini CLI 0.61's argument parser does ("Bad flags
// exit 1"); input that parses but cannot be used keeps 42
// (FatalInputError).
func TestUsageExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown flag", []string{"--bogus-flag", "-p", "hi"}, 1, "unknown flag: --bogus-flag"},
		{"unknown short flag", []string{"-Z", "-p", "hi"}, 1, "unknown shorthand flag"},
		{"unknown subcommand", []string{"mcp", "bogus"}, 1, `unknown command "bogus"`},
		{"unknown skills subcommand", []string{"skills", "bogus"}, 1, `unknown command "bogus"`},
		{"unknown extensions subcommand", []string{"extensions", "bogus"}, 1, `unknown command "bogus"`},
		{"unknown subcommand flag", []string{"mcp", "list", "--bogus"}, 1, "unknown flag: --bogus"},
		{"missing flag value", []string{"-p", "hi", "-m"}, 1, "flag needs an argument"},
		{"bad output format", []string{"--output-format", "bogus", "-p", "hi"}, 1, `invalid output format "bogus"`},
		{"negative budget", []string{"--max-budget-usd", "-1", "-p", "hi"}, 1, "--max-budget-usd -1: want a positive number"},
		{"bad approval mode", []string{"--approval-mode", "bogus", "-p", "hi"}, 1, "bogus"},
		{"bad input format", []string{"--input-format", "xml", "-p", "hi"}, 1, `invalid input format "xml"`},
		{"-p with -i", []string{"-p", "hi", "-i", "there"}, 1, "Cannot use both --prompt (-p) and --prompt-interactive (-i) together"},
		{"-p with a positional prompt", []string{"-p", "hi", "there"}, 1, "Cannot use both a positional prompt and the --prompt (-p) flag together"},
		{"-y with --approval-mode", []string{"-y", "--approval-mode", "yolo", "-p", "hi"}, 1, "Cannot use both --yolo (-y) and --approval-mode together"},
		{"--resume with --session-id", []string{"--resume", "latest", "--session-id", "abc", "-p", "hi"}, 1, "mutually exclusive"},
		{"--acp with -p", []string{"--acp", "-p", "hi"}, 1, "--acp cannot be combined"},
		{"bad extensions list format", []string{"extensions", "list", "-o", "xml"}, 1, `invalid output format "xml"`},
		{"bad extensions scope", []string{"extensions", "disable", "x", "--scope", "team"}, 1, "Invalid scope: team"},
		{"bad a2a-server choice", []string{"a2a-server", "--on-disconnect", "bogus"}, 1, "--on-disconnect"},
		// FatalInputError (42) in Gemini CLI 0.61.
		{"no prompt", nil, 42, "No input provided"},
		{"unknown session", []string{"--resume", "7", "-p", "hi"}, 42, "Error resuming session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t)
			r := e.Run(tt.args...)
			if r.Code != tt.code || !strings.Contains(r.Stderr, tt.stderr) {
				t.Errorf("castor %s: exit %d, want %d; stderr %q, want it to contain %q",
					strings.Join(tt.args, " "), r.Code, tt.code, r.Stderr, tt.stderr)
			}
			if lines := strings.Count(strings.TrimSpace(r.Stderr), "\n"); lines != 0 {
				t.Errorf("stderr is %d lines, want one: %q", lines+1, r.Stderr)
			}
			if r.Stdout != "" {
				t.Errorf("stdout %q, want nothing", r.Stdout)
			}
			if n := len(e.Srv.Requests()); n != 0 {
				t.Errorf("%d model calls, want none", n)
			}
		})
	}
}
