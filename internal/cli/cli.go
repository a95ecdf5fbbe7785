package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/castor-dev/castor/internal/memtrim"
	"github.com/castor-dev/castor/internal/proc"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/termtext"
	"github.com/castor-dev/castor/internal/version"
	"github.com/castor-dev/castor/policy"
)

// flags are the root command's options, named as Gemini CLI names them.
type flags struct {
	version         bool
	prompt          string
	model           string
	output          string
	yolo            bool
	approvalMode    string
	includeDirs     []string
	allowedTools    []string
	policyPaths     []string
	adminPolicies   []string
	ignorePolicyErr bool
	allowedMCP      []string
	fakeResponses   string
	fakeNonStrict   string
	recordResponses string
	maxBudgetUSD    float64
	debug           bool
	resume          string
	listSessions    bool
	deleteSession   string
	sessionID       string
	sandbox         bool
	// sandboxChoice is sandbox when -s/--sandbox was given, else nil.
	sandboxChoice  *bool
	skipTrust      bool
	ide            bool
	rawOutput      bool
	acceptRawRisk  bool
	extensions     []string
	listExtensions bool
	// promptInteractive opens the interactive terminal with this prompt.
	promptInteractive string
	acp               bool
	experimentalACP   bool
	// inputFormat stream-json keeps one session reading JSON lines on
	// stdin (streamin.go).
	inputFormat string
	// outputSchema is the JSON Schema file the final answer must match
	// (outputschema.go).
	outputSchema string
	// worktree, sessionFile and screenReader: sessionflags.go.
	worktree     string
	sessionFile  string
	screenReader bool
	// tel is --telemetry and its kin, and the run's pipeline (telemetry.go).
	tel telemetryRun
}

// subcommands are the castor subcommands, each built in its own file. A
// new subcommand is added here.
func subcommands(ctx context.Context, stdio IO) []*cobra.Command {
	return []*cobra.Command{
		newA2ACommand(ctx, stdio),        // a2a-server: the A2A server (a2a.go)
		newAuthCommand(ctx, stdio),       // auth: Google sign-in (auth.go)
		ideCommand(ctx, stdio),           // ide: IDE companion status and serve (ide.go)
		newMCPCommand(ctx, stdio),        // mcp: MCP server settings (mcp.go)
		lspCommand(ctx, stdio),           // lsp: language servers' status (lsp.go)
		newExtensionsCommand(ctx, stdio), // extensions: install, list, enable… (extensions.go)
		newSkillsCommand(ctx, stdio),     // skills: Agent Skills list, install, link… (skills.go, skillsinstall.go)
		newHooksCommand(ctx, stdio),      // hooks: migrate from Claude Code, list (hooks.go)
		newGemmaCommand(ctx, stdio),      // gemma: Gemini CLI's local Gemma routing, not applicable (gemma.go)
		newUpdateCommand(ctx, stdio),     // update: replace this binary with the latest release (update.go)
		newModelsCommand(ctx, stdio),     // models: configured models, providers reachable (models.go)
	}
}

// subcommandWords are the names and aliases of subcommands (a test
// keeps them so), and the commands cobra adds beside them.
var subcommandWords = []string{
	"a2a-server", "auth", "ide", "mcp", "lsp", "extensions", "extension",
	"skills", "skill", "hooks", "hook", "gemma", "update", "models",
	"help", "completion",
}

// mayNameSubcommand reports whether args could run a subcommand or show
// the help that lists them: a word among subcommandWords, cobra's hidden
// __complete, or -h/--help (alone or in a cluster of short flags). A
// command line that cannot is the root command's (a prompt, --version),
// which then does without building the subcommands: 2-3 % of the CPU of
// --version. Unsure is yes.
func mayNameSubcommand(args []string) bool {
	for _, a := range args {
		switch {
		case slices.Contains(subcommandWords, a), strings.HasPrefix(a, "__"), strings.HasPrefix(a, "--help"):
			return true
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'h'):
			return true
		}
	}
	return false
}

// IO is where the command reads and writes.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// StdinIsTerminal reports whether stdin is interactive (nothing piped).
	StdinIsTerminal bool
}

// Main runs castor with args and returns the process exit code. Every
// failure is reported as one line on stderr.
func Main(args []string) int {
	memtrim.StartUp()
	stdinTTY := term.IsTerminal(int(os.Stdin.Fd()))
	// Libraries (genai) report through the standard logger; Castor reports
	// its own problems on stderr in one line each, and --debug shows more.
	if !slices.Contains(args, "--debug") && !slices.Contains(args, "-d") {
		log.SetOutput(io.Discard)
	}
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals()...) // stopsignals.go
	defer stop()
	return Run(ctx, args, IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, StdinIsTerminal: stdinTTY})
}

// Run is Main with its context and streams given, for tests.
func Run(ctx context.Context, args []string, stdio IO) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stdio.Stderr, "Error: internal error: %s\n", termtext.String(fmt.Sprint(p)))
			code = ExitError
		}
	}()
	var f flags
	code = ExitOK
	root := &cobra.Command{
		Use:           "castor [query...]",
		Short:         "Castor: a Gemini CLI compatible coding agent",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.version {
				// Cobra's own --version goes through text/template, whose
				// reflection keeps every exported method of every type
				// in the binary (the linker cannot drop them): 1 MB+.
				fmt.Fprintln(stdio.Stdout, version.Long())
				return nil
			}
			if err := checkRootFlags(&f, args, cmd.Flags().Changed); err != nil {
				return err // usage.go
			}
			code = runRoot(ctx, cmd, &f, args, stdio)
			return nil
		},
	}
	if mayNameSubcommand(args) {
		root.AddCommand(subcommands(ctx, stdio)...)
	}
	root.SetArgs(joinOptionalValues(args))
	root.SetIn(stdio.Stdin)
	root.SetOut(stdio.Stdout)
	root.SetErr(stdio.Stderr)
	fl := root.Flags()
	fl.BoolVarP(&f.version, "version", "v", false, "version for castor")
	fl.StringVarP(&f.prompt, "prompt", "p", "", "run headless with this prompt (appended to piped stdin)")
	fl.StringVarP(&f.promptInteractive, "prompt-interactive", "i", "", "open the interactive terminal and send this prompt")
	fl.StringVarP(&f.model, "model", "m", "", "model to use")
	fl.StringVarP(&f.output, "output-format", "o", FormatText, "output format: text, json or stream-json")
	fl.BoolVarP(&f.yolo, "yolo", "y", false, "approve every tool call (same as --approval-mode=yolo)")
	fl.StringVar(&f.approvalMode, "approval-mode", "", "approval mode: default, auto_edit, yolo or plan")
	fl.StringSliceVar(&f.includeDirs, "include-directories", nil, "more workspace directories (comma-separated or repeated)")
	fl.StringSliceVar(&f.allowedTools, "allowed-tools", nil, "tools that run without confirmation, e.g. write_file or run_shell_command(git status)")
	fl.StringSliceVar(&f.policyPaths, "policy", nil, "additional policy files or directories to load (comma-separated or multiple --policy)")
	fl.StringSliceVar(&f.adminPolicies, "admin-policy", nil, "additional admin policy files or directories to load (comma-separated or multiple --admin-policy)")
	fl.BoolVar(&f.ignorePolicyErr, "ignore-policy-errors", false, "start even when a policy file has a mistake, with the rules that could be read (by default the session does not start)")
	fl.StringSliceVar(&f.allowedMCP, "allowed-mcp-server-names", nil, "MCP servers to start (default: all configured)")
	fl.StringVar(&f.fakeResponses, "fake-responses", "", "replay model responses from a Gemini CLI JSONL file instead of calling a model")
	fl.StringVar(&f.fakeNonStrict, "fake-responses-non-strict", "", "like --fake-responses, matching responses by method instead of order")
	fl.StringVar(&f.recordResponses, "record-responses", "", "record the model's responses to a JSONL file")
	fl.Float64Var(&f.maxBudgetUSD, "max-budget-usd", 0, "end the run before a model call that would take its cost past this many US dollars (exit 56)")
	fl.BoolVarP(&f.debug, "debug", "d", false, "print debug information on stderr")
	fl.StringVarP(&f.resume, "resume", "r", "", "resume a session: latest, an index from --list-sessions, or a session id")
	fl.Lookup("resume").NoOptDefVal = "latest"
	fl.BoolVar(&f.listSessions, "list-sessions", false, "list the sessions recorded for this project")
	fl.StringVar(&f.deleteSession, "delete-session", "", "delete a recorded session (index or id)")
	fl.StringVar(&f.sessionID, "session-id", "", "use this id for a new session")
	fl.BoolVar(&f.ide, "ide", false, "IDE mode for this run: editor context from the IDE companion, edits confirmed as diffs in the IDE")
	fl.BoolVar(&f.skipTrust, "skip-trust", false, "trust the current folder for this run")
	fl.BoolVarP(&f.sandbox, "sandbox", "s", false, "run tools in a sandbox (Landlock on Linux, or GEMINI_SANDBOX=bwrap); --sandbox=false turns off the default one of yolo mode")
	fl.BoolVar(&f.rawOutput, "raw-output", false, "print model and tool output as is, terminal control sequences included (unsafe when the output is untrusted)")
	fl.BoolVar(&f.acceptRawRisk, "accept-raw-output-risk", false, "do not warn about --raw-output (implies it, as in Gemini CLI)")
	fl.BoolVarP(&f.listExtensions, "list-extensions", "l", false, "list the installed extensions and exit")
	fl.StringSliceVarP(&f.extensions, "extensions", "e", nil, "extensions to use, comma-separated or repeated (default: all enabled; none: no extension)")
	fl.BoolVar(&f.acp, "acp", false, "serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, Neovim, Emacs)")
	fl.BoolVar(&f.experimentalACP, "experimental-acp", false, "same as --acp")
	fl.StringVar(&f.inputFormat, "input-format", InputText, "input format: text, or stream-json for one session answering JSON-line messages on stdin until it closes (with -o stream-json)")
	fl.StringVar(&f.outputSchema, "output-schema", "", "a JSON Schema file the final answer must match: the model answers in JSON, checked and asked once more if it does not match (exit 1 if it still does not)")
	fl.StringVarP(&f.worktree, "worktree", "w", "", "run the session in a new git worktree, .gemini/worktrees/NAME on branch worktree-NAME (a name is made up when none is given); removed at exit when left unchanged")
	fl.Lookup("worktree").NoOptDefVal = worktreeAuto
	fl.StringVar(&f.sessionFile, "session-file", "", "start from a session file (JSONL or JSON): its messages are imported as a new session")
	fl.BoolVar(&f.screenReader, "screen-reader", false, "plain, linear output in the terminal for screen readers (as ui.accessibility.screenReader)")
	f.tel.addTelemetryFlags(fl)           // telemetry.go
	_ = fl.MarkHidden("experimental-acp") // deprecated: runACP warns on stderr, never on stdout
	// Unknown flags, missing values and unknown subcommands are usage
	// errors: exit 1, as Gemini CLI's parser (usage.go).
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{msg: err.Error()}
	})
	if err := root.Execute(); err != nil {
		fmt.Fprintf(stdio.Stderr, "Error: %s\n", termtext.String(oneLine(err.Error())))
		return exitCode(err)
	}
	return code
}

// rawOutputWarning is printed on stderr when --raw-output is given alone in
// text mode.
const rawOutputWarning = "Warning: --raw-output is on: model and tool output reach the terminal unfiltered, " +
	"and control sequences in them can retitle the terminal, write the clipboard or hide text. " +
	"Pass --accept-raw-output-risk to silence this warning."

func runRoot(ctx context.Context, cmd *cobra.Command, f *flags, args []string, stdio IO) int {
	f.sandboxChoice = sandboxFlag(cmd, f) // sandbox.go
	f.tel.interactive, f.tel.stderr = interactive(f, stdio), stdio.Stderr
	defer f.tel.shutdown() // telemetry.go: flushed at exit, SIGTERM's included
	if f.acp || f.experimentalACP {
		return runACP(ctx, f, stdio) // acp.go
	}
	if !cmd.Flags().Changed("output-format") {
		f.output = settingsOutputFormat() // outputformat.go
	}
	f.tel.outputFormat = f.output // for gemini_cli.config
	// Gemini CLI takes either flag as asking for raw output.
	raw := f.rawOutput || f.acceptRawRisk
	tty, isInteractive := stdio, interactive(f, stdio) // the terminal, before cleaning writers wrap it
	if !raw {
		// Messages quote the model, tools, servers and settings, and
		// session lists quote prompts. JSON on stdout is cleaned string by
		// string instead, by the renderer.
		stdio.Stderr = termtext.NewWriter(stdio.Stderr)
		if f.output == FormatText || f.listSessions || f.deleteSession != "" {
			stdio.Stdout = termtext.NewWriter(stdio.Stdout)
		}
	}
	fail := func(err error) int {
		fmt.Fprintf(stdio.Stderr, "Error: %s\n", oneLine(err.Error()))
		return exitCode(err)
	}
	switch f.output {
	case FormatText, FormatJSON, FormatStreamJSON:
	default:
		return fail(&usageError{msg: fmt.Sprintf("invalid output format %q: use text, json or stream-json", f.output)})
	}
	if f.maxBudgetUSD < 0 || math.IsNaN(f.maxBudgetUSD) || math.IsInf(f.maxBudgetUSD, 0) {
		// 0 means no budget; a negative one would be read as none too.
		return fail(&usageError{msg: fmt.Sprintf("--max-budget-usd %v: want a positive number of US dollars (0 for no budget)", f.maxBudgetUSD)})
	}
	if err := checkInputFormat(f); err != nil { // streamin.go
		return fail(err)
	}
	if f.worktree != "" {
		w, err := startWorktree(f.worktree) // sessionflags.go
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdio.Stderr, "Working in the git worktree %s (branch worktree-%s).\n", w.path, w.name)
		defer w.finish(stdio.Stderr)
	}
	wd, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	if f.sessionFile != "" {
		if f.resume, err = importSessionFile(wd, f.sessionFile); err != nil { // sessionflags.go
			return fail(err)
		}
	}
	if f.listSessions {
		return listSessions(wd, stdio)
	}
	if f.deleteSession != "" {
		return deleteSession(wd, f.deleteSession, stdio)
	}
	if f.listExtensions {
		return listExtensionNames(stdio)
	}
	releaseID, err := checkSessionID(f.sessionID, wd) // sessionid.go
	if err != nil {
		return fail(err)
	}
	defer releaseID()

	mode, err := f.mode()
	if err != nil {
		return fail(err)
	}
	wst := workspaceSettings(wd)
	if err := refuseYolo(mode, wst); err != nil { // yolo.go
		return fail(err)
	}
	sb, notice, err := startSandbox(wst, f.sandboxChoice, mode == policy.ModeYolo, wd, f.includeDirs) // sandbox.go
	if err != nil {
		return fail(err)
	}
	printNotice(stdio.Stderr, notice)
	defer proc.SetSandbox(nil) // the sandbox ends with the run (tests run many in one process)
	if mode == policy.ModeYolo {
		fmt.Fprintln(stdio.Stderr, yoloNotice)
	}

	var prompt string
	if isInteractive {
		prompt = interactivePrompt(f, args)
	} else if f.inputFormat == InputStreamJSON {
		prompt = firstStreamPrompt(f, args) // streamin.go: stdin holds the messages
	} else if prompt, err = readPrompt(f, args, stdio); err != nil {
		return fail(err)
	}

	opts := f.sessionOptions(wd, mode)
	opts.SessionID = f.sessionID
	opts.Resume = f.resume
	opts.EnforceTrust = !f.skipTrust
	opts.IDE = f.ide
	opts.Extensions = f.extensions
	if f.debug {
		opts.Warn = func(s string) { fmt.Fprintf(stdio.Stderr, "[DEBUG] %s\n", s) }
	} else {
		opts.Warn = func(s string) { fmt.Fprintf(stdio.Stderr, "Warning: %s\n", s) }
	}
	if err := applyOutputSchema(f, isInteractive, &opts); err != nil { // outputschema.go
		return fail(err)
	}
	if isInteractive {
		updateNotice(ctx, stdio.Stderr) // update.go
		return runInteractive(ctx, opts, prompt, sb, f.screenReader, tty)
	}
	if closedAtStart(tty.Stdout) { // stdoutclosed_unix.go
		return fail(errStdoutClosed)
	}
	ctx, stopRun := guardStdout(ctx, &stdio) // stdoutguard.go
	defer stopRun(nil)
	if f.inputFormat == InputStreamJSON {
		return runStreamInput(ctx, opts, prompt, stdio, raw)
	}
	if f.rawOutput && !f.acceptRawRisk && f.output == FormatText {
		fmt.Fprintln(stdio.Stderr, rawOutputWarning)
	}
	out := newRenderer(f.output, stdio.Stdout, stdio.Stderr, raw)
	if tr, ok := out.(*textRenderer); ok && opts.OutputSchema != nil {
		out = answerRenderer{tr} // outputschema.go
	}
	opts.Settings = wst // loaded above for the YOLO and sandbox checks
	start := time.Now()
	a, err := setup.New(ctx, opts)
	if err != nil {
		code := exitCode(err)
		if f.output != FormatText {
			out.start("", f.model, prompt)
			out.finish(castorStatsZero(), err, code, time.Since(start))
		}
		fmt.Fprintf(stdio.Stderr, "Error: %s\n", oneLine(errorMessage(err)))
		return code
	}
	defer a.Close()
	out.start(a.Session.ID(), a.Session.Model(), prompt)
	var runErr error
	// Custom commands and @path includes are expanded first; a failure
	// there is bad input (exit 42), as in Gemini CLI.
	var refused *setup.ShellRefusedError
	if parts, err := a.ExpandPrompt(ctx, prompt); errors.As(err, &refused) {
		// A custom command's !{...} the policy refuses is a plain error
		// in Gemini CLI 0.61 (exit 1, said on stderr), not bad input.
		runErr = &commandBlockedError{msg: err.Error()}
	} else if err != nil {
		runErr = &inputError{msg: err.Error()}
	} else {
		for ev, err := range a.Session.Send(ctx, parts...) {
			if err != nil {
				runErr = err
				break
			}
			out.event(ev)
		}
	}
	if runErr == nil && ctx.Err() != nil {
		runErr = ctx.Err()
	}
	runErr = turnOutcome(runErr)
	code := exitCode(runErr)
	setPrice(out, a.Price)
	out.finish(a.Session.Stats(), runErr, code, time.Since(start))
	if oe := outputFailure(ctx); oe != nil {
		fmt.Fprintf(stdio.Stderr, "Error: %s\n", oe)
		return ExitError
	}
	if runErr != nil {
		fmt.Fprintf(stdio.Stderr, "Error: %s\n", oneLine(errorMessage(runErr)))
	}
	return code
}

// readPrompt combines piped stdin and -p as Gemini CLI does: stdin first,
// then the prompt, separated by a blank line. Positional words count as a
// prompt too.
func readPrompt(f *flags, args []string, stdio IO) (string, error) {
	prompt := f.prompt
	if prompt == "" && len(args) > 0 {
		prompt = strings.Join(args, " ")
	}
	if !stdio.StdinIsTerminal && stdio.Stdin != nil {
		data, err := readPiped(stdio.Stdin, pipedInputWait)
		if err != nil {
			return "", &inputError{msg: "reading stdin: " + err.Error()}
		}
		data = capPiped(data, stdio.Stderr) // pipedin.go
		if in := strings.TrimSpace(string(data)); in != "" {
			if prompt != "" {
				prompt = in + "\n\n" + prompt
			} else {
				prompt = in
			}
		}
	}
	if strings.TrimSpace(prompt) == "" {
		if stdio.StdinIsTerminal {
			return "", &inputError{msg: "No input provided. Pass a prompt with -p/--prompt, pipe it on stdin, or run castor in a terminal for the interactive session."}
		}
		return "", &inputError{msg: "No input provided via stdin. Input can be provided by piping data into castor or using the --prompt option."}
	}
	return prompt, nil
}

// Piped stdin limits. An editor (Neovim's jobstart, Emacs' make-process)
// may start castor with a pipe that it never writes nor closes, so stdin is
// read only if its first bytes come within pipedInputWait; once they have
// come, it is read to the end, however slowly the rest arrives. Gemini CLI
// waits the same 500 ms for the first bytes.
const (
	pipedInputWait = 500 * time.Millisecond
	maxPipedInput  = 8 << 20
)

// readPiped returns what r gives, up to maxPipedInput bytes and one more
// (so that capPiped can tell a cut), or nothing if r gives nothing within
// wait. In that case a goroutine stays blocked in
// r.Read; it holds nothing the run needs and ends with the process.
func readPiped(r io.Reader, wait time.Duration) ([]byte, error) {
	type chunk struct {
		data []byte
		err  error
	}
	// Buffered, so that a reader that gets its data after we stopped
	// waiting does not block on the send.
	first := make(chan chunk, 1)
	go func() {
		// Small: most runs get an empty stdin (EOF at once), and a large
		// buffer would be a fresh span of heap for each of them; the rest
		// of a real input is read by io.ReadAll below.
		buf := make([]byte, 4<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 || err != nil {
				first <- chunk{buf[:n], err}
				return
			}
		}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case c := <-first:
		if c.err == io.EOF {
			return c.data, nil
		}
		if c.err != nil {
			return nil, c.err
		}
		rest, err := io.ReadAll(io.LimitReader(r, maxPipedInput+1-int64(len(c.data))))
		return append(c.data, rest...), err
	case <-timer.C:
		return nil, nil
	}
}

// joinOptionalValues rewrites "--resume 3" as "--resume=3": pflag only
// takes an optional flag value in the = form, while Gemini CLI's parser
// takes the next word when it is not a flag.
func joinOptionalValues(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--resume" || a == "-r" || a == "--worktree" || a == "-w") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		// "-p" followed by a flag, or last, is an empty prompt, as Gemini
		// CLI's parser takes it ("castor -p --input-format stream-json").
		if (a == "-p" || a == "--prompt") && (i+1 == len(args) || strings.HasPrefix(args[i+1], "--")) {
			out = append(out, "--prompt=")
			continue
		}
		out = append(out, a)
	}
	return out
}

// oneLine joins a multi-line message into one line, so that every failure
// is a single line on stderr.
func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, " ")
}

// mode is the approval mode -y and --approval-mode ask for ("" when
// neither is given: settings decide).
func (f *flags) mode() (policy.Mode, error) {
	if f.yolo && f.approvalMode != "" {
		return "", &usageError{msg: "Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead."}
	}
	if f.yolo {
		return policy.ModeYolo, nil
	}
	if f.approvalMode == "" {
		return "", nil
	}
	m, err := policy.ParseMode(f.approvalMode)
	if err != nil {
		return "", &usageError{msg: err.Error()}
	}
	return m, nil
}

// sessionOptions are the assembly options that the flags give every kind
// of run (headless, interactive, stream-json input, ACP).
func (f *flags) sessionOptions(wd string, mode policy.Mode) setup.Options {
	fake, nonStrict := f.fakeResponses, false
	if fake == "" && f.fakeNonStrict != "" {
		fake, nonStrict = f.fakeNonStrict, true
	}
	return setup.Options{
		WorkDir:                wd,
		IncludeDirectories:     f.includeDirs,
		Model:                  f.model,
		ApprovalMode:           mode,
		AllowedTools:           f.allowedTools,
		PolicyPaths:            f.policyPaths,
		AdminPolicyPaths:       f.adminPolicies,
		IgnorePolicyErrors:     f.ignorePolicyErr,
		AllowedMCPServerNames:  f.allowedMCP,
		FakeResponses:          fake,
		FakeResponsesNonStrict: nonStrict,
		RecordResponses:        f.recordResponses,
		MaxBudgetUSD:           f.maxBudgetUSD,
		CleanupSessions:        true, // general.sessionRetention, as Gemini CLI's start-up
		Debug:                  debugLog,
		Telemetry:              f.tel.observer, // telemetry.go
	}
}

// errNeedSubcommand is what a bare command group (`castor mcp`) answers
// after its help, in Gemini CLI's words.
const errNeedSubcommand = "You need at least one command before continuing."

// commandGroup is a subcommand that only groups others. Run bare, it
// fails as the released Gemini CLI 0.61.0's `gemini mcp|skills|extensions`
// do: its help on stderr, nothing on stdout, exit 1. (0.61 writes its
// message before the help, and for skills and extensions yargs' "Not
// enough non-option arguments: got 0, need at least 1"; Castor ends with
// its one Error line, the same for the three.)
func commandGroup(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(cmd.ErrOrStderr())
			_ = cmd.Help()
			return errors.New(errNeedSubcommand)
		},
	}
}

// debugLog writes a debug line to the standard logger, which Main points
// at stderr with --debug and discards otherwise.
func debugLog(s string) { log.Print(s) }
