package cli

import "strings"

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
	case f.prompt != "" && positional:
		return &usageError{msg: "Cannot use both a positional prompt and the --prompt (-p) flag together"}
	case f.prompt != "" && f.promptInteractive != "":
		return &usageError{msg: "Cannot use both --prompt (-p) and --prompt-interactive (-i) together"}
	}
	return nil
}
