package setup

import (
	"context"
	"path/filepath"
	"slices"
	"sync"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/checkpoint"
	"github.com/castor-dev/castor/mcp"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
	"github.com/castor-dev/castor/tool/builtin"
)

// toolSet is the tool step's outcome.
type toolSet struct {
	registry *tool.Registry
	// env is the built-in tools' environment, which later steps complete
	// (memory reload, checkpoints).
	env     *builtin.Env
	filters *filterCache
	respect tool.FilterOptions
	// trusted are tools that run without confirmation: the caller's
	// trusted custom tools and tools of MCP servers with trust: true.
	trusted []string
	// custom are the caller's own tools, whose Confirmation decides
	// whether a call is asked about.
	custom []string
	mcp    *mcp.Manager
	// mcpBG is mcp's start when it runs in the background.
	mcpBG *mcpStart
	// mcpCommands follows the servers' prompts (mcpcommands.go).
	mcpCommands *mcpCommands
	// jit brings subfolder memory into tool output (nil: off).
	jit *jitMemory
}

// buildTools registers the built-in tools (filtered by tools.core and
// tools.exclude), the caller's tools, the project's discovered tools and
// the MCP servers' tools.
func buildTools(ctx context.Context, o Options, a *Agent, client model.Model, modelName string) (*toolSet, error) {
	st := a.Settings
	wd := a.Workspace.Dirs()[0]
	ts := &toolSet{
		registry: tool.NewRegistry(),
		filters:  &filterCache{root: wd, extra: st.Context.FileFiltering.CustomIgnoreFilePaths, m: map[tool.FilterOptions]tool.FileFilter{}},
		respect:  tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true},
	}
	if !o.IgnoreSettings {
		ts.respect = tool.FilterOptions{
			RespectGitIgnore:    st.Context.FileFiltering.RespectGitIgnore,
			RespectGeminiIgnore: st.Context.FileFiltering.RespectGeminiIgnore,
		}
	}
	ts.env = &builtin.Env{
		Workspace:   a.Workspace,
		Filter:      ts.filters.get,
		TempDir:     a.TempDir,
		Model:       client,
		ModelName:   modelName,
		OutputLimit: st.Tools.TruncateToolOutputThreshold,
		MemoryFile:  a.Home.MemoryPath(memoryFileName(st)),
		Environ:     a.Env.Environ,
		// A zero Settings (IgnoreSettings) leaves UseRipgrep false; ripgrep
		// is still the default then.
		DisableRipgrep: !o.IgnoreSettings && !st.Tools.UseRipgrep,
		Files:          o.Files,
		Shell:          o.Shell,
		// is_background processes log where Gemini CLI's do, and end
		// with the session.
		Background: builtin.NewBackground(filepath.Join(a.Home.TmpDir(), "background-processes")),
	}
	a.onClose(ts.env.Background.Close)
	a.Background = ts.env.Background
	if planEnabled(st) {
		// The directory and the mode are known once the session and its
		// policy exist (finishPlan).
		ts.env.Plan = &builtin.Plan{Root: wd}
	}
	ts.env.ShellTimeout = shellTimeout(st)
	// tools.webFetch.allowPrivateAddresses lets web_fetch reach local
	// development servers (loopback, link-local, private networks).
	ts.env.AllowPrivateHosts, _ = st.GetBool("tools.webFetch.allowPrivateAddresses")
	// tools.grepMaxMatches (Castor's; Gemini CLI fixes 100) raises the
	// search cap for users who want more than the default.
	if n, ok := st.GetNumber("tools.grepMaxMatches"); ok && n >= 1 {
		ts.env.SearchMaxMatches = int(n)
	}
	if !o.IgnoreSettings && jitEnabled(st) {
		ts.jit = &jitMemory{root: wd, warn: o.Warn}
	}
	exclude := builtinExclude(st)
	for _, t := range builtin.All(ts.env) {
		if keepTool(t, st.Tools.Core, exclude) {
			ts.registry.Register(withJIT(t, ts.jit))
		}
	}
	for _, t := range o.Tools {
		ts.registry.Register(t)
		if slices.Contains(o.TrustedTools, t.Name()) {
			ts.trusted = append(ts.trusted, t.Name())
		} else {
			ts.custom = append(ts.custom, t.Name())
		}
	}
	addLSP(o, a, ts) // lsp.go
	addDiscovered(ctx, o, a, ts, exclude)
	// Without settings, only extensions given in code bring servers.
	if !o.IgnoreSettings || len(st.MCPServers) > 0 {
		msync := &mcpSync{registry: ts.registry}
		ts.mcpCommands = &mcpCommands{} // started once the session's commands exist
		if o.MCPInBackground {
			place := mcpPlace{workDir: wd, geminiDir: a.Home.Dir, environ: a.Env.Environ(), getenv: a.Env.Getenv, onToolsChanged: msync.update, onPromptsChanged: ts.mcpCommands.refresh, tempDir: a.TempDir, elicit: elicitFor(o), debug: o.Debug}
			if ts.mcp = newMCP(st, place, o.AllowedMCPServerNames, o.Warn); ts.mcp != nil {
				ts.mcpBG = startMCPInBackground(ctx, a, ts.mcp, msync, o.Warn)
			}
			return ts, ctx.Err()
		}
		ts.mcp = openMCP(ctx, st, mcpPlace{workDir: wd, geminiDir: a.Home.Dir, environ: a.Env.Environ(), getenv: a.Env.Getenv, onToolsChanged: msync.update, onPromptsChanged: ts.mcpCommands.refresh, tempDir: a.TempDir, elicit: elicitFor(o), debug: o.Debug}, o.AllowedMCPServerNames, o.Warn)
		if ts.mcp != nil {
			a.onClose(ts.mcp.Close)
			for _, t := range ts.mcp.Tools() {
				if tt, ok := t.(tool.TrustedTool); ok && tt.Trusted() {
					ts.trusted = append(ts.trusted, t.Name())
				}
			}
			msync.update(ts.mcp.Tools())
		}
	}
	return ts, ctx.Err()
}

// buildPolicy builds the approval rules: the mode (from the options, else
// general.defaultApprovalMode; an untrusted folder never gets yolo or
// auto_edit), tools.allowed and the options' rules, trusted tools,
// tools.exclude, and the rules of the policy files. ws is the session's
// workspace, which known-safe shell commands must stay inside.
func buildPolicy(o Options, st *config.Settings, trusted, interactive bool, askKinds []tool.Kind, trustedTools, customTools []string, lookup func(string) (tool.Tool, bool), rules []policy.Rule, save autoSave, ws *tool.Workspace) (*policy.Engine, error) {
	warnMalformedRules(o, st)
	mode := o.ApprovalMode
	if mode == "" && st.General.DefaultApprovalMode != "" {
		m, err := policy.ParseMode(st.General.DefaultApprovalMode)
		if err != nil {
			return nil, configErrorf("general.defaultApprovalMode: %v", err)
		}
		if m == policy.ModeYolo {
			// Gemini CLI 0.61 reads yolo here as unset: YOLO mode comes
			// only from the command line or the terminal's Ctrl+Y, never
			// from a settings file (a workspace's could set it).
			o.Warn("general.defaultApprovalMode yolo is ignored, as Gemini CLI ignores it: YOLO mode comes only from --yolo, --approval-mode=yolo or Ctrl+Y; approval mode is default")
			m = policy.ModeDefault
		}
		mode = m
	}
	if o.MaxApprovalMode != nil {
		if m, capped := mode.AtMost(*o.MaxApprovalMode); capped {
			if m == "" {
				m = policy.ModeDefault
			}
			o.Warn("approval mode " + string(mode) + " is above this server's ceiling (--max-approval-mode): approval mode is " + string(m))
			mode = m
		}
	}
	if !trusted && (mode == policy.ModeYolo || mode == policy.ModeAutoEdit) {
		o.Warn("this folder is not trusted: approval mode is reset to default")
		mode = policy.ModeDefault
	}
	var allowed []string
	allowed = append(allowed, st.Tools.Allowed...)
	allowed = append(allowed, o.AllowedTools...)
	allowed = append(allowed, trustedTools...)
	return policy.New(policy.Options{
		Mode:           mode,
		Interactive:    interactive,
		AskKinds:       askKinds,
		Allowed:        allowed,
		Excluded:       st.Tools.Exclude,
		SelfConfirming: customTools,
		Lookup:         lookup,
		Rules:          rules,
		Untrusted:      !trusted,
		AutoSave:       save.path,
		// security.disableAlwaysAllow: answers are "once" only.
		DisableAlwaysAllow: st.AlwaysAllowDisabled(),
		OnSave:             save.onSave,
		Workspace:          ws,
	}), nil
}

// keepTool applies tools.core (an allow-list by name or display name;
// "Name(args)" entries name the tool) and tools.exclude (an entry with
// arguments excludes some calls, which the policy refuses, not the tool).
func keepTool(t tool.Tool, core, exclude []string) bool {
	names := func(n string) bool { return n == t.Name() || n == t.DisplayName() }
	if core != nil && !slices.ContainsFunc(core, func(e string) bool {
		name, _, ok := policy.ParseRule(e)
		return ok && names(name)
	}) {
		return false
	}
	return !slices.ContainsFunc(exclude, func(e string) bool {
		name, prefix, ok := policy.ParseRule(e)
		return ok && prefix == "" && names(name)
	})
}

// checkpoints returns the checkpoint service when general.checkpointing
// is on, and has edit tools snapshot the workspace before they write.
func checkpoints(st *config.Settings, wd string, a *Agent, benv *builtin.Env, sess *agent.Session, warn func(string)) *checkpoint.Service {
	if !st.General.Checkpointing {
		return nil
	}
	svc := checkpoint.ForProject(a.Home.Dir, a.TempDir, wd)
	svc.Warn = warn
	benv.BeforeEdit = func(ctx context.Context, e builtin.Edit) {
		tool.RecordCheckpoint(ctx, svc.Checkpoint(ctx, checkpoint.ToolCall{Name: e.Tool, Args: e.Args}, sess.History(), e.PromptID))
	}
	return svc
}

func memoryFileName(st *config.Settings) string {
	if len(st.Context.FileNames) > 0 && st.Context.FileNames[0] != "" {
		return st.Context.FileNames[0]
	}
	return "GEMINI.md"
}

// filterCache builds each combination of ignore options once.
type filterCache struct {
	mu    sync.Mutex
	root  string
	extra []string
	m     map[tool.FilterOptions]tool.FileFilter
}

func (c *filterCache) get(o tool.FilterOptions) tool.FileFilter {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.m[o]
	if !ok {
		f = config.NewFileFilter(c.root, o, c.extra...)
		c.m[o] = f
	}
	return f
}
