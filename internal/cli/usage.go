package cli

import (
	"fmt"
	"strings"

	"github.com/castor-dev/castor/policy"
)

// usageError is a command line that does not parse: an unknown flag or
// subcommand, a flag without its value, a value outside a flag's choices,
// or flags that cannot go together. Gemini CLI 0.61's argument parser
// (yargs) rejects all of these before anything runs and exits 1, keeping
// 42 (inputError) for input it could parse but not use: no prompt, an
// unknown session to resume, a failed @path include.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// checkRootFlags refuses the combinations of root flags Gemini CLI's
// parser refuses, in its words. An empty -p or -i counts as not given, as
// there.
func checkRootFlags(f *flags, args []string, changed func(name string) bool) error {
	positional := strings.TrimSpace(strings.Join(args, " ")) != ""
	switch {
	case changed("resume") && changed("session-id"):
		return &usageError{msg: "The flags --resume and --session-id are mutually exclusive. Please provide only one."}
	case changed("session-file") && (changed("resume") || changed("session-id")):
		return &usageError{msg: "The flags --resume, --session-id, and --session-file are mutually exclusive. Please provide only one."}
	case f.prompt != "" && positional:
		return &usageError{msg: "Cannot use both a positional prompt and the --prompt (-p) flag together"}
	case f.prompt != "" && f.promptInteractive != "":
		return &usageError{msg: "Cannot use both --prompt (-p) and --prompt-interactive (-i) together"}
	}
	return checkAllowedTools(f.allowedTools)
}

// checkAllowedTools refuses a malformed --allowed-tools rule
// ("run_shell_command(" and the like). Gemini CLI 0.61 takes one as the
// name of a tool that does not exist and says nothing, so the run then
// asks for, or headless refuses, the very command the user meant to
// allow. Empty entries (a trailing comma) are dropped, as Gemini CLI
// drops them.
func checkAllowedTools(rules []string) error {
	for i, r := range rules {
		if strings.TrimSpace(r) == "" {
			continue
		}
		err := policy.CheckRule(r)
		if err == nil {
			continue
		}
		msg := fmt.Sprintf("--allowed-tools %q %v", r, err)
		// The flag splits at commas (as Gemini CLI's does), so a command
		// with a comma arrives as two halves.
		if i+1 < len(rules) && !strings.Contains(r, ")") && strings.Contains(rules[i+1], ")") && !strings.Contains(rules[i+1], "(") {
			msg += fmt.Sprintf(" (commas separate --allowed-tools rules, so %q was cut in two; allow such a command in a policy file with commandPrefix)", r+","+rules[i+1])
		}
		return &usageError{msg: msg}
	}
	return nil
}
