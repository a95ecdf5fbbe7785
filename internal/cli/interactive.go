package cli

import (
	"context"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/castor-dev/castor/internal/sandbox"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/tui"
)

// interactive reports whether this run opens the interactive terminal, as
// Gemini CLI decides: -i/--prompt-interactive, or a terminal on stdin and
// stdout without -p (a positional prompt is then sent in the session).
// Text output only: json and stream-json stay headless.
func interactive(f *flags, stdio IO) bool {
	if f.output != FormatText || f.listSessions || f.deleteSession != "" {
		return false
	}
	if f.promptInteractive != "" {
		return true
	}
	return f.prompt == "" && stdio.StdinIsTerminal && isTerminal(stdio.Stdout)
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// interactivePrompt is the prompt the session opens with: -i's, else the
// positional words.
func interactivePrompt(f *flags, args []string) string {
	if f.promptInteractive != "" {
		return f.promptInteractive
	}
	return strings.Join(args, " ")
}

// runInteractive opens the interactive terminal on the process's terminal.
func runInteractive(ctx context.Context, opts setup.Options, prompt string, sb *sandbox.Profile, screenReader bool, stdio IO) int {
	if !stdio.StdinIsTerminal {
		return fail(stdio, &inputError{msg: "The --prompt-interactive flag cannot be used when input is piped from stdin."})
	}
	// A folder that no rule decides is asked about, as Gemini CLI's
	// folder trust dialog does, before anything is read from it;
	// --skip-trust (EnforceTrust off) trusts it for this run.
	ask := opts.EnforceTrust
	opts.EnforceTrust = false
	// Installed extensions are checked for updates, in the background.
	opts.ExtensionUpdates = true
	c := tui.Config{Options: opts, Prompt: prompt, In: stdio.Stdin, Out: stdio.Stdout, Err: stdio.Stderr, AskTrust: ask, ScreenReader: screenReader}
	if sb != nil {
		c.Sandbox = sb.Method + " (" + sb.Name + ")" // the footer's, as Gemini CLI's "sandbox-exec (permissive-open)"
	}
	return tui.Run(ctx, c)
}

func fail(stdio IO, err error) int {
	stdio.Stderr.Write([]byte("Error: " + oneLine(err.Error()) + "\n"))
	return exitCode(err)
}
