package builtin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/internal/proc"
	"github.com/castor-dev/castor/internal/shellword"
	"github.com/castor-dev/castor/internal/textutil"
	"github.com/castor-dev/castor/tool"
)

// Shell defaults and texts (Gemini CLI's shell.ts and
// shellExecutionService.ts).
const (
	// defaultShellTimeout is the inactivity timeout when Env sets none.
	defaultShellTimeout = 5 * time.Minute
	// defaultOutputLimit is the number of characters of result given to the
	// model before it is truncated and saved, when Env sets none.
	defaultOutputLimit = 40000
	// outputUpdateInterval throttles live output.
	outputUpdateInterval = time.Second
	// backgroundDelay is how long an is_background command runs before it
	// is left alone, so that immediate failures are still reported.
	backgroundDelay = 200 * time.Millisecond
	// killGrace is how long a process group gets between SIGTERM and
	// SIGKILL.
	killGrace = 200 * time.Millisecond

	// bashShoptGuard switches off bash options that would change how the
	// model's command is expanded, as Gemini CLI prefixes every command.
	bashShoptGuard = "shopt -u promptvars nullglob extglob nocaseglob dotglob;"

	commandSubstitutionBlocked = "Command injection detected: command substitution syntax ($(), backticks, <() or >()) found in command arguments. On PowerShell, @() array subexpressions and $() subexpressions are also blocked. This is a security risk and the command was blocked."
)

// shellTool is run_shell_command: a bash command in its own process group.
type shellTool struct {
	env *Env
	// backgroundDelay overrides the is_background grace period (tests).
	backgroundDelay time.Duration
}

// NewShell returns the run_shell_command tool.
func NewShell(env *Env) tool.Tool { return &shellTool{env: env, backgroundDelay: backgroundDelay} }

// Name implements tool.Tool.
func (t *shellTool) Name() string { return "run_shell_command" }

// DisplayName implements tool.Tool.
func (t *shellTool) DisplayName() string { return "Shell" }

// Kind implements tool.Tool.
func (t *shellTool) Kind() tool.Kind { return tool.KindExecute }

// Description implements tool.Tool.
func (t *shellTool) Description() string {
	return "This tool executes a given shell command as `bash -c <command>`. Command can start background processes using `&`. Command is executed as a subprocess that leads its own process group. Command process group can be terminated as `kill -- -PGID` or signaled as `kill -s SIGNAL -- -PGID`.\n\n" +
		"The following information is returned:\n\n" +
		"Command: Executed command.\n" +
		"Directory: Directory (relative to project root) where command was executed, or `(root)`.\n" +
		"Output: Combined stdout/stderr. Can be `(empty)` or partial on error and for any unwaited background processes.\n" +
		"Error: Error or `(none)` if no error was reported for the subprocess.\n" +
		"Exit Code: Exit code or `(none)` if terminated by signal.\n" +
		"Signal: Signal number or `(none)` if no signal was received.\n" +
		"Background PIDs: List of background processes started or `(none)`.\n" +
		"Process Group PGID: Process group started or `(none)`"
}

// Schema implements tool.Tool with the wire spec's parameters.
func (t *shellTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"command": map[string]any{
				"type":        "string",
				"description": "Exact bash command to execute as `bash -c <command>`",
			},
			"description": map[string]any{
				"type":        "string",
				"description": "Brief description of the command for the user. Be specific and concise. Ideally a single sentence. Can be up to 3 sentences for clarity. No line breaks.",
			},
			"directory": map[string]any{
				"type":        "string",
				"description": "(OPTIONAL) Directory to run the command in, if not the project root directory. Must be relative to the project root directory and must already exist.",
			},
			// Gemini CLI 0.61's background parameters (shell.ts).
			"is_background": map[string]any{
				"type":        "boolean",
				"description": "Set to true if this command should be run in the background (e.g. for long-running servers or watchers). The command will be started, allowed to run for a brief moment to check for immediate errors, and then moved to the background.",
			},
			"delay_ms": map[string]any{
				"type":        "integer",
				"description": "Optional. Delay in milliseconds to wait after starting the process in the background. Useful to allow the process to start and generate initial output before returning.",
			},
		},
		"required": []any{"command"},
	}
}

// NormalizeArgs maps today's dir_path onto directory.
func (t *shellTool) NormalizeArgs(args map[string]any) map[string]any {
	return renameArgs(args, map[string]string{"dir_path": "directory"})
}

// Build implements tool.Tool.
func (t *shellTool) Build(args map[string]any) (tool.Call, error) {
	command, _ := argString(args, "command")
	if strings.TrimSpace(command) == "" {
		return nil, tool.Errorf(tool.ErrInvalidParams, "Command cannot be empty.")
	}
	c := &shellCall{env: t.env, command: command, stripped: stripShellWrapper(command), backgroundDelay: t.backgroundDelay}
	c.description, _ = argString(args, "description")
	c.background, _ = argBool(args, "is_background")
	c.dirParam, _ = argString(args, "directory")
	if ms, _ := argNumber(args, "delay_ms"); ms > 0 {
		c.backgroundDelay = time.Duration(ms) * time.Millisecond
	}
	c.cwd = t.env.workspaceRoot()
	if c.dirParam != "" {
		abs, terr := t.env.resolvePath(c.dirParam)
		if terr != nil {
			return nil, terr
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, tool.Errorf(tool.ErrInvalidParams, "Directory must exist.")
		}
		c.cwd = abs
	}
	return c, nil
}

type shellCall struct {
	env         *Env
	command     string // as the model gave it
	stripped    string // without a "bash -c" wrapper: what runs
	description string
	dirParam    string
	cwd         string
	background  bool

	backgroundDelay time.Duration
}

// Describe implements tool.Call, as Gemini CLI describes shell calls.
func (c *shellCall) Describe() string {
	d := c.command
	if c.dirParam != "" {
		d += " [in " + c.dirParam + "]"
	}
	if c.description != "" {
		d += " (" + strings.ReplaceAll(c.description, "\n", " ") + ")"
	}
	if c.background {
		d += " [background]"
	}
	return d
}

// Confirmation implements tool.Call: an exec confirmation naming every
// command the line runs. A command that will be refused for command
// substitution needs no approval, since nothing runs.
func (c *shellCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	if detectCommandSubstitution(c.stripped) {
		return nil, nil
	}
	all := commandRoots(c.stripped)
	display := strings.Join(all, ", ")
	if display == "" {
		display = "shell command"
	}
	return &tool.ConfirmationDetails{
		Type:         tool.ConfirmExec,
		Title:        "Confirm Shell Command",
		Command:      c.command,
		RootCommand:  display,
		RootCommands: uniqueStrings(all),
	}, nil
}

func (c *shellCall) timeout() time.Duration {
	if c.env != nil && c.env.ShellTimeout != 0 {
		// Negative: no inactivity bound, which runShell reads as zero.
		return max(c.env.ShellTimeout, 0)
	}
	return defaultShellTimeout
}

func (c *shellCall) outputLimit() int {
	if c.env != nil && c.env.OutputLimit > 0 {
		return c.env.OutputLimit
	}
	return defaultOutputLimit
}

// Execute implements tool.Call.
func (c *shellCall) Execute(ctx context.Context, out func(string)) *tool.Result {
	if detectCommandSubstitution(c.stripped) {
		return &tool.Result{LLMText: commandSubstitutionBlocked,
			Display: "Blocked: command substitution detected in shell command."}
	}
	if ctx.Err() != nil {
		return &tool.Result{LLMText: "Command was cancelled by user before it could start.",
			Display: "Command cancelled by user.",
			Error:   &tool.Error{Type: tool.ErrCancelled, Message: "Command was cancelled by user before it could start."}}
	}
	if _, terr := c.env.resolvePath(c.cwd); terr != nil {
		return &tool.Result{LLMText: terr.Message, Display: "Path not in workspace.", Error: terr}
	}

	req := shellRequest{
		command:    bashShoptGuard + " " + c.stripped,
		dir:        c.cwd,
		env:        shellEnv(c.env),
		timeout:    c.timeout(),
		background: c.background,
		bgDelay:    c.backgroundDelay,
		out:        out,
	}
	if c.background && c.env.Background != nil {
		return c.result(c.env.Background.run(ctx, req, c.stripped))
	}
	if c.env.Background != nil {
		// The session's own background processes are stopped by Castor:
		// a sandboxed shell may not signal them (bgkill_unix.go).
		if said, status, rest, ok := c.env.Background.ownKills(c.stripped); ok {
			if rest == "" {
				return c.result(shellResult{output: said, exitCode: &status})
			}
			req.command = bashShoptGuard + " " + rest
			r := c.runForeground(ctx, req)
			r.output = said + r.output
			return c.result(r)
		}
	}
	return c.result(c.runForeground(ctx, req))
}

// runForeground runs req to its end, through Env.Shell when it has one.
func (c *shellCall) runForeground(ctx context.Context, req shellRequest) shellResult {
	if c.env.Shell != nil && !c.background {
		return c.env.runShellVia(ctx, req)
	}
	return runShell(ctx, req)
}

// result turns a finished (or backgrounded) run into the model's text.
func (c *shellCall) result(r shellResult) *tool.Result {
	output := strings.TrimSpace(stripANSI(r.output))
	if r.exitCode != nil && *r.exitCode != 0 {
		// What a sandbox denied, said plainly: the path and the rule.
		if note := proc.DenialsIn(c.cwd, output); note != "" {
			output += "\n" + note
		}
	}
	var llm string
	switch {
	case r.aborted || r.timedOut:
		if r.timedOut {
			llm = fmt.Sprintf("Command was automatically cancelled because it exceeded the timeout of %.1f minutes without output.", c.timeout().Minutes())
		} else {
			llm = "Command was cancelled by user before it could complete."
		}
		if output != "" {
			llm += " Below is the output before it was cancelled:\n" + textutil.WrapUntrusted(output)
		} else {
			llm += " There was no output before it was cancelled."
		}
	case r.backgrounded:
		llm = fmt.Sprintf("Command moved to background (PID: %d). Output hidden. Press Ctrl+B to view.", r.pid)
	default:
		llm = c.formatFields(r, output)
	}
	llm = c.truncate(llm)

	res := &tool.Result{LLMText: llm, Display: c.display(r, output)}
	switch {
	case r.aborted:
		// The scheduler decides how a user cancellation reaches the model;
		// the type tells it this is one, the text keeps the partial output.
		res.Error = &tool.Error{Type: tool.ErrCancelled, Message: llm}
	case r.err != nil && !r.timedOut:
		res.Error = &tool.Error{Type: tool.ErrShellExecuteError, Message: r.err.Error()}
	}
	return res
}

// formatFields is the wire spec's shell result: every key, in order, with
// placeholders for the empty ones.
func (c *shellCall) formatFields(r shellResult, output string) string {
	none := func(s string) string {
		if s == "" {
			return "(none)"
		}
		return s
	}
	dir := c.dirParam
	if dir == "" {
		dir = "(root)"
	}
	if output == "" {
		output = "(empty)"
	} else {
		output = textutil.WrapUntrusted(output)
	}
	errText := ""
	if r.err != nil {
		errText = strings.ReplaceAll(r.err.Error(), bashShoptGuard+" "+c.stripped, c.command)
	}
	code, sig, pgid := "", "", ""
	if r.exitCode != nil {
		code = strconv.Itoa(*r.exitCode)
	}
	if r.signal != 0 {
		sig = strconv.Itoa(r.signal)
	}
	if r.pid != 0 {
		pgid = strconv.Itoa(r.pid)
	}
	pids := make([]string, len(r.backgroundPIDs))
	for i, p := range r.backgroundPIDs {
		pids[i] = strconv.Itoa(p)
	}
	return strings.Join([]string{
		"Command: " + c.command,
		"Directory: " + dir,
		"Output: " + output,
		"Error: " + none(errText),
		"Exit Code: " + none(code),
		"Signal: " + none(sig),
		"Background PIDs: " + none(strings.Join(pids, ", ")),
		"Process Group PGID: " + none(pgid),
	}, "\n")
}

// display is the short text for UIs, Gemini CLI's returnDisplay.
func (c *shellCall) display(r shellResult, output string) string {
	switch {
	case r.backgrounded:
		return fmt.Sprintf("Command moved to background (PID: %d). Output hidden. Press Ctrl+B to view.", r.pid)
	case r.aborted || r.timedOut:
		msg := "Command cancelled by user."
		if r.timedOut {
			msg = fmt.Sprintf("Command was automatically cancelled because it exceeded the timeout of %.1f minutes without output.", c.timeout().Minutes())
		}
		if output != "" {
			return msg + "\n\nOutput before cancellation:\n" + output
		}
		return msg
	case output != "":
		return output
	case r.signal != 0:
		return fmt.Sprintf("Command terminated by signal: %d", r.signal)
	case r.err != nil:
		return "Command failed: " + r.err.Error()
	case r.exitCode != nil && *r.exitCode != 0:
		return fmt.Sprintf("Command exited with code: %d", *r.exitCode)
	}
	return ""
}

// truncate applies the output limit: an oversized result is saved whole
// under the project temp directory and the model gets its head and tail.
func (c *shellCall) truncate(llm string) string {
	limit := c.outputLimit()
	if utf16Len(llm) <= limit {
		return llm
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	id := strconv.FormatInt(time.Now().UnixMilli(), 10) + "_" + hex.EncodeToString(b[:])
	tempDir := ""
	if c.env != nil {
		tempDir = c.env.TempDir
	}
	return tool.LimitOutput(llm, tempDir, "run_shell_command", id, limit)
}

// shellEnv is the child environment: the session's (Env.Environ, else the
// process's), plus the variables that tell scripts they run under an agent
// and keep pagers out of the way, then redacted by Env.Redact. Redaction
// comes last, as in Gemini CLI, whose strict GitHub Actions mode even
// withholds its own GEMINI_CLI=1.
func shellEnv(e *Env) []string {
	var env []string
	if e != nil && e.Environ != nil {
		env = e.Environ()
	} else {
		env = os.Environ()
	}
	var redact func([]string) []string
	if e != nil {
		redact = e.Redact
	}
	return proc.Env(env, []string{"GEMINI_CLI=1", "CASTOR=1", "TERM=xterm-256color", "PAGER=cat", "GIT_PAGER=cat"}, redact)
}

// ---------------------------------------------------------------------------
// Running

// shellRequest is what runShell needs.
type shellRequest struct {
	command    string
	dir        string
	env        []string
	timeout    time.Duration // inactivity timeout
	background bool
	bgDelay    time.Duration // how long a background command runs before it is left alone
	out        func(string)  // live output, may be nil
}

// shellResult is how a run ended.
type shellResult struct {
	output         string // combined stdout and stderr, raw
	exitCode       *int   // nil when killed by a signal or never started
	signal         int    // terminating signal number, 0 if none
	err            error  // spawn failure
	pid            int    // the shell's pid, which is also the group id
	aborted        bool   // the context was cancelled
	timedOut       bool   // the inactivity timeout fired
	backgrounded   bool   // left running (is_background)
	backgroundPIDs []int  // processes still in the group after the shell exited
}

// ---------------------------------------------------------------------------
// Command analysis

// stripShellWrapper removes a "bash -c '...'"-style wrapper the model
// sometimes adds around its command, as Gemini CLI does before running it.
var shellWrapperRE = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:sh|bash|zsh|cmd\.exe)\s+(?:/c|-c)\s+`) }}

func stripShellWrapper(command string) string {
	if loc := shellWrapperRE.Get().FindStringIndex(command); loc != nil {
		rest := strings.TrimSpace(command[loc[1]:])
		if len(rest) >= 2 && (rest[0] == '"' && rest[len(rest)-1] == '"' || rest[0] == '\'' && rest[len(rest)-1] == '\'') {
			rest = rest[1 : len(rest)-1]
		}
		return rest
	}
	return strings.TrimSpace(command)
}

// detectCommandSubstitution reports whether bash would run a command
// substitution in command: $( or a backtick outside single quotes, or
// <( / >( outside any quotes, honouring backslash escapes. Gemini CLI
// refuses such commands.
func detectCommandSubstitution(command string) bool {
	inSingle, inDouble := false, false
	for i := 0; i < len(command); i++ {
		ch := command[i]
		switch {
		case ch == '\'' && !inDouble:
			inSingle = !inSingle
			continue
		case ch == '"' && !inSingle:
			inDouble = !inDouble
			continue
		case inSingle:
			continue
		case ch == '\\' && i+1 < len(command):
			if !inDouble || strings.IndexByte("$`\"\\\n", command[i+1]) >= 0 {
				i++
				continue
			}
		}
		next := byte(0)
		if i+1 < len(command) {
			next = command[i+1]
		}
		switch {
		case ch == '$' && next == '(':
			return true
		case !inDouble && (ch == '<' || ch == '>') && next == '(':
			return true
		case ch == '`':
			return true
		}
	}
	return false
}

// commandRoots returns the name of every simple command in the line, in
// order (pipelines, lists, subshells, functions and substitutions
// included), reduced to its base name ("/usr/bin/git" → "git"). When the
// line does not parse, its first word stands in.
func commandRoots(command string) []string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		if fields := strings.Fields(command); len(fields) > 0 {
			return []string{filepath.Base(fields[0])}
		}
		return nil
	}
	var roots []string
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		if name := shellword.Literal(call.Args[0]); name != "" {
			roots = append(roots, filepath.Base(name))
		}
		return true
	})
	return roots
}

// uniqueStrings returns ss without repeats, first occurrences kept.
func uniqueStrings(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// ansiRE matches terminal escape sequences (CSI, OSC and single-character
// escapes), the set the strip-ansi package Gemini CLI uses removes.
var ansiRE = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`[\x1b\x{9b}][\[\]()#;?]*(?:(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?\x07)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-nq-uy=><~]))`)
}}

// stripANSI removes terminal escape sequences from s.
func stripANSI(s string) string {
	if !strings.ContainsAny(s, "\x1b\u009b") {
		return s
	}
	return ansiRE.Get().ReplaceAllString(s, "")
}
