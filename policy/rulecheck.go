package policy

import (
	"fmt"
	"strings"
)

// CheckRule says what is wrong with a tools.allowed, tools.exclude,
// tools.core or --allowed-tools entry, or returns nil for a well-formed
// one. Gemini CLI takes a malformed entry ("run_shell_command(") as the
// name of a tool that does not exist, so it silently allows or excludes
// nothing; Castor does the same with it (ParseRule's result is unchanged)
// but lets the faces say so, because a rule meant to allow a command that
// is then refused, or meant to exclude one that then runs, is hard to
// trace back to a missing parenthesis.
func CheckRule(s string) error {
	t := strings.TrimSpace(s)
	open, closing := strings.IndexByte(t, '('), strings.LastIndexByte(t, ')')
	switch {
	case t == "":
		return fmt.Errorf("is empty")
	case open < 0 && closing < 0:
		return nil
	case open == 0:
		return fmt.Errorf("names no tool before %q: write tool(arguments), e.g. run_shell_command(git status)", "(")
	case open < 0:
		return fmt.Errorf("has %q without an opening %q: write tool(arguments), e.g. run_shell_command(git status)", ")", "(")
	case strings.IndexByte(t[:open], ')') >= 0:
		return fmt.Errorf("has %q in the tool name: write tool(arguments), e.g. run_shell_command(git status)", ")")
	case closing < open:
		return fmt.Errorf("has %q without a closing %q: write tool(arguments), e.g. run_shell_command(git status)", "(", ")")
	case closing != len(t)-1:
		return fmt.Errorf("has %q after the closing %q: write tool(arguments), e.g. run_shell_command(git status)", t[closing+1:], ")")
	case strings.TrimSpace(t[open+1:closing]) == "":
		name := strings.TrimSpace(t[:open])
		if isShellName(name) {
			return fmt.Errorf("has empty parentheses, which name no command: write %s alone for every command, or %s(command prefix)", name, name)
		}
		return fmt.Errorf("has empty parentheses: write %s alone (only shell rules take arguments)", name)
	}
	return nil
}

// IgnoredArgs says what a well-formed tools.allowed, --allowed-tools or
// tools.exclude entry that gives arguments to a tool other than the shell
// ("write_file(notes.md)") does instead of what it seems to say, or
// returns "" for any other entry. Gemini CLI reads the arguments of its
// shell tool's rules only (createPolicyEngineConfig in
// packages/core/src/policy/config.ts): an allow entry of that form
// allows every call of the tool ("for non-shell tools, we allow the tool
// itself but ignore args"), and an exclude entry is taken whole as a tool
// name no tool has, so it excludes nothing. Castor's engine does the same
// (Options.Allowed, Options.Excluded); the faces say so, since neither
// reading is what the entry's author meant. exclude picks the reading of
// tools.exclude.
func IgnoredArgs(s string, exclude bool) string {
	if CheckRule(s) != nil {
		return "" // malformed: CheckRule's message covers it
	}
	r, ok := parseRule(s)
	if !ok || r.prefix == "" || isShellName(r.name) {
		return ""
	}
	if exclude {
		return fmt.Sprintf("only shell rules take arguments, so it excludes nothing, as in Gemini CLI; write %s alone to exclude the tool, or refuse some calls with a policy file rule's argsPattern", r.name)
	}
	return fmt.Sprintf("only shell rules take arguments, so it allows every call of %s, as in Gemini CLI; write %s alone to say so, or allow some calls with a policy file rule's argsPattern", r.name, r.name)
}
