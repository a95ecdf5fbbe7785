package setup

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/internal/routing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/skills"
	"github.com/castor-dev/castor/internal/subagents"
	"github.com/castor-dev/castor/internal/version"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// subagentEnv is what subagents share with the session that invokes
// them.
type subagentEnv struct {
	client  model.Model
	policy  *policy.Engine
	confirm func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error)
	// extensionDirs are the active extensions' roots (agents/ folders).
	extensionDirs []string
	// observer is the session's telemetry (nil: none).
	observer agent.Observer
}

// addSubagents is the subagents step: it discovers the workspace's (when
// trusted), the user's and the extensions' definitions
// (experimental.enableAgents), adds the program's own
// (Options.Subagents), registers invoke_agent and keeps the system
// instruction's "Available Sub-Agents" section. Each invocation runs on
// the engine with the session's model, tools, policy and confirmations,
// and is recorded beside the session as Gemini CLI records subagents.
// It runs after addSkills, whose section subagents that may activate
// skills are given. Only a program's own invalid definitions fail the
// session.
func (a *Agent) addSubagents(o Options, ts *toolSet, e subagentEnv) error {
	st := a.Settings
	if on, ok := st.GetBool("experimental.enableAgents"); ok && !on && !o.IgnoreSettings {
		return nil
	}
	for _, d := range o.Subagents {
		if err := d.Validate(); err != nil {
			return &ConfigError{Err: err}
		}
	}
	var defs []*subagents.Definition
	if !o.IgnoreSettings {
		var warnings []string
		defs, warnings = subagents.Discover(subagents.Sources{
			Workspace:  a.Workspace.Dirs()[0],
			Trusted:    a.Trusted,
			Home:       a.Home.UserDir,
			Extensions: e.extensionDirs,
		})
		for _, w := range warnings {
			o.Warn(w)
		}
	}
	// The program's own subagents come first: their names win.
	defs, warnings := subagents.Merge(append([]*subagents.Definition(nil), o.Subagents...), defs)
	for _, w := range warnings {
		o.Warn(w)
	}
	if len(defs) == 0 {
		return nil
	}
	defs = applyAgentOverrides(defs, st, o.Warn)
	if len(defs) == 0 {
		return nil
	}
	if ts.mcpBG == nil {
		// With MCP servers still connecting, their tools are not known
		// yet: only a complete registry can tell a name is unknown.
		reportUnknownTools(defs, ts.registry, o.Warn)
	}
	for i, d := range defs {
		// Model aliases (pro, flash…) mean what they mean for the session.
		if routing.IsAlias(d.Model) {
			c := *d
			c.Model = routing.Resolve(d.Model, false)
			defs[i] = &c
		}
	}
	filter := ts.filters.get(ts.respect)
	r := &subagents.Runner{
		Model:            e.client,
		ModelName:        func() string { return a.Session.Model() },
		Tools:            ts.registry,
		Policy:           e.policy,
		Confirm:          e.confirm,
		Dirs:             a.Workspace.Dirs,
		Tree:             func(d string) string { return config.FolderStructure(d, config.DefaultFolderStructureItems, filter) },
		SkillsSection:    a.skillsSection,
		Version:          version.Version,
		GenerationConfig: chatGenerationConfig, // the session's choice, "auto" resolved first
		// The session's engine settings apply inside subagents too.
		Configure: func(c *agent.Config) {
			c.DisableLoopDetection = st.Model.DisableLoopDetection
			c.CompressionThreshold = st.Model.CompressionThreshold
			c.TokenLimitFor = a.ContextWindow // a provider model's window, as the session's
			// A tool guard holds whoever makes the call: a subagent's
			// shell call meets the same BeforeTool hooks as the main
			// model's, its model calls the same model hooks.
			c.Hooks = a.subagentHooks
			if e.observer != nil {
				c.Observer = subagentObserver{e.observer} // telemetry.go
			}
		},
	}
	if !o.DisableRecording {
		r.Record = a.subagentRecorder(o)
	}
	// Gemini CLI counts a subagent's model calls (role "subagent") and
	// tool calls in the session's stats.
	r.AddStats = func(st agent.Stats) { a.Session.AddStats(st, "subagent") }
	t := subagents.NewTool(defs, r)
	if !keepTool(t, st.Tools.Core, st.Tools.Exclude) {
		return nil
	}
	ts.registry.Register(t)
	// Gemini CLI declares invoke_agent before activate_skill.
	if at, ok := ts.registry.Get(skills.ToolName); ok {
		ts.registry.Unregister(skills.ToolName)
		ts.registry.Register(at)
	}
	a.agentsSection = subagents.Section(defs)
	a.subagentDefs = defs
	for _, d := range defs {
		a.subagentNames = append(a.subagentNames, d.Name)
	}
	return nil
}

// atMention is "@name" at the start of the text or after white space.
var atMention = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)@([a-z0-9_-]+)`) }}

// SubagentNudge returns the note Gemini CLI adds to a prompt that
// mentions subagents with "@name" (the text itself is sent as typed), or
// nil when it mentions none. ExpandPrompt appends it after the prompt's
// own parts.
func (a *Agent) SubagentNudge(text string) *genai.Part {
	if len(a.subagentNames) == 0 || !strings.Contains(text, "@") {
		// Most prompts: no regexp compiled nor run (its backtracker
		// allocated 36 KB for a one-line prompt).
		return nil
	}
	var names []string
	for _, m := range atMention.Get().FindAllStringSubmatch(text, -1) {
		if slices.Contains(a.subagentNames, m[1]) && !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		return nil
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "'" + n + "'"
	}
	return genai.NewPartFromText("\n<system_note>\nThe user has explicitly selected the following agent(s): " + strings.Join(names, ", ") +
		". Please use the following tool(s) to delegate the task: " + strings.Join(quoted, ", ") + ".\n</system_note>\n")
}

// subagentRecorder files each subagent run under the session's
// directory, as <tmp>/chats/<session id>/<run id>.jsonl with kind
// "subagent". A record that cannot be written is reported, never fatal.
func (a *Agent) subagentRecorder(o Options) func(string) subagents.Recording {
	return func(id string) subagents.Recording {
		store, err := chats.OpenStore(a.Home.Dir, a.Workspace.Dirs()[0])
		if err != nil {
			o.Warn("subagent recording is off: " + err.Error())
			return nil
		}
		rec, err := store.Create(id, chats.CreateOptions{Kind: "subagent", ParentSessionID: a.Session.ID(), Directories: a.Workspace.Dirs()})
		if err != nil {
			o.Warn("subagent recording is off: " + err.Error())
			return nil
		}
		return &subagentRecording{chatRecorder: chatRecorder{rec: rec, warn: o.Warn}}
	}
}

type subagentRecording struct{ chatRecorder }

func (s *subagentRecording) Finish(summary string) {
	if summary != "" {
		s.report(s.rec.SetSummary(summary))
	}
	s.report(s.rec.Close())
}

// applyAgentOverrides applies agents.overrides.<name> from settings, as
// Gemini CLI does: enabled (false drops the subagent), tools,
// modelConfig.model, modelConfig.generateContentConfig.temperature,
// runConfig.maxTurns and runConfig.maxTimeMinutes. Definitions are
// copied, never changed in place.
func applyAgentOverrides(defs []*subagents.Definition, st *config.Settings, warn func(string)) []*subagents.Definition {
	raw, _ := st.Get("agents.overrides")
	all, _ := raw.(map[string]any)
	if len(all) == 0 {
		return defs
	}
	var out []*subagents.Definition
	for _, d := range defs {
		ov, _ := all[d.Name].(map[string]any)
		if ov == nil {
			out = append(out, d)
			continue
		}
		if on, ok := ov["enabled"].(bool); ok && !on {
			continue
		}
		c := *d
		key := "agents.overrides." + d.Name
		if tools, ok := ov["tools"].([]any); ok {
			c.Tools = []string{}
			for _, t := range tools {
				if s, ok := t.(string); ok {
					c.Tools = append(c.Tools, s)
				}
			}
		}
		if mc, ok := ov["modelConfig"].(map[string]any); ok {
			if m, ok := mc["model"].(string); ok {
				c.Model = m
			}
			if gc, ok := mc["generateContentConfig"].(map[string]any); ok {
				if t, ok := gc["temperature"].(float64); ok {
					c.Temperature = &t
				}
			}
		}
		if rc, ok := ov["runConfig"].(map[string]any); ok {
			if n, ok := rc["maxTurns"].(float64); ok && n > 0 {
				c.MaxTurns = int(n)
			}
			if n, ok := rc["maxTimeMinutes"].(float64); ok && n > 0 {
				c.Timeout = time.Duration(n * float64(time.Minute))
			}
		}
		if _, ok := ov["mcpServers"]; ok {
			warn(key + ".mcpServers: subagent-specific MCP servers are not supported by Castor yet; ignored")
		}
		out = append(out, &c)
	}
	return out
}

// subagentHooks passes on the tool and model events of a session's hooks
// to its subagents, as Gemini CLI 0.61 fires them on every model call and
// tool call whoever makes it (a redacting BeforeModel hook is not
// bypassed by delegating): a subagent is not a new session or a new user
// prompt, so the session and agent hooks do not fire for it. The hooks
// see the session's id, as 0.61's do.
type subagentHooks struct {
	h       agent.Hooks
	session func() string
}

// subagentEvents are the events a subagent's engine fires.
var subagentEvents = lazy.Value[map[agent.HookEvent]bool]{New: func() map[agent.HookEvent]bool {
	return map[agent.HookEvent]bool{
		agent.HookBeforeTool: true, agent.HookAfterTool: true,
		agent.HookBeforeModel: true, agent.HookBeforeToolSelection: true, agent.HookAfterModel: true,
	}
}}

// Handles reports the session's hooks for the events a subagent fires.
func (t subagentHooks) Handles(e agent.HookEvent) bool {
	return subagentEvents.Get()[e] && t.h.Handles(e)
}

// Fire runs the session's hooks for one of a subagent's events.
func (t subagentHooks) Fire(ctx context.Context, in *agent.HookInput) (*agent.HookOutput, error) {
	if t.session != nil {
		if id := t.session(); id != "" {
			in.SessionID = id
		}
	}
	return t.h.Fire(ctx, in)
}

// SubagentDefinitions are the subagents the model may invoke in this
// session (the terminal's /agents lists them).
func (a *Agent) SubagentDefinitions() []*subagents.Definition { return a.subagentDefs }

// reportUnknownTools says, with the definition's file and key, which
// tools an agent file names that this session does not have (a Gemini
// CLI tool Castor lacks, a typo, a tool the settings exclude): the
// subagent runs without them, and nothing else would tell the user.
// Wildcards ("*", "mcp_…*") and MCP names ("mcp_<server>_<tool>") are
// not checked.
func reportUnknownTools(defs []*subagents.Definition, reg *tool.Registry, warn func(string)) {
	for _, d := range defs {
		if d.File == "" {
			continue
		}
		for i, name := range d.Tools {
			if name == "*" || strings.HasPrefix(name, "mcp_") || strings.HasSuffix(name, "*") || name == subagents.CompleteTaskName {
				continue
			}
			if _, ok := reg.Get(name); ok {
				continue
			}
			warn(fmt.Sprintf("%s: tools[%d]: agent %q names the tool %q, which this session does not have; the agent runs without it", d.File, i, d.Name, name))
		}
	}
}
