package setup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/atpath"
	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/mcp"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
	"github.com/castor-dev/castor/tool/builtin"
)

// InputError is typed input that cannot be turned into a prompt: an @path
// that cannot be read, a custom command whose shell command is refused
// (the CLI exits 42, Gemini CLI's FatalInputError).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// ExpandPrompt turns what a user typed into the parts sent to the model.
// Every face calls it, so that one rule serves them all:
//
//   - a leading "/name args" naming a custom command (.toml, from the
//     user's, the workspace's or an extension's commands folder) becomes
//     that command's prompt; its own @{…} and !{…} are expanded, the
//     text is not searched for @path again (as in Gemini CLI);
//   - a leading "/name args" naming an MCP server's prompt becomes the
//     prompt the server returns;
//   - otherwise each @path is replaced by the file's or folder's contents
//     read with read_many_files, framed as Gemini CLI frames them.
//
// Built-in commands that answer by themselves (/memory, /extensions…)
// are not run here: a face that offers them looks the line up in
// a.Commands first and runs it; text that names no custom command is
// sent as typed.
func (a *Agent) ExpandPrompt(ctx context.Context, text string) ([]*genai.Part, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if fc, raw, args, ok := a.lookupFileCommand(text); ok {
		parts, err := fc.Expand(ctx, raw, args, a.injector())
		if err != nil {
			return nil, &InputError{Err: err}
		}
		return parts, nil
	}
	if parts, ok, err := a.expandMCPPrompt(ctx, text); ok {
		return parts, err
	}
	parts := []*genai.Part{genai.NewPartFromText(text)}
	if a.expand != nil && atpath.HasRefs(text) {
		var err error
		if parts, err = a.expand.atPaths(ctx, text); err != nil {
			return nil, &InputError{Err: err}
		}
	}
	if n := a.SubagentNudge(text); n != nil {
		parts = append(parts, n)
	}
	return parts, nil
}

// expandMCPPrompt runs a leading "/name args" naming an MCP server's
// prompt, which only builds a prompt, so every face may expand it here.
func (a *Agent) expandMCPPrompt(ctx context.Context, text string) ([]*genai.Part, bool, error) {
	raw := strings.TrimSpace(text)
	if a.expand == nil || !strings.HasPrefix(raw, "/") {
		return nil, false, nil
	}
	fields := strings.Fields(raw[1:])
	if len(fields) == 0 || !a.expand.isMCPPrompt(fields[0]) {
		return nil, false, nil
	}
	name := fields[0]
	res, err := a.Commands.RunLine(ctx, raw, command.Env{Workspace: a.Workspace.Dirs()[0], HomeDir: a.Home.UserDir, Trusted: a.Trusted})
	switch {
	case err != nil:
		return nil, true, &InputError{Err: err}
	case res.Kind != command.ResultSubmitPrompt:
		return nil, true, &InputError{Err: fmt.Errorf("/%s answered without a prompt: %s", name, res.Content)}
	}
	return []*genai.Part{genai.NewPartFromText(res.Content)}, true, nil
}

// lookupFileCommand finds the custom command a line starts with.
func (a *Agent) lookupFileCommand(text string) (fc *command.FileCommand, raw, args string, ok bool) {
	raw = strings.TrimSpace(text)
	if !strings.HasPrefix(raw, "/") || len(a.fileCommands) == 0 {
		return nil, "", "", false
	}
	name, rest, _ := strings.Cut(raw[1:], " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, rest = name[:i], name[i+1:]+" "+rest
	}
	fc, ok = a.fileCommands[name]
	if !ok {
		return nil, "", "", false
	}
	return fc, raw, strings.TrimSpace(rest), true
}

// expander holds what prompt expansion needs from the session's
// assembly.
type expander struct {
	env     *builtin.Env
	respect tool.FilterOptions
	policy  *policy.Engine
	tools   *tool.Registry
	confirm func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error)
	search  bool
	// mcpPrompts are the names of the MCP prompt commands; servers
	// started in the background add theirs later (mcpbackground.go), and
	// a server's prompts/list_changed replaces them (mcpcommands.go).
	mcpMu      sync.RWMutex
	mcpPrompts map[string]bool
	// mcp reads the resources @server:uri references name.
	mcp *mcp.Manager
	// mcpCommands follows the servers' prompts (mcpcommands.go); nil
	// when no server can be configured.
	mcpCommands *mcpCommands
	seq         atomic.Int64
}

func (x *expander) isMCPPrompt(name string) bool {
	x.mcpMu.RLock()
	defer x.mcpMu.RUnlock()
	return x.mcpPrompts[name]
}

// setMCPPrompts replaces the names of the MCP prompt commands.
func (x *expander) setMCPPrompts(names map[string]bool) {
	x.mcpMu.Lock()
	defer x.mcpMu.Unlock()
	x.mcpPrompts = names
}

// followMCPPrompts registers the servers' prompts as commands in reg and
// keeps them in step with the servers (mcpCommands).
func (x *expander) followMCPPrompts(reg *command.Registry) {
	if x.mcpCommands == nil {
		x.setMCPPrompts(registerMCPCommands(reg, x.mcp))
		return
	}
	x.mcpCommands.start(reg, x.mcp, x)
}

func newExpander(st *config.Settings, ts *toolSet, pol *policy.Engine, confirm func(context.Context, *agent.ToolCall) (tool.Decision, error)) *expander {
	x := &expander{env: ts.env, respect: ts.respect, policy: pol, tools: ts.registry, confirm: confirm, search: true, mcp: ts.mcp, mcpCommands: ts.mcpCommands}
	// context.fileFiltering.enableRecursiveFileSearch (default true) lets
	// an @name that names nothing be searched for.
	if v, ok := st.GetBool("context.fileFiltering.enableRecursiveFileSearch"); ok {
		x.search = v
	}
	return x
}

func (a *Agent) injector() command.Injector {
	if a.expand == nil {
		return noInjector{}
	}
	return a.expand
}

// noInjector serves an agent built without the assembly (tests).
type noInjector struct{}

func (noInjector) CheckShell(context.Context, []string) error {
	return errors.New("shell commands are not available")
}
func (noInjector) RunShell(context.Context, string) (string, error) {
	return "", errors.New("shell commands are not available")
}
func (noInjector) ReadPath(context.Context, string) ([]*genai.Part, error) {
	return nil, errors.New("files are not available")
}

func (x *expander) shell() (tool.Tool, bool) {
	if t, ok := x.tools.Get("run_shell_command"); ok {
		return t, true
	}
	// The shell tool is not offered to the model (tools.core), yet a
	// command's !{…} still runs through it, under the same policy.
	return builtin.NewShell(x.env), true
}

// CheckShell asks the session's policy about each command as if the
// model had called run_shell_command with it: refused ones stop the
// command; ones that need approval are put to the face's Confirm, and
// refused when there is none (a headless run), as Gemini CLI refuses.
func (x *expander) CheckShell(ctx context.Context, commands []string) error {
	t, _ := x.shell()
	for _, c := range commands {
		args := map[string]any{"command": c}
		call, err := t.Build(args)
		if err != nil {
			return fmt.Errorf("shell command %q: %v", c, err)
		}
		pc := policy.Call{Name: t.Name(), DisplayName: t.DisplayName(), Kind: t.Kind(), Args: args}
		d, _ := x.policy.Decide(pc)
		var details *tool.ConfirmationDetails
		if d == policy.Ask {
			if details, err = call.Confirmation(ctx); err != nil {
				return err
			}
			if details != nil && len(details.RootCommands) > 0 {
				pc.RootCommands = details.RootCommands
				d, _ = x.policy.Decide(pc)
			}
		}
		switch {
		case d == policy.Deny && !x.policy.Interactive():
			return &ShellRefusedError{Command: c}
		case d == policy.Deny:
			return fmt.Errorf("cannot be run. Blocked command: %q. Reason: Blocked by policy", c)
		case d == policy.Allow || details == nil:
			continue
		case x.confirm == nil:
			return fmt.Errorf("shell command %q needs a confirmation this run cannot ask for", c)
		}
		id := fmt.Sprintf("command-shell-%d", x.seq.Add(1))
		tc := &agent.ToolCall{ID: id, Name: t.Name(), Args: args, Tool: t, Description: call.Describe(),
			Status: agent.StatusAwaitingApproval, Confirmation: &agent.Confirmation{CallID: id, Details: details}}
		dec, err := x.confirm(ctx, tc)
		if err != nil {
			return err
		}
		switch dec.Outcome {
		case tool.ProceedOnce, tool.ProceedAlways, tool.ProceedAlwaysSave, tool.ProceedAlwaysServer, tool.ProceedAlwaysTool:
			x.policy.Remember(pc, dec.Outcome)
		default:
			return fmt.Errorf("shell command %q was not approved", c)
		}
	}
	return nil
}

// ShellRefusedError is a custom command's !{…} that a headless run's
// policy does not allow and that no one can be asked about. Its message
// names the castor command's flag; the SDK rewords it with Advice
// (sdkerrors.go), since a program allows tools with an option instead.
type ShellRefusedError struct {
	// Command is the shell command that was refused.
	Command string
}

func (e *ShellRefusedError) Error() string {
	return e.Advice(`--allowed-tools "run_shell_command(` + e.Command + `)"`)
}

// Advice is the message with allow (how this face allows a tool) as the
// way out.
func (e *ShellRefusedError) Advice(allow string) string {
	return fmt.Sprintf("cannot be run. Blocked command: %q. Reason: Blocked by policy (a headless run cannot ask for approval: allow it with %s or an approval mode)", e.Command, allow)
}

var exitCodeLine = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Exit Code: (\d+)$`) }}

// RunShell runs a checked command with the shell tool and returns its
// output, with Gemini CLI's note when it failed.
func (x *expander) RunShell(ctx context.Context, c string) (string, error) {
	t, _ := x.shell()
	call, err := t.Build(map[string]any{"command": c})
	if err != nil {
		return "", err
	}
	res := call.Execute(ctx, nil)
	if res.Error != nil && res.Error.Type == tool.ErrCancelled {
		return res.Display + fmt.Sprintf("\n[Shell command '%s' aborted]", c), nil
	}
	out := res.Display
	if m := exitCodeLine.Get().FindStringSubmatch(res.LLMText); m != nil && m[1] != "0" {
		if strings.HasPrefix(out, "Command exited with code") {
			out = ""
		}
		out += fmt.Sprintf("\n[Shell command '%s' exited with code %s]", c, m[1])
	} else if res.Error != nil {
		return "", fmt.Errorf("failed to start shell command: %s. Command: %s", res.Error.Message, c)
	}
	return out, nil
}

// ReadPath reads @{path} of a custom command: a file's content (images
// and PDFs as inline data), or every file of a folder each under a
// "--- name ---" line, ignore files honoured.
func (x *expander) ReadPath(ctx context.Context, p string) ([]*genai.Part, error) {
	abs := ""
	if filepath.IsAbs(p) {
		if !x.env.Workspace.Contains(p) {
			return nil, fmt.Errorf("absolute path is outside of the allowed workspace: %s", p)
		}
		abs = p
	} else {
		for _, d := range x.env.Workspace.Dirs() {
			cand := filepath.Join(d, p)
			if _, err := os.Stat(cand); err == nil && x.env.Workspace.Contains(cand) {
				abs = cand
				break
			}
		}
	}
	if abs == "" {
		return nil, fmt.Errorf("path not found in workspace: %s", p)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	filter := x.filter()
	ignored := func(f string, dir bool) bool { return filter != nil && filter.Ignored(f, dir) }
	if !fi.IsDir() {
		if ignored(abs, false) {
			return nil, nil
		}
		return x.readFile(ctx, abs), nil
	}
	parts := []*genai.Part{genai.NewPartFromText(fmt.Sprintf("--- Start of content for directory: %s ---\n", p))}
	err = filepath.WalkDir(abs, func(f string, e os.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil {
			return ctx.Err()
		}
		if e.IsDir() {
			if f != abs && ignored(f, true) {
				return filepath.SkipDir
			}
			return nil
		}
		if ignored(f, false) {
			return nil
		}
		rel, _ := filepath.Rel(abs, f)
		parts = append(parts, genai.NewPartFromText(fmt.Sprintf("--- %s ---\n", rel)))
		parts = append(parts, x.readFile(ctx, f)...)
		parts = append(parts, genai.NewPartFromText("\n"))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return append(parts, genai.NewPartFromText(fmt.Sprintf("--- End of content for directory: %s ---", p))), nil
}

func (x *expander) filter() tool.FileFilter {
	if x.env.Filter == nil {
		return nil
	}
	return x.env.Filter(x.respect)
}

// readFile reads one file with read_file, the reader the model's calls
// use: text as text, images and PDFs as inline data.
func (x *expander) readFile(ctx context.Context, abs string) []*genai.Part {
	call, err := builtin.NewReadFile(x.env).Build(map[string]any{"absolute_path": abs})
	if err != nil {
		return []*genai.Part{genai.NewPartFromText(err.Error())}
	}
	res := call.Execute(ctx, nil)
	switch {
	case res.LLMPart != nil:
		return []*genai.Part{res.LLMPart}
	case len(res.LLMParts) > 0:
		return res.LLMParts
	}
	return []*genai.Part{genai.NewPartFromText(res.LLMText)}
}
