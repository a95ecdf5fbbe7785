package setup

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/checkpoint"
	"github.com/castor-dev/castor/internal/hooks"
	"github.com/castor-dev/castor/internal/lsp"
	"github.com/castor-dev/castor/internal/sandbox"
	"github.com/castor-dev/castor/internal/skills"
	"github.com/castor-dev/castor/internal/subagents"
	"github.com/castor-dev/castor/mcp"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/gemini"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
	"github.com/castor-dev/castor/tool/builtin"
)

// Info is what dynamic instructions learn about the session they serve.
type Info struct {
	SessionID  string
	WorkDir    string
	Timestamp  time.Time
	Transcript []*genai.Content
	// Agent is the assembled agent the instructions serve.
	Agent *Agent
}

// Options is everything a face may ask of the assembly. The SDK facade
// exposes a few of these; the CLI and A2A faces set the rest.
type Options struct {
	// WorkDir is the workspace root (default: the current directory).
	WorkDir string
	// IncludeDirectories are further workspace directories.
	IncludeDirectories []string
	// Model is the model name (default: GEMINI_MODEL, settings
	// model.name, then DefaultModel); aliases (auto, pro, flash…) are
	// resolved as Gemini CLI 0.61 does, auto by routing each prompt.
	Model string
	// Instructions are added where GEMINI.md memory goes in the system
	// instruction; InstructionsFunc computes more for each model call.
	Instructions     string
	InstructionsFunc func(Info) string
	// Tools are custom tools added to the built-in ones. They are
	// confirmed like built-ins: a call whose Confirmation asks is asked
	// about, unless the tool's name is in TrustedTools.
	Tools        []tool.Tool
	TrustedTools []string
	// OutputSchema, when set, constrains each turn's final answer to a
	// JSON Schema and validates it (agent.OutputSchema).
	OutputSchema *agent.OutputSchema
	// ApprovalMode overrides general.defaultApprovalMode.
	ApprovalMode policy.Mode
	// MaxApprovalMode, when set, bounds the approval mode, whether from
	// ApprovalMode or the settings (an A2A server's ceiling).
	MaxApprovalMode *policy.Mode
	// AllowedTools are extra --allowed-tools rules.
	AllowedTools []string
	// PolicyPaths (--policy) are policy files or folders read instead of
	// the policyPaths setting and ~/.gemini/policies; AdminPolicyPaths
	// (--admin-policy) are read at the admin tier, instead of the
	// adminPolicyPaths setting.
	PolicyPaths, AdminPolicyPaths []string
	// IgnorePolicyErrors (--ignore-policy-errors) starts a session whose
	// policy files have mistakes with the rules that could be read, as
	// Gemini CLI does, instead of failing with a *ConfigError.
	IgnorePolicyErrors bool
	// AllowedMCPServerNames limits the MCP servers started to these.
	AllowedMCPServerNames []string
	// Sandbox, when set, confines every command the agent starts
	// (sandbox.go); the CLI confines its process itself instead.
	Sandbox *SandboxOptions
	// Confirm answers confirmations synchronously; with it the session is
	// interactive.
	Confirm func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error)
	// Interactive makes calls that need approval pause the turn
	// (EventInputRequired) even without Confirm.
	Interactive bool
	// Questions, when set, answers the confirmations that are questions
	// (ask_user, plan mode's tools) before Confirm, and lets a session
	// without Confirm ask them: such a session is otherwise headless, its
	// other calls decided without asking.
	Questions func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error)
	// Client replaces the model transport.
	Client model.Model
	// FakeResponses replays a Gemini CLI --fake-responses JSONL file;
	// FakeResponsesNonStrict matches entries by method instead of order.
	FakeResponses          string
	FakeResponsesNonStrict bool
	// RecordResponses records the model's responses in the same format.
	RecordResponses string
	// MaxBudgetUSD, when above 0, ends the turn before a model call
	// whose cost would take the session's past it (--max-budget-usd);
	// it wins over the model.maxBudgetUsd setting.
	MaxBudgetUSD float64
	// SessionID fixes the session id (default: a new UUID).
	SessionID string
	// Resume continues a recorded session: "latest", a 1-based index or a
	// session id.
	Resume string
	// IDE turns IDE mode on whatever the ide.enabled setting says.
	IDE bool
	// History restores a conversation kept elsewhere (a task store).
	History []*genai.Content
	// DisableRecording turns off chat recording under ~/.gemini/tmp.
	DisableRecording bool
	// CleanupSessions applies general.sessionRetention to the project's
	// recorded sessions once per process, as Gemini CLI's start-up does
	// (retention.go). The CLI's faces set it.
	CleanupSessions bool
	// IgnoreSettings skips settings files, .env and GEMINI.md.
	IgnoreSettings bool
	// Settings, when set, are what config.Load gives for WorkDir with the
	// process environment and nothing else set (Env and HomeDir unset):
	// a caller that loaded them for its own start-up checks (the CLI's
	// YOLO and sandbox checks) spares the assembly a second load. They
	// are the assembly's from then on (it adds to them); later loads
	// (the IDE's or the user's trust) read the files again.
	Settings *config.Settings
	// EnforceTrust refuses a workspace that folder trust does not trust,
	// as headless Gemini CLI does; without it (and without AskTrust) the
	// workspace counts as trusted.
	EnforceTrust bool
	// AskTrust, when set and EnforceTrust is not, is asked about a
	// workspace that folder trust neither trusts nor distrusts, before
	// anything is read from it (trustfolder.go). A level is saved to
	// trustedFolders.json and applied; "" leaves the folder untrusted for
	// this session only (the ACP face); an error ends New with it.
	AskTrust func(ctx context.Context, q TrustQuestion) (config.TrustLevel, error)
	// Env is the environment the session starts from (default: the
	// process environment). The workspace's .env file is layered on top
	// for this session only: the process environment is never changed.
	Env config.LookupFunc
	// HomeDir is the user's home directory (default os.UserHomeDir).
	HomeDir string
	// Retry tunes retries of failed model calls.
	Retry *model.RetryOptions
	// Warn receives non-fatal setup problems (default: ignored).
	Warn func(string)
	// Debug receives debug lines: MCP servers' start-up, their stderr,
	// tools skipped (default: dropped, never the process's log).
	Debug func(string)
	// Info receives lines for the user that report no problem (an
	// extension updated or with an update available), which a face may
	// show unlike warnings; nil sends them to Warn.
	Info func(string)
	// Hooks are in-process hooks, run with those of the settings.
	Hooks []RuntimeHook
	// Extensions is -e/--extensions: only these installed extensions are
	// active ("none": none); empty means the enablement rules decide.
	Extensions []string
	// CodeExtensions are extensions given in code (the SDK's).
	CodeExtensions []*CodeExtension
	// ExtensionUpdates checks the installed extensions for updates in the
	// background once assembled, updating those installed with
	// --auto-update, as Gemini CLI's interactive start-up does (the CLI
	// sets it for the interactive terminal only).
	ExtensionUpdates bool
	// Skills load skills given by the program, added over the discovered
	// ones; Subagents are subagents given by the program.
	Skills    []func() ([]*skills.Skill, error)
	Subagents []*subagents.Definition
	// Files and Shell, when set, replace the local disk and bash of the
	// built-in tools (builtin.Env.Files and Shell): an ACP client's editor
	// and terminal.
	Files builtin.TextFiles
	Shell func(ctx context.Context, cmd builtin.ShellCommand) builtin.ShellOutcome
	// MCPServers are more MCP servers for this session, in the settings'
	// mcpServers format (name → {command, args, env} or {url} or
	// {httpUrl}); they replace configured servers of the same name.
	MCPServers map[string]any
	// Elicit answers MCP servers' questions to the user (a form or a URL
	// to open); nil declines each one with a line through Warn naming the
	// server and the question.
	Elicit mcp.ElicitFunc
	// MCPInBackground lets New return while the MCP servers connect:
	// their tools and prompts join the session once every server has
	// connected or failed, and Agent.MCPReady says when. The interactive
	// terminal sets it; the other faces wait for the servers in New.
	MCPInBackground bool
	// Telemetry, when set, is asked once the settings are read for the
	// session's agent.Observer (nil: none), given the settings, the
	// environment with the workspace's .env and Warn (where the
	// telemetry's own warnings go while the session is the face's); its
	// error ends New as a configuration error (telemetry.go). The CLI's
	// faces set it, so the SDK links no OpenTelemetry exporter.
	Telemetry func(st *config.Settings, env config.LookupFunc, warn func(string)) (agent.Observer, error)
}

// DefaultModel is the model used when neither an option, GEMINI_MODEL
// nor the settings name one: "auto", routed per prompt (see
// internal/routing).
const DefaultModel = "auto"

// Agent is an assembled session with everything it holds.
type Agent struct {
	// Session is the engine session.
	Session *agent.Session
	// Settings are the merged settings in effect.
	Settings *config.Settings
	// Home is the user's ~/.gemini location.
	Home config.Home
	// Workspace is the set of directories tools may touch.
	Workspace *tool.Workspace
	// TempDir is the project's temporary directory under ~/.gemini/tmp.
	TempDir string
	// Trusted is the workspace's folder trust.
	Trusted bool
	// Sandbox is the profile confining the agent's commands when
	// Options.Sandbox asked for one (sandbox.go).
	Sandbox *sandbox.Profile
	// Env is the session's environment (process environment plus .env).
	Env *Env
	// Checkpoints is nil unless general.checkpointing is on.
	Checkpoints *checkpoint.Service
	// MCP is nil when no MCP server is configured.
	MCP *mcp.Manager
	// LSP is nil when no language server is configured or available.
	LSP *lsp.Manager
	// Policy is the session's policy engine (approval mode and rules).
	Policy *policy.Engine
	// Commands are the slash commands of this session: the built-in ones
	// and the prompts of its MCP servers. Faces run them with
	// Commands.Run and may register their own.
	Commands *command.Registry
	// Background holds the model's is_background shell processes, which
	// the terminal lists and stops (Ctrl+B, Ctrl+K).
	Background *builtin.Background
	// Extensions are the active installed extensions: their folders
	// (commands/, hooks/, skills/, agents/; not yet policies/) are read by the
	// loaders of those features.
	Extensions []*config.Extension

	closers []func() error

	// Prompt expansion (prompt.go): the custom commands by name and what
	// their injections and @path includes need.
	fileCommands map[string]*command.FileCommand
	expand       *expander
	// skillsSection and agentsSection are the system instruction's
	// skills and subagents sections (skills.go, subagents.go);
	// subagentNames are the subagents the model may invoke.
	skillsSection, agentsSection string
	subagentNames                []string
	subagentDefs                 []*subagents.Definition
	// subagentHooks are the session's tool and model hooks, which
	// subagents run too; nil without hooks.
	subagentHooks agent.Hooks
	// skills and hooks are what /skills and /hooks list.
	skills *skills.Set
	hooks  *hooks.System
	// prompt and recorder are what the live commands change (live.go);
	// recorder is nil when recording is off.
	prompt   *prompt
	recorder *chatRecorder
	// mcpStart is the MCP servers' start when it outlives New.
	mcpStart *mcpStart
	// ide is the IDE connection, which may change while the session
	// runs (idelive.go, IDEClient).
	ide *liveIDE
}

// Close releases what the agent holds (MCP servers, the IDE connection,
// recorders), last acquired first.
func (a *Agent) Close() error {
	var first error
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	a.closers = nil
	return first
}

func (a *Agent) onClose(f func() error) {
	if f != nil {
		a.closers = append(a.closers, f)
	}
}

// New assembles a session. Cancelling ctx during start-up ends it promptly
// with ctx's error, releasing whatever was already started.
func New(ctx context.Context, o Options) (_ *Agent, err error) {
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	a := &Agent{}
	defer func() {
		if err != nil {
			a.Close()
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
		}
	}()
	wd, err := resolveWorkDir(o.WorkDir)
	if err != nil {
		return nil, err
	}
	a.Env = NewEnv(o.Env)
	a.Home = config.ResolveHome(a.Env.Lookup)
	if o.HomeDir != "" {
		a.Home = config.HomeAt(o.HomeDir)
	}

	st := &config.Settings{}
	a.Trusted = true
	var idec *ideConn
	if !o.IgnoreSettings {
		st, idec, err = loadSettings(ctx, o, wd, a.Env)
		a.ide = newLiveIDE(idec.get(), o.Confirm, wd, a.Env, o.Warn) // idelive.go
		a.onClose(a.ide.close)
		if err != nil {
			return nil, err
		}
		trusted, dotErr := a.Env.LoadSessionDotEnv(st, wd, a.Home.UserDir)
		if a.Trusted = trusted; dotErr != nil {
			o.Warn(dotErr.Error())
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.Settings = st
	observer, err := telemetryObserver(o, a) // telemetry.go
	if err != nil {
		return nil, err
	}
	loadExtensions(o, a, wd)
	warnIgnoredSettings(o, a)
	if o, err = codeExtensionOptions(o); err != nil {
		return nil, err
	}
	if len(o.MCPServers) > 0 {
		servers := make(map[string]any, len(st.MCPServers)+len(o.MCPServers))
		maps.Copy(servers, st.MCPServers)
		maps.Copy(servers, o.MCPServers)
		st.MCPServers = servers
	}
	a.Workspace = workspace(wd, st, o.IncludeDirectories, a.Home.UserDir, o.Warn)
	a.TempDir = projectTempDir(a.Home, wd, o.Warn)
	if err := startSandbox(o, a); err != nil { // sandbox.go: before any command runs
		return nil, err
	}

	modelName := resolveModelName(o.Model, st, a.Env.Getenv)
	client, closeClient, err := newClient(ctx, o, st, a.Env, a.Home, a.TempDir)
	a.onClose(closeClient)
	if err != nil {
		return nil, err
	}
	client, modelName, chatModel := sessionModel(client, modelName, o)

	tools, err := buildTools(ctx, o, a, client, toolModel(modelName))
	if err != nil {
		return nil, err
	}
	tools.env.Redact = a.RedactShellEnv
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	interactive := o.Confirm != nil || o.Interactive
	confirm := o.Confirm
	var askKinds []tool.Kind
	if idec != nil || (o.Confirm != nil && a.ide != nil) {
		// Edits are answered in the IDE's diff view, everything else by
		// the face; /ide enable and disable switch the IDE (idelive.go).
		confirm = a.ide.confirmCall
	}
	if idec != nil {
		if !interactive {
			// A headless run with an IDE: edits are confirmed as diffs in
			// the IDE, everything else keeps headless rules.
			askKinds = []tool.Kind{tool.KindEdit}
		}
	}
	if o.Questions != nil {
		askKinds = append(askKinds, questionKinds...) // questions.go
		confirm = questionsFirst(o.Questions, confirm)
	}
	fileRules, err := policyFiles(o, st, a.Home, wd, a.Extensions, o.Warn)
	if err != nil {
		return nil, err
	}
	pol, err := buildPolicy(o, st, a.Trusted, interactive, askKinds, tools.trusted, tools.custom, tools.registry.Get, fileRules, autoSaveFor(st, a.Home, o.Warn), a.Workspace)
	if err != nil {
		return nil, err
	}

	if err := a.addSkills(o, tools, extensionRoots(a)); err != nil {
		return nil, err
	}
	if err := a.addSubagents(o, tools, subagentEnv{client: client, policy: pol, confirm: confirm, extensionDirs: extensionRoots(a), observer: observer}); err != nil {
		return nil, err
	}

	sessionID := o.SessionID
	if sessionID == "" {
		sessionID = newSessionID()
	}
	prompt, err := newPrompt(o, a, tools, pol)
	if err != nil {
		return nil, err
	}
	tools.env.MemoryChanged = prompt.reload
	a.prompt = prompt

	history, recorder, sessionID, err := openRecording(o, a, sessionID, prompt.envContext)
	if err != nil {
		return nil, err
	}
	if err := finishPlan(st, a, tools, pol, client, sessionID, o.Warn); err != nil { // plan.go
		return nil, err
	}
	cleanupSessions(o, a, sessionID) // retention.go
	a.recorder, _ = recorder.(*chatRecorder)
	resumeBudget(client, a.recorder) // budget.go

	loops, err := loopCheck(st, client, modelName, o.Warn) // loopcheck.go
	if err != nil {
		return nil, err
	}
	var sess *agent.Session
	systemInstruction := func() string {
		base := prompt.system.get()
		if plan := planInstruction(tools.env.Plan, pol); plan != "" {
			base += "\n\n" + plan
		}
		if o.InstructionsFunc == nil {
			return base
		}
		extra := o.InstructionsFunc(Info{SessionID: sess.ID(), WorkDir: wd, Timestamp: time.Now(), Transcript: sess.History(), Agent: a})
		if strings.TrimSpace(extra) == "" {
			return base
		}
		return base + "\n\n" + extra
	}
	cfg := agent.Config{
		Model:                client,
		ModelName:            modelName,
		SessionID:            sessionID,
		SystemInstruction:    systemInstruction,
		GenerationConfig:     gemini.DefaultGenerationConfig(chatModel),
		GenerationConfigFor:  chatGenerationConfig, // a /model switch gets its own thinking config
		Tools:                tools.registry,
		Policy:               pol,
		EnvContext:           prompt.envContext,
		History:              history,
		MaxSessionTurns:      st.Model.MaxSessionTurns,
		DisableLoopDetection: st.Model.DisableLoopDetection,
		LoopCheck:            loops,
		Debug:                o.Debug,
		CompressionThreshold: st.Model.CompressionThreshold,
		TokenLimitFor:        a.ContextWindow, // providers.go
		Recorder:             recorder,
		Confirm:              confirm,
		OutputSchema:         o.OutputSchema,
		Observer:             observer,
	}
	if h := buildHooks(o, a, extensionRoots(a), transcriptPath(recorder)); h != nil {
		cfg.Hooks = h
		a.subagentHooks = subagentHooks{h: h, session: func() string { return a.Session.ID() }}
		a.hooks, _ = h.(*hooks.System)
	}
	if a.ide != nil {
		cfg.PromptContext = a.ide.promptContext
	}
	sess = agent.New(cfg)
	a.Session = sess
	a.Policy = pol
	a.MCP = tools.mcp
	a.mcpStart = tools.mcpBG // servers still connecting (mcpbackground.go)
	a.Commands = command.DefaultRegistry()
	a.sessionCommands(a.skills, a.hooks)
	a.lspCommand() // lsp.go
	a.liveCommands()
	a.planCommand(tools.env.Plan) // plan.go
	a.rewindCommand()             // rewind.go
	a.expand = newExpander(a.Settings, tools, pol, confirm)
	if a.mcpStart == nil {
		a.expand.followMCPPrompts(a.Commands) // mcpcommands.go
	}
	loadFileCommands(o, a, wd)
	a.finishMCPInBackground()
	a.Checkpoints = checkpoints(st, wd, a, tools.env, sess, o.Warn)
	startHooks(ctx, o, a, (o.Resume != "" || len(o.History) > 0) && len(history) > 0)
	startExtensionUpdates(ctx, o, a, wd)
	tellSessionStart(o, a, observer) // telemetry.go
	return a, nil
}

// resolveWorkDir makes the workspace root absolute and checks that it is
// a directory.
func resolveWorkDir(wd string) (string, error) {
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return "", configErrorf("working directory: %v", err)
		}
	}
	wd, err := filepath.Abs(wd)
	if err != nil {
		return "", configErrorf("working directory: %v", err)
	}
	if fi, err := os.Stat(wd); err != nil || !fi.IsDir() {
		return "", configErrorf("working directory %s is not a directory", wd)
	}
	return wd, nil
}

// loadSettings loads the settings layers, asks a connected IDE about
// trust (its answer overrides trustedFolders.json, as in Gemini CLI), and
// applies folder trust to a folder nothing decided: refused when
// o.EnforceTrust, asked about through o.AskTrust when set (the answer
// saved, the folder's layer loaded only once trusted), otherwise vouched
// for by the caller and its layer loaded.
func loadSettings(ctx context.Context, o Options, wd string, env *Env) (*config.Settings, *ideConn, error) {
	load := func(lookup config.LookupFunc, ideTrust *bool) (*config.Settings, error) {
		st, err := config.Load(config.LoadOptions{Workspace: wd, Env: lookup, HomeDir: o.HomeDir, IDETrust: ideTrust})
		if err != nil {
			return nil, &ConfigError{Err: err}
		}
		return st, nil
	}
	st := o.Settings
	if st == nil || o.Env != nil || o.HomeDir != "" {
		var err error
		if st, err = load(env.Lookup, nil); err != nil {
			return nil, nil, err
		}
	}
	for _, w := range st.Warnings {
		o.Warn(w)
	}
	idec, err := connectIDE(ctx, o.IDE || st.IDE.Enabled, wd, env.Getenv, o.Warn)
	if err != nil {
		return nil, idec, err
	}
	if idec != nil {
		if trusted := idec.client.Trusted(); trusted != nil {
			if st, err = load(env.Lookup, trusted); err != nil {
				return nil, idec, err
			}
		}
	}
	unknown := !st.Trust.IsTrusted() && st.Trust.State != config.Untrusted
	switch {
	case o.EnforceTrust:
		if err := st.Trust.HeadlessTrustError(); err != nil {
			return nil, idec, &UntrustedError{Err: err}
		}
	case unknown && o.AskTrust != nil:
		trusted, err := askTrust(ctx, o, wd, env, st) // trustfolder.go
		if err != nil || !trusted {
			return st, idec, err
		}
		// The saved rule now trusts the folder: its layer comes in.
		if st, err = load(env.Lookup, nil); err != nil {
			return nil, idec, err
		}
	case unknown:
		// Reload with the workspace layer, which an unknown folder's
		// settings load leaves out.
		if st, err = load(trustLookup(env.Lookup), nil); err != nil {
			return nil, idec, err
		}
	}
	return st, idec, nil
}

// workspace is the working directory followed by the include directories
// of the settings and the options; missing ones are reported and skipped.
func workspace(wd string, st *config.Settings, include []string, home string, warn func(string)) *tool.Workspace {
	dirs := []string{wd}
	for _, d := range append(append([]string(nil), st.Context.IncludeDirectories...), include...) {
		d = expandHome(strings.TrimSpace(d), home)
		if d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(wd, d)
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			warn(fmt.Sprintf("include directory %s does not exist; skipped", d))
			continue
		}
		dirs = append(dirs, d)
	}
	return tool.NewWorkspace(dirs...)
}

// resolveModelName picks the model: the option, then GEMINI_MODEL, then
// settings (Gemini CLI 0.61's order), then the default. Aliases are kept:
// sessionModel resolves them once the transport is known.
func resolveModelName(name string, st *config.Settings, getenv func(string) string) string {
	if name == "" {
		name = getenv("GEMINI_MODEL")
	}
	if name == "" {
		name = st.Model.Name
	}
	if name == "" {
		name = DefaultModel
	}
	return name
}

// trustLookup reports GEMINI_CLI_TRUST_WORKSPACE=true on top of lookup,
// which is how config learns that the caller trusts the workspace.
func trustLookup(lookup config.LookupFunc) config.LookupFunc {
	return func(k string) (string, bool) {
		if k == "GEMINI_CLI_TRUST_WORKSPACE" {
			return "true", true
		}
		return lookup(k)
	}
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// projectTempDir is the project's directory under ~/.gemini/tmp, where
// sessions, checkpoints and large tool outputs go.
func projectTempDir(home config.Home, wd string, warn func(string)) string {
	t, err := chats.ProjectTempDir(home.Dir, wd)
	if err != nil {
		warn(err.Error())
		return filepath.Join(os.TempDir(), "castor")
	}
	return t
}
