package policy

import (
	"fmt"
	"strings"
	"sync"

	"github.com/castor-dev/castor/tool"
)

// Mode is an approval mode.
type Mode string

// Approval modes, least to most permissive: plan < default < auto_edit < yolo.
const (
	ModePlan     Mode = "plan"
	ModeDefault  Mode = "default"
	ModeAutoEdit Mode = "auto_edit"
	ModeYolo     Mode = "yolo"
)

// ParseMode accepts the CLI spelling (auto_edit) and the settings spelling
// (autoEdit) of a mode.
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "default":
		return ModeDefault, nil
	case "auto_edit", "autoedit", "auto-edit":
		return ModeAutoEdit, nil
	case "yolo":
		return ModeYolo, nil
	case "plan":
		return ModePlan, nil
	}
	return "", fmt.Errorf("invalid approval mode %q: use default, auto_edit, yolo or plan", s)
}

// rank orders the modes from the least permissive; "" is the default.
func (m Mode) rank() int {
	switch m {
	case ModePlan:
		return 0
	case ModeAutoEdit:
		return 2
	case ModeYolo:
		return 3
	}
	return 1
}

// AtMost bounds m by ceiling: it returns ceiling, and true, when m is more
// permissive (plan < default < auto_edit < yolo), so that a mode someone
// asks for never exceeds what the operator allows; a less permissive m is
// kept.
func (m Mode) AtMost(ceiling Mode) (Mode, bool) {
	if m.rank() > ceiling.rank() {
		return ceiling, true
	}
	return m, false
}

// Decision is what the policy says about one call.
type Decision int

// Decisions.
const (
	Allow Decision = iota
	Ask
	Deny
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask_user"
	}
	return "deny"
}

// Call describes a tool call to the policy.
type Call struct {
	Name        string
	DisplayName string
	Kind        tool.Kind
	Args        map[string]any
	// RootCommands are the commands an exec confirmation names. The
	// shell tool's calls are decided on the line itself (shell.go); for
	// other tools' exec confirmations, "always allow" remembers these.
	RootCommands []string
	// ServerName is the MCP server of an MCP tool.
	ServerName string

	// aliases are the tool's other names (an MCP tool's mcp_<server>_<tool>)
	// and trusted its server's trust, filled in from the tool itself.
	aliases []string
	trusted bool
	// serverTool is an MCP tool's own name and readOnlyHint its
	// annotation, for policy-file rules.
	serverTool   string
	readOnlyHint *bool
	// unknown is set on one command of a shell line that cannot be known
	// before it runs (shell.go): it says why. Such a command matches
	// every deny and ask rule of the shell tool and no allow rule.
	unknown string
	// owner is the command that runs an unknown one (shellCmd.owner):
	// allow rules are matched against it.
	owner string
	// resolved is set on one command of a shell line as its words
	// resolve: its text is for rules to read, not to be read again as a
	// shell line (its redirections and substitutions are the line's).
	resolved bool
	// scan is the shell line read once per decision (lineOf).
	scan *shellLine
}

// Engine holds the rules of one session. It is safe for concurrent use.
type Engine struct {
	mu          sync.RWMutex
	mode        Mode
	interactive bool
	askKinds    map[tool.Kind]bool
	allowed     []rule
	excluded    []rule
	always      map[string]bool
	alwaysShell alwaysShell
	selfConfirm map[string]bool
	lookup      func(name string) (tool.Tool, bool)
	rules       []Rule // policy-file rules, highest priority first
	untrusted   bool
	// noAlways is Options.DisableAlwaysAllow.
	noAlways bool

	// autoSave and onSave are Options.AutoSave and OnSave; saveMu keeps
	// two answers from writing the file at once.
	autoSave string
	onSave   func(path string, err error)
	saveMu   sync.Mutex

	// workspace is Options.Workspace.
	workspace *tool.Workspace
	// plansDir is Options.PlansDir.
	plansDir string
}

// Options configure an Engine.
type Options struct {
	Mode Mode
	// Interactive is false for headless runs, where a call that would need
	// confirmation is refused instead.
	Interactive bool
	// Allowed are tools.allowed and --allowed-tools entries: a tool name, or
	// "run_shell_command(git status)" to allow commands with that prefix.
	// Arguments given to any other tool are ignored, as in Gemini CLI:
	// "write_file(notes.md)" allows every write_file call (IgnoredArgs).
	Allowed []string
	// Excluded are tools.exclude entries, refused outright;
	// "run_shell_command(rm)" refuses the commands with that prefix. An
	// entry giving arguments to any other tool refuses nothing, as in
	// Gemini CLI (IgnoredArgs).
	Excluded []string
	// AskKinds are kinds of call that may still be confirmed when the run
	// is not interactive: edits, when an IDE shows them as diffs.
	AskKinds []tool.Kind
	// SelfConfirming names tools whose own Confirmation decides whether a
	// call needs approval (an SDK program's custom tools): a call whose
	// Confirmation gives no details runs, one that gives details is asked
	// about like a built-in (and refused when nobody can answer). Modes,
	// allow and exclude rules apply to them as to every tool.
	SelfConfirming []string
	// Lookup finds the tool a call names (the session's registry), so that
	// rules written with an MCP tool's Gemini CLI name (mcp_<server>_<tool>,
	// mcp_<server>_*) apply to calls of it, including tools a server added
	// during the session. Nil: rules see the call's name only.
	Lookup func(name string) (tool.Tool, bool)
	// Rules are policy-file rules (LoadRules), in load order: of two
	// rules of the same priority, the one loaded first wins.
	Rules []Rule
	// Untrusted is set when folder trust does not trust the workspace:
	// a shell line that runs git is then always asked about (or refused
	// when nobody can answer), as in Gemini CLI.
	Untrusted bool
	// AutoSave is the policy file "allow always and save" answers
	// (tool.ProceedAlwaysSave) are written to, Gemini CLI's
	// ~/.gemini/policies/auto-saved.toml when
	// security.enablePermanentToolApproval is on: such an answer adds a
	// user-tier rule to this session and to the file, which later
	// sessions read. Empty: the answer holds for the session only, as
	// "always allow" does.
	AutoSave string
	// DisableAlwaysAllow is security.disableAlwaysAllow: "always allow"
	// answers count as "allow once", AutoSave is not offered, and file
	// rules of the "always allow" priority (950 in any tier, which
	// auto-saved.toml's rules have) are ignored, as in Gemini CLI. Faces
	// ask OffersAlways before offering such answers.
	DisableAlwaysAllow bool
	// OnSave, when set, hears of every write to AutoSave: nil, or a
	// *SaveError naming the file (the answer then holds for this session
	// only).
	OnSave func(path string, err error)
	// Workspace is the session's workspace: a known-safe shell command
	// (cat, ls, grep, …) runs unasked only when the files it names are
	// inside it, as Gemini CLI asks when a path leaves the workspace.
	// Nil: the process's working directory.
	Workspace *tool.Workspace
	// PlansDir is where plan mode writes its plans (general.plan.directory
	// or the session's temporary plans folder): in plan mode, write_file
	// and replace may write Markdown files there and nowhere else.
	PlansDir string
}

// New returns an engine.
func New(o Options) *Engine {
	if o.Mode == "" {
		o.Mode = ModeDefault
	}
	e := &Engine{mode: o.Mode, interactive: o.Interactive, untrusted: o.Untrusted, always: map[string]bool{}, askKinds: map[tool.Kind]bool{}, selfConfirm: map[string]bool{}, lookup: o.Lookup}
	e.autoSave, e.onSave = o.AutoSave, o.OnSave
	e.workspace = o.Workspace
	e.plansDir = o.PlansDir
	e.rules = sortRules(o.Rules)
	if o.DisableAlwaysAllow {
		e.noAlways, e.autoSave = true, ""
		e.rules = withoutAlwaysRules(e.rules)
	}
	for _, n := range o.SelfConfirming {
		e.selfConfirm[n] = true
	}
	for _, k := range o.AskKinds {
		e.askKinds[k] = true
	}
	for _, s := range o.Allowed {
		if r, ok := parseRule(s); ok {
			if r.prefix != "" && !isShellName(r.name) {
				// Gemini CLI reads arguments for its shell tool only:
				// "write_file(notes.md)" allows every write_file call
				// (see IgnoredArgs).
				r.prefix = ""
			}
			e.allowed = append(e.allowed, r)
		}
	}
	for _, s := range o.Excluded {
		if r, ok := parseRule(s); ok {
			if r.prefix != "" && !isShellName(r.name) {
				// ...and its exclude rule of that text names a tool that
				// does not exist, so it refuses nothing.
				continue
			}
			e.excluded = append(e.excluded, r)
		}
	}
	return e
}

// Mode returns the current approval mode.
func (e *Engine) Mode() Mode {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.mode
}

// SetMode changes the approval mode.
func (e *Engine) SetMode(m Mode) {
	e.mu.Lock()
	e.mode = m
	e.mu.Unlock()
}

// Interactive reports whether calls may be confirmed by a user.
func (e *Engine) Interactive() bool { return e.interactive }

// Decide returns the decision for c and, for a refusal, the message the
// model receives.
func (e *Engine) Decide(c Call) (Decision, string) {
	if e.lookup != nil {
		if t, ok := e.lookup(c.Name); ok {
			c = withTool(c, t)
		}
	}
	c = trimmedShell(c)
	e.mu.RLock()
	defer e.mu.RUnlock()
	if _, shell := isShell(c); len(e.rules) > 0 || shell {
		return e.decideFilesLocked(c)
	}
	for _, r := range e.excluded {
		if r.matches(c, true) {
			return Deny, "Tool execution denied by policy."
		}
	}
	d, _ := e.decideLocked(c)
	if d == Ask && !e.canAskLocked(c) && !e.selfConfirm[c.Name] {
		return Deny, "Tool execution denied by policy."
	}
	if d == Deny {
		return Deny, e.denyMessageLocked(c)
	}
	return d, ""
}

// trimmedShell returns c with a shell call's command stripped of the
// white space around it. The shell ignores it, so a rule must too: " rm x"
// or "\nrm x" runs rm, and every prefix, regex and exclude rule reads the
// command as the shell will run it. Other calls are returned as they are.
func trimmedShell(c Call) Call {
	cmd, ok := isShell(c)
	if !ok || strings.TrimSpace(cmd) == cmd {
		return c
	}
	args := make(map[string]any, len(c.Args))
	for k, v := range c.Args {
		args[k] = v
	}
	args["command"] = strings.TrimSpace(cmd)
	c.Args = args
	return c
}

// CanAsk reports whether a call that needs approval can be asked about
// (an interactive session, or a kind an IDE confirms) rather than
// refused. A self-confirming tool's call that turns out to need approval
// is refused when it cannot be asked about.
func (e *Engine) CanAsk(c Call) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.canAskLocked(c)
}

func (e *Engine) canAskLocked(c Call) bool { return e.interactive || e.askKinds[c.Kind] }

// decideLocked is the decision of the mode, the allow rules and the
// remembered answers, with the priority Gemini CLI gives the rule that
// decides it (see the prio constants): of the rules that allow a call,
// the highest ranks it.
func (e *Engine) decideLocked(c Call) (Decision, int) {
	if d, prio, _, ok := e.modeToolLocked(c); ok {
		return d, prio
	}
	best := -1
	for _, r := range e.allowed {
		if r.matches(c, false) {
			best = prioAllowed
			break
		}
	}
	if best < 0 && c.trusted {
		best = prioTrusted
	}
	if best < 0 && e.alwaysLocked(c) {
		best = prioAlways
	}
	if best < 0 && e.mode == ModeYolo {
		best = prioYolo
	}
	if best < 0 && (readOnly(c) || c.Kind == tool.KindAgent) {
		best = prioReadOnly
	}
	// auto_edit approves edits and fetches, as Gemini CLI's policy does
	// (replace, write_file, web_fetch).
	// An edit of a file under .git/ or .gemini/ is asked about: it can
	// make git or Castor run a program (hooks, fsmonitor, settings).
	if best < 0 && e.mode == ModeAutoEdit && (c.Kind == tool.KindEdit && !editsProtected(c) || c.Kind == tool.KindFetch) {
		best = prioAutoEdit
	}
	if best >= 0 {
		return Allow, best
	}
	return Ask, prioNone
}

// denyMessageLocked is what the model is told of a refusal by the
// built-in rules: the mode's own words where Gemini CLI has them.
func (e *Engine) denyMessageLocked(c Call) string {
	if _, _, msg, ok := e.modeToolLocked(c); ok && msg != "" {
		return msg
	}
	return deniedByPolicy
}

// Visible reports whether a tool should be declared to the model at all: a
// tool every call of which would be refused is hidden, as Gemini CLI hides
// tools that need approval in headless runs.
func (e *Engine) Visible(t tool.Tool) bool {
	c := withTool(Call{Name: t.Name(), DisplayName: t.DisplayName(), Kind: t.Kind()}, t)
	e.mu.RLock()
	defer e.mu.RUnlock()
	if len(e.rules) > 0 {
		if v, decided := e.visibleFilesLocked(c); decided {
			return v
		}
	}
	for _, r := range e.excluded {
		if r.prefix == "" && r.matches(c, true) {
			return false
		}
	}
	if d, _ := e.decideLocked(c); d != Deny && (e.canAskLocked(c) || e.selfConfirm[c.Name] || d == Allow) {
		return true
	}
	if e.mode == ModePlan && c.Kind == tool.KindEdit && e.plansDir != "" {
		return true // plan mode writes its plans with them
	}
	// A prefix rule (run_shell_command(git status)) allows some calls.
	for _, r := range e.allowed {
		if r.prefix != "" && r.nameMatches(c) {
			return e.mode != ModePlan
		}
	}
	return false
}

// Remember records an "always allow" answer for the rest of the session.
// An answer about a shell call allows the commands the line runs (its
// root commands), redirections only if the line answered had one, as
// Gemini CLI's rule for the answer (a commandPrefix, with
// allowRedirection when the command redirected) does; see always.go.
//
// An "allow always and save" answer (tool.ProceedAlwaysSave) with
// Options.AutoSave set becomes a rule of that file instead: applied at
// once, and written for later sessions (see save.go).
func (e *Engine) Remember(c Call, o tool.Outcome) {
	if e.noAlways {
		return // Options.DisableAlwaysAllow: every answer is "once"
	}
	if o == tool.ProceedAlwaysSave && e.autoSave != "" && e.rememberSaved(c) {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch o {
	case tool.ProceedAlways, tool.ProceedAlwaysSave, tool.ProceedAlwaysTool, tool.ProceedAlwaysServer:
	default:
		return
	}
	if cmd, ok := isShell(c); ok {
		e.alwaysShell.remember(c.Name, cmd)
		return
	}
	switch {
	case o == tool.ProceedAlwaysServer && c.ServerName != "":
		e.always["server:"+c.ServerName] = true
	case o != tool.ProceedAlwaysServer && len(c.RootCommands) > 0:
		for _, rc := range c.RootCommands {
			e.always["cmd:"+c.Name+":"+rc] = true
		}
	default:
		e.always["tool:"+c.Name] = true
	}
}

// SavesAnswers reports the policy file "allow always and save" answers
// are written to, or "" when such answers are not offered
// (Options.AutoSave; a nil engine saves nothing). Faces offer the
// choice only when it is set.
func (e *Engine) SavesAnswers() string {
	if e == nil {
		return ""
	}
	return e.autoSave
}

// rememberSaved adds the rule an "allow always and save" answer about c
// stands for to the session, then to the AutoSave file. It reports false
// when the answer makes no rule (see savedRuleFor), to be remembered for
// the session only.
func (e *Engine) rememberSaved(c Call) bool {
	if e.lookup != nil {
		if t, ok := e.lookup(c.Name); ok {
			c = withTool(c, t)
		}
	}
	e.mu.Lock()
	sr, ok := savedRuleFor(c, e.mode)
	var rules []Rule
	var err error
	if ok {
		rules, err = sr.rules(e.autoSave)
		ok = err == nil && len(rules) > 0
	}
	if ok {
		e.rules = sortRules(append(e.rules, rules...))
	}
	e.mu.Unlock()
	if !ok {
		return false
	}
	e.saveMu.Lock()
	err = sr.save(e.autoSave)
	e.saveMu.Unlock()
	if e.onSave != nil {
		e.onSave(e.autoSave, err)
	}
	return true
}

func (e *Engine) alwaysLocked(c Call) bool {
	if c.unknown != "" {
		return false
	}
	if cmd, ok := isShell(c); ok {
		return e.alwaysShell.allows(c.Name, cmd)
	}
	if e.always["tool:"+c.Name] {
		return true
	}
	if c.ServerName != "" && e.always["server:"+c.ServerName] {
		return true
	}
	if len(c.RootCommands) > 0 {
		for _, rc := range c.RootCommands {
			if !e.always["cmd:"+c.Name+":"+rc] {
				return false
			}
		}
		return true
	}
	return false
}

// rule is one allow or exclude entry: a tool name, optionally with a
// command prefix in parentheses for shell tools.
type rule struct {
	name   string
	prefix string
}

// ParseRule splits a tools.core, tools.allowed, tools.exclude or
// --allowed-tools entry into the tool it names and the command prefix in
// parentheses, if any ("run_shell_command(git status)"). ok is false for
// an empty entry.
func ParseRule(s string) (toolName, prefix string, ok bool) {
	r, ok := parseRule(s)
	return r.name, r.prefix, ok
}

func parseRule(s string) (rule, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return rule{}, false
	}
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		return rule{name: strings.TrimSpace(s[:i]), prefix: strings.TrimSpace(s[i+1 : len(s)-1])}, true
	}
	return rule{name: s}, true
}

// isShellName reports whether name is one Gemini CLI accepts for its
// shell tool in rules. (A switch: a lazily built set of three would cost
// a call, an allocation and its own code's page at the first decision.)
func isShellName(name string) bool {
	switch name {
	case "run_shell_command", "ShellTool", "Shell":
		return true
	}
	return false
}

// mcpTool is what policy needs of an MCP tool (mcp.Tool).
type mcpTool interface {
	ServerName() string
	ServerToolName() string
}

// withTool completes c from its tool: an MCP tool's server, its other
// names and its server's trust.
func withTool(c Call, t tool.Tool) Call {
	if a, ok := t.(tool.Aliased); ok {
		c.aliases = a.Aliases()
	}
	if m, ok := t.(mcpTool); ok {
		if c.ServerName == "" {
			c.ServerName = m.ServerName()
		}
		c.serverTool = m.ServerToolName()
	}
	if ro, ok := t.(interface{ ReadOnlyHint() bool }); ok {
		hint := ro.ReadOnlyHint()
		c.readOnlyHint = &hint
	}
	if tr, ok := t.(interface{ Trusted() bool }); ok {
		c.trusted = tr.Trusted()
	}
	return c
}

func (r rule) nameMatches(c Call) bool {
	if r.name == c.Name || r.name == c.DisplayName || r.name == "*" {
		return true
	}
	for _, a := range c.aliases {
		if r.name == a {
			return true
		}
	}
	// mcp_<server>_* names every tool of a server, as in Gemini CLI.
	if c.ServerName != "" && strings.HasPrefix(r.name, "mcp_") && strings.HasSuffix(r.name, "_*") &&
		r.name[len("mcp_"):len(r.name)-len("_*")] == c.ServerName {
		return true
	}
	return isShellName(r.name) && c.Kind == tool.KindExecute && isShellName(c.Name)
}

// matches reports whether r applies to c; deny is set for an exclude
// rule, which applies to a shell command that cannot be known before it
// runs, where an allow rule does not.
func (r rule) matches(c Call, deny bool) bool {
	if !r.nameMatches(c) {
		return false
	}
	if r.prefix == "" {
		return true
	}
	cmd, _ := c.Args["command"].(string)
	if c.unknown != "" {
		if deny || c.owner == "" {
			return deny
		}
		cmd = c.owner
	}
	cmd = strings.TrimSpace(cmd)
	// A prefix allows one simple command only: anything that could chain,
	// substitute or redirect makes the rule not match, so the call falls
	// back to confirmation (or refusal) instead of riding on the allowance.
	if strings.ContainsAny(cmd, ";&|`$<>()\n\r") {
		return false
	}
	return cmd == r.prefix || strings.HasPrefix(cmd, r.prefix+" ")
}
