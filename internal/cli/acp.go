package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/acp"
	"github.com/castor-dev/castor/internal/memtrim"
	"github.com/castor-dev/castor/internal/proc"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/termtext"
)

// runACP serves the Agent Client Protocol on stdin and stdout until the
// client closes stdin: `castor --acp`. stdout carries protocol messages
// only; warnings go to stderr. The flags that shape sessions (model,
// approval mode, allowed tools, MCP servers, fake responses) apply to
// every session the client opens.
func runACP(ctx context.Context, f *flags, stdio IO) int {
	stderr := termtext.NewWriter(stdio.Stderr)
	fail := func(err error) int {
		fmt.Fprintf(stderr, "Error: %s\n", oneLine(err.Error()))
		return exitCode(err)
	}
	if f.prompt != "" || f.resume != "" || f.listSessions || f.deleteSession != "" {
		return fail(&usageError{msg: "--acp cannot be combined with --prompt, --resume, --list-sessions or --delete-session"})
	}
	if f.experimentalACP && !f.acp {
		fmt.Fprintln(stderr, "Warning: --experimental-acp is deprecated; use --acp.")
	}
	mode, err := f.mode()
	if err != nil {
		return fail(err)
	}
	if closedAtStart(stdio.Stdout) { // stdoutclosed_unix.go
		return fail(errACPStdoutClosed)
	}
	// A client that closes its end must not kill the process with SIGPIPE
	// on the next write: sessions are closed cleanly instead
	// (stdoutguard.go; caught, not ignored, so tools' programs keep it).
	catchBrokenPipes()
	wd, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	wst := workspaceSettings(wd)
	if err := refuseYolo(mode, wst); err != nil {
		return fail(err)
	}
	_, notice, err := startSandbox(wst, f.sandboxChoice, true, wd, f.includeDirs) // sandbox.go
	if err != nil {
		return fail(err)
	}
	printNotice(stderr, notice)
	defer proc.SetSandbox(nil) // the sandbox ends with the run (tests run many in one process)
	opts := f.sessionOptions(wd, mode)
	opts.Warn = func(s string) { fmt.Fprintf(stderr, "Warning: %s\n", s) }
	if !f.skipTrust {
		// A folder that no rule decides runs in safe mode, as with
		// `gemini --acp`: there is nobody to ask on the protocol, and the
		// editor is told how to trust it (internal/acp/trust.go).
		opts.AskTrust = func(context.Context, setup.TrustQuestion) (config.TrustLevel, error) { return "", nil }
	}
	memtrim.Limit() // one process, many turns
	srv := &acp.Server{Log: stderr, Options: opts, AfterTurn: memtrim.AfterTurn}
	if err := srv.Serve(ctx, stdio.Stdin, stdio.Stdout); err != nil {
		return fail(err)
	}
	return ExitOK
}
