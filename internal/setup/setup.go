package castor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/checkpoint"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/model/gemini"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
	"github.com/castor-dev/castor/tool/builtin"
)

// environment is what build worked out about where the agent runs.
type environment struct {
	settings *config.Settings
	home     config.Home
	ws       *tool.Workspace
	tempDir  string
	trusted  bool
}

// modelAliases are the short names Gemini CLI accepts for -m.
var modelAliases = map[string]string{
	"auto":       DefaultModel,
	"pro":        "gemini-2.5-pro",
	"flash":      "gemini-2.5-flash",
	"flash-lite": "gemini-2.5-flash-lite",
}

func build(o Options) (*Agent, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	lookup := func(k string) (string, bool) {
		if o.Getenv == nil {
			return os.LookupEnv(k)
		}
		v := o.Getenv(k)
		return v, v != ""
	}
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}

	wd := o.WorkDir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return nil, configErrorf("working directory: %v", err)
		}
	}
	wd, err := filepath.Abs(wd)
	if err != nil {
		return nil, configErrorf("working directory: %v", err)
	}
	if fi, err := os.Stat(wd); err != nil || !fi.IsDir() {
		return nil, configErrorf("working directory %s is not a directory", wd)
	}

	home := config.ResolveHome(lookup)
	if o.HomeDir != "" {
		home = config.HomeAt(o.HomeDir)
	}
	env := &environment{home: home, trusted: true}
	st := &config.Settings{}
	var ideh ideHooks
	if !o.IgnoreSettings {
		st, err = config.Load(config.LoadOptions{Workspace: wd, Env: lookup, HomeDir: o.HomeDir})
		if err != nil {
			return nil, &ConfigError{Err: err}
		}
		for _, w := range st.Warnings {
			warn(w)
		}
		// The IDE is asked before trust is decided: a connected IDE's own
		// answer about the workspace overrides trustedFolders.json, as in
		// Gemini CLI.
		ideh = connectIDE(context.Background(), o.IDE || st.IDE.Enabled, o, wd, warn)
		if ideh.client != nil {
			if trusted := ideh.client.Trusted(); trusted != nil {
				st, err = config.Load(config.LoadOptions{Workspace: wd, Env: lookup, HomeDir: o.HomeDir, IDETrust: trusted})
				if err != nil {
					if ideh.close != nil {
						ideh.close()
					}
					return nil, &ConfigError{Err: err}
				}
			}
		}
		if o.EnforceTrust {
			if err := st.Trust.HeadlessTrustError(); err != nil {
				if ideh.close != nil {
					ideh.close()
				}
				return nil, &UntrustedError{Err: err}
			}
		} else if !st.Trust.IsTrusted() && st.Trust.State != config.Untrusted {
			// Reload with the workspace layer, which an unknown folder's
			// settings load leaves out.
			st, err = config.Load(config.LoadOptions{Workspace: wd, Env: trustLookup(lookup), HomeDir: o.HomeDir})
			if err != nil {
				if ideh.close != nil {
					ideh.close()
				}
				return nil, &ConfigError{Err: err}
			}
		}
		env.trusted = st.Trust.IsTrusted() || !st.Trust.FolderTrustEnabled
		if o.Getenv == nil {
			if _, err := config.LoadDotEnv(wd, home.UserDir, env.trusted, nil); err != nil {
				warn(err.Error())
			}
		}
	}
	env.settings = st

	// Workspace: the working directory first, then include directories.
	dirs := []string{wd}
	for _, d := range append(append([]string(nil), st.Context.IncludeDirectories...), o.IncludeDirectories...) {
		d = expandHome(strings.TrimSpace(d), home.UserDir)
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
	env.ws = tool.NewWorkspace(dirs...)

	if t, err := chats.ProjectTempDir(home.Dir, wd); err == nil {
		env.tempDir = t
	} else {
		warn(err.Error())
		env.tempDir = filepath.Join(os.TempDir(), "castor")
	}

	modelName := o.Model
	if modelName == "" {
		modelName = st.Model.Name
	}
	if modelName == "" {
		modelName = getenv("GEMINI_MODEL")
	}
	if modelName == "" {
		modelName = DefaultModel
	}
	if full, ok := modelAliases[modelName]; ok {
		modelName = full
	}

	a := &Agent{opts: o, env: env}
	fail := func(err error) (*Agent, error) {
		a.Close()
		return nil, err
	}

	if ideh.close != nil {
		a.closers = append(a.closers, ideh.close)
	}
	confirm := o.Confirm
	interactive := o.Confirm != nil || o.Interactive
	var askKinds []tool.Kind
	if ideh.confirm != nil {
		confirm = ideh.confirm
		if !interactive {
			// A headless run with an IDE: edits are confirmed as diffs in
			// the IDE, everything else keeps headless rules.
			askKinds = []tool.Kind{tool.KindEdit}
		}
	}

	client, err := newClient(o, st, getenv)
	if err != nil {
		return fail(err)
	}
	if o.RecordResponses != "" {
		rec, err := fake.Record(client, o.RecordResponses)
		if err != nil {
			return fail(configErrorf("--record-responses: %v", err))
		}
		a.closers = append(a.closers, rec.Close)
		client = rec
	}

	filters := &filterCache{root: wd, extra: st.Context.FileFiltering.CustomIgnoreFilePaths, m: map[tool.FilterOptions]tool.FileFilter{}}
	respect := tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true}
	if !o.IgnoreSettings {
		respect = tool.FilterOptions{
			RespectGitIgnore:    st.Context.FileFiltering.RespectGitIgnore,
			RespectGeminiIgnore: st.Context.FileFiltering.RespectGeminiIgnore,
		}
	}
	benv := &builtin.Env{
		Workspace:   env.ws,
		Filter:      filters.get,
		TempDir:     env.tempDir,
		Model:       client,
		ModelName:   modelName,
		OutputLimit: st.Tools.TruncateToolOutputThreshold,
		MemoryFile:  home.MemoryPath(memoryFileName(st)),
		// A zero Settings (IgnoreSettings) leaves UseRipgrep false; ripgrep
		// is still the default then.
		DisableRipgrep: !o.IgnoreSettings && !st.Tools.UseRipgrep,
	}
	// tools.webFetch.allowPrivateAddresses lets web_fetch reach local
	// development servers (loopback, link-local, private networks).
	benv.AllowPrivateHosts, _ = st.GetBool("tools.webFetch.allowPrivateAddresses")
	reg := tool.NewRegistry()
	for _, t := range builtin.All(benv) {
		if keepTool(t, st.Tools.Core, st.Tools.Exclude) {
			reg.Register(t)
		}
	}
	var trustedTools []string
	for _, t := range o.Tools {
		reg.Register(t)
		trustedTools = append(trustedTools, t.Name())
	}
	if !o.IgnoreSettings {
		mcpTools, closeMCP := startMCP(context.Background(), st, mcpPlace{workDir: wd, geminiDir: home.Dir}, o.AllowedMCPServerNames, warn)
		a.closers = append(a.closers, closeMCP)
		for _, t := range mcpTools {
			reg.Register(t)
			if tt, ok := t.(interface{ Trusted() bool }); ok && tt.Trusted() {
				trustedTools = append(trustedTools, t.Name())
			}
		}
	}

	mode := o.ApprovalMode
	if mode == "" && st.General.DefaultApprovalMode != "" {
		m, err := policy.ParseMode(st.General.DefaultApprovalMode)
		if err != nil {
			return fail(configErrorf("general.defaultApprovalMode: %v", err))
		}
		mode = m
	}
	if !env.trusted && (mode == policy.ModeYolo || mode == policy.ModeAutoEdit) {
		warn("this folder is not trusted: approval mode is reset to default")
		mode = policy.ModeDefault
	}
	pol := policy.New(policy.Options{
		Mode:        mode,
		Interactive: interactive,
		AskKinds:    askKinds,
		Allowed:     append(append(append([]string(nil), st.Tools.Allowed...), o.AllowedTools...), trustedTools...),
		Excluded:    st.Tools.Exclude,
	})

	mem, err := loadMemory(o, st, env, filters.get(respect))
	if err != nil {
		warn(err.Error())
	}
	buildPrompt := func(global string) (string, error) {
		return agent.SystemPrompt(agent.PromptOptions{
			GeminiHome:   home.Dir,
			Getenv:       getenv,
			Memory:       strings.TrimSpace(strings.Join(nonEmpty(global, o.Instructions), "\n\n")),
			ApprovalMode: string(pol.Mode()),
			InGitRepo:    inGitRepo(wd),
		})
	}
	prompt := &guardedString{}
	p, err := buildPrompt(mem.global)
	if err != nil {
		return fail(&ConfigError{Err: err})
	}
	prompt.set(p)
	// save_memory changes the global GEMINI.md: the next model call sees it.
	benv.MemoryChanged = func() {
		m, err := loadMemory(o, st, env, filters.get(respect))
		if err != nil {
			warn(err.Error())
			return
		}
		if p, err := buildPrompt(m.global); err == nil {
			prompt.set(p)
		}
	}

	sessionID := o.SessionID
	if sessionID == "" {
		sessionID = newSessionID()
	}
	envContext := func() string {
		tree := ""
		if o.IgnoreSettings || st.Context.IncludeDirectoryTree {
			var trees []string
			for _, d := range env.ws.Dirs() {
				trees = append(trees, config.FolderStructure(d, 200, filters.get(respect)))
			}
			tree = strings.Join(trees, "\n")
		}
		return agent.EnvContext(agent.EnvInfo{
			Date: time.Now(), OS: runtime.GOOS, TempDir: env.tempDir,
			Dirs: env.ws.Dirs(), Tree: tree, Memory: mem.project,
		})
	}

	history := o.History
	var recorder agent.Recorder
	if !o.DisableRecording {
		r, h, id, err := openRecording(o, home, wd, sessionID, env.ws.Dirs(), envContext, warn)
		if err != nil {
			return fail(err)
		}
		if r != nil {
			a.closers = append(a.closers, r.Close)
			recorder = &chatRecorder{rec: r, warn: warn}
			if h != nil {
				history, sessionID = h, id
			}
		}
	} else if o.Resume != "" {
		return fail(&ResumeError{Err: errors.New("cannot resume a session with recording disabled")})
	}

	var sess *agent.Session
	systemInstruction := func() string {
		basePrompt := prompt.get()
		if o.InstructionsFunc == nil {
			return basePrompt
		}
		extra := o.InstructionsFunc(SessionContext{SessionID: sessionID, WorkDir: wd, Timestamp: time.Now(), Transcript: sess.History()})
		if strings.TrimSpace(extra) == "" {
			return basePrompt
		}
		return basePrompt + "\n\n" + extra
	}
	maxTurns := st.Model.MaxSessionTurns
	sess = agent.New(agent.Config{
		Model:                client,
		ModelName:            modelName,
		SessionID:            sessionID,
		SystemInstruction:    systemInstruction,
		GenerationConfig:     gemini.DefaultGenerationConfig(modelName),
		Tools:                reg,
		Policy:               pol,
		EnvContext:           envContext,
		History:              history,
		MaxSessionTurns:      maxTurns,
		DisableLoopDetection: st.Model.DisableLoopDetection,
		CompressionThreshold: st.Model.CompressionThreshold,
		Recorder:             recorder,
		Confirm:              confirm,
		PromptContext:        ideh.promptContext,
	})
	a.session = sess
	if st.General.Checkpointing {
		a.checkpoints = &checkpoint.Service{
			ProjectRoot: wd,
			HistoryDir:  filepath.Join(home.Dir, "history", filepath.Base(env.tempDir)),
			Dir:         filepath.Join(env.tempDir, "checkpoints"),
			Warn:        warn,
		}
		benv.BeforeEdit = func(ctx context.Context, e builtin.Edit) {
			a.checkpoints.Checkpoint(ctx, checkpoint.ToolCall{Name: e.Tool, Args: e.Args}, sess.History(), e.PromptID)
		}
	}
	return a, nil
}

// guardedString is a string read by model calls while a tool may replace
// it (the system prompt after save_memory).
type guardedString struct {
	mu sync.RWMutex
	s  string
}

func (g *guardedString) get() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.s
}

func (g *guardedString) set(s string) {
	g.mu.Lock()
	g.s = s
	g.mu.Unlock()
}

// openRecording starts recording the session, or continues the recorded
// session o.Resume names, returning its history (after a fresh environment
// context) and id. A recording that cannot start is reported and skipped;
// a session that cannot be resumed is an error.
func openRecording(o Options, home config.Home, wd, sessionID string, dirs []string, envContext func() string, warn func(string)) (*chats.Recorder, []*genai.Content, string, error) {
	store, err := chats.OpenStore(home.Dir, wd)
	if err != nil {
		if o.Resume != "" {
			return nil, nil, "", &ResumeError{Err: err}
		}
		warn("session recording is off: " + err.Error())
		return nil, nil, "", nil
	}
	if o.Resume != "" {
		info, err := store.Resolve(o.Resume)
		switch {
		case err != nil && o.Resume == chats.Latest && errors.Is(err, chats.ErrNoSessions):
			// Gemini CLI starts afresh when there is nothing to resume.
			warn(err.Error() + " Starting a new session.")
		case err != nil:
			return nil, nil, "", &ResumeError{Err: err}
		default:
			conv, err := store.Load(info)
			if err != nil {
				return nil, nil, "", &ResumeError{Err: err}
			}
			rec, err := store.Continue(info)
			if err != nil {
				return nil, nil, "", &ResumeError{Err: err}
			}
			history := append([]*genai.Content{genai.NewContentFromText(envContext(), genai.RoleUser)}, conv.History()...)
			return rec, history, conv.SessionID, nil
		}
	}
	rec, err := store.Create(sessionID, chats.CreateOptions{Directories: dirs})
	if err != nil {
		warn("session recording is off: " + err.Error())
		return nil, nil, "", nil
	}
	return rec, nil, "", nil
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

// newClient picks the model transport: the caller's, a fake replaying a
// file, or the Gemini API / Vertex from the environment (with retries).
func newClient(o Options, st *config.Settings, getenv func(string) string) (model.Model, error) {
	if o.Client != nil {
		return o.Client, nil
	}
	if o.FakeResponses != "" {
		m, err := fake.Open(o.FakeResponses, !o.FakeResponsesNonStrict)
		if err != nil {
			return nil, configErrorf("--fake-responses: %v", err)
		}
		return m, nil
	}
	// Sign in with Google (Code Assist) when the auth type says so,
	// otherwise the Gemini API key or Vertex path.
	m, ok, err := newAuthClient(context.Background(), st, getenv, Version)
	if err != nil {
		return nil, err
	}
	if !ok {
		cfg, err := gemini.ConfigFromEnv(getenv)
		if err != nil {
			return nil, configErrorf("%v", err)
		}
		cfg.Version = Version
		if m, err = gemini.New(context.Background(), cfg); err != nil {
			return nil, err
		}
	}
	ro := model.RetryOptions{MaxAttempts: st.General.MaxAttempts, Fallback: model.DefaultFallback}
	if v := getenv("CASTOR_RETRY_BASE_DELAY"); v != "" {
		// Scripts and CI with their own backoff want shorter waits than
		// Gemini CLI's 5 s first delay.
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, configErrorf("CASTOR_RETRY_BASE_DELAY=%q is not a duration like 500ms", v)
		}
		ro.InitialDelay, ro.MaxDelay = d, 6*d
	}
	if o.Retry != nil {
		ro = *o.Retry
	}
	return model.WithRetry(m, ro), nil
}

// keepTool applies tools.core (an allow-list by name or display name,
// "Name(" prefixes allowed) and tools.exclude.
func keepTool(t tool.Tool, core, exclude []string) bool {
	match := func(list []string) bool {
		for _, e := range list {
			e = strings.TrimSpace(e)
			if i := strings.IndexByte(e, '('); i > 0 {
				e = e[:i]
			}
			if e == t.Name() || e == t.DisplayName() {
				return true
			}
		}
		return false
	}
	if core != nil && !match(core) {
		return false
	}
	for _, e := range exclude {
		if strings.TrimSpace(e) == t.Name() || strings.TrimSpace(e) == t.DisplayName() {
			return false
		}
	}
	return true
}

func memoryFileName(st *config.Settings) string {
	if len(st.Context.FileNames) > 0 && st.Context.FileNames[0] != "" {
		return st.Context.FileNames[0]
	}
	return "GEMINI.md"
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

func inGitRepo(dir string) bool {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
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
