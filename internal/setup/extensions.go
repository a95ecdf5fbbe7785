package setup

import (
	"maps"
	"path/filepath"
	"strings"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/hooks"
	"github.com/castor-dev/castor/tool"
)

// CodeExtension is an extension given in code (the SDK's
// castor.Extension): what an installed extension brings, without files.
type CodeExtension struct {
	Name string
	// Instructions join the extension memory in the first message.
	Instructions string
	// Tools are added like Options.Tools.
	Tools []tool.Tool
	// MCPServers are mcpServers entries; settings win on a name clash.
	MCPServers map[string]any
	// Commands are custom commands, as if read from its commands/ folder.
	Commands []*command.FileCommand
}

// loadExtensions loads the installed extensions (none when settings are
// ignored), keeps the active ones in a.Extensions and applies them to the
// settings in effect: their MCP servers join mcpServers (a server of the
// same name in settings wins) and their excludeTools join tools.exclude.
// It returns the code extensions' tools and instructions for the later
// steps.
func loadExtensions(o Options, a *Agent, wd string) {
	if !o.IgnoreSettings {
		exts, warnings := config.LoadExtensions(config.ExtensionsOptions{
			GeminiDir: a.Home.Dir,
			Workspace: wd,
			Trusted:   a.Trusted,
			Enabled:   o.Extensions,
			Lookup:    a.Env.Lookup,
			// security.allowedExtensions and blockGitExtensions.
			Settings: a.Settings,
		})
		for _, w := range warnings {
			o.Warn(w)
		}
		a.Extensions = config.ActiveExtensions(exts)
	}
	st := a.Settings
	merge := func(servers map[string]any) {
		if len(servers) == 0 {
			return
		}
		if st.MCPServers == nil {
			st.MCPServers = map[string]any{}
		}
		for name, s := range servers {
			if _, ok := st.MCPServers[name]; !ok {
				st.MCPServers[name] = s
			}
		}
	}
	for _, e := range a.Extensions {
		merge(e.ServersWithSettings())
		st.Tools.Exclude = append(st.Tools.Exclude, e.ExcludeTools...)
	}
	for _, e := range o.CodeExtensions {
		merge(maps.Clone(e.MCPServers))
	}
}

// codeExtensionOptions checks the code extensions and folds their tools
// and instructions into the options the later steps read.
func codeExtensionOptions(o Options) (Options, error) {
	if len(o.CodeExtensions) == 0 {
		return o, nil
	}
	seen := map[string]bool{}
	for _, e := range o.CodeExtensions {
		if e == nil || !config.ValidExtensionName(e.Name) {
			return o, configErrorf("extension name %q: only letters (a-z, A-Z), numbers (0-9), and dashes (-) are allowed", nameOf(e))
		}
		if seen[e.Name] {
			return o, configErrorf("extension %s is given twice", e.Name)
		}
		seen[e.Name] = true
		for _, c := range e.Commands {
			if c == nil || c.Name == "" || strings.ContainsAny(c.Name, " \t\n/") {
				return o, configErrorf("extension %s: a command needs a name without spaces or slashes", e.Name)
			}
			if err := c.Validate(); err != nil {
				return o, configErrorf("extension %s: command %s: %v", e.Name, c.Name, err)
			}
		}
	}
	o.Tools = append([]tool.Tool(nil), o.Tools...)
	var instr []string
	if strings.TrimSpace(o.Instructions) != "" {
		instr = append(instr, o.Instructions)
	}
	for _, e := range o.CodeExtensions {
		o.Tools = append(o.Tools, e.Tools...)
		if strings.TrimSpace(e.Instructions) != "" {
			instr = append(instr, e.Instructions)
		}
	}
	o.Instructions = strings.Join(instr, "\n\n")
	return o, nil
}

func nameOf(e *CodeExtension) string {
	if e == nil {
		return ""
	}
	return e.Name
}

// extensionContextFiles are the context files of the active extensions,
// for memory.
func extensionContextFiles(exts []*config.Extension) []string {
	var out []string
	for _, e := range exts {
		out = append(out, e.ContextFiles...)
	}
	return out
}

// commandDirs are the folders custom commands come from, in Gemini CLI's
// order: the user's, the workspace's (trusted workspaces only, and not
// when the workspace is the home folder), then each active extension's.
func commandDirs(a *Agent, wd string) []command.CommandDir {
	dirs := []command.CommandDir{{Path: filepath.Join(a.Home.Dir, "commands"), Scope: command.ScopeUser}}
	ws := filepath.Join(wd, config.GeminiDirName, "commands")
	if a.Trusted && filepath.Clean(ws) != filepath.Clean(filepath.Join(a.Home.Dir, "commands")) {
		dirs = append(dirs, command.CommandDir{Path: ws, Scope: command.ScopeProject})
	}
	for _, e := range a.Extensions {
		dirs = append(dirs, command.CommandDir{Path: e.Dir("commands"), Scope: command.ScopeExtension, Extension: e.Name})
	}
	return dirs
}

// loadFileCommands reads the custom commands and registers them in
// a.Commands (a user's or workspace's command may replace a built-in,
// an extension's never does); broken files are reported through warn.
func loadFileCommands(o Options, a *Agent, wd string) {
	var cmds []*command.FileCommand
	if !o.IgnoreSettings {
		var errs []error
		cmds, errs = command.LoadFileCommands(commandDirs(a, wd))
		for _, err := range errs {
			o.Warn(err.Error())
		}
	}
	for _, e := range o.CodeExtensions {
		for _, c := range e.Commands {
			cp := *c
			cp.Scope, cp.Extension = command.ScopeExtension, e.Name
			cmds = append(cmds, &cp)
		}
	}
	builtins := map[string]bool{}
	for _, c := range a.Commands.Commands() {
		builtins[c.Name] = true
	}
	a.fileCommands = map[string]*command.FileCommand{}
	resolved, conflicts := command.ResolveConflicts(cmds, func(n string) bool { return builtins[n] })
	for _, c := range conflicts {
		o.Warn(c.String())
	}
	for _, c := range resolved {
		a.fileCommands[c.Name] = c
		a.Commands.Register(c.Command(func(command.Env) command.Injector { return a.injector() }))
	}
}

// FileCommands returns the session's custom commands by name.
func (a *Agent) FileCommands() map[string]*command.FileCommand {
	return maps.Clone(a.fileCommands)
}

// listFileCommands registers the custom commands of the workspace of o
// (and of its active extensions) in reg, for faces that list commands
// without a session (the A2A server's /listCommands). Run there they
// expand {{args}}; shell and file injections need a session, whose
// ExpandPrompt a message naming the command goes through.
func listFileCommands(reg *command.Registry, o Options, st *config.Settings, home config.Home, env *Env) {
	a := &Agent{Home: home, Settings: st, Env: env, Commands: reg, Trusted: st.Trust.IsTrusted() || !st.Trust.FolderTrustEnabled}
	loadExtensions(o, a, o.WorkDir)
	loadFileCommands(o, a, o.WorkDir)
}

// extensionRoots are the folders of the active extensions, for the
// loaders that read their hooks/, skills/ and agents/ folders.
func extensionRoots(a *Agent) []string {
	roots := make([]string, 0, len(a.Extensions))
	for _, e := range a.Extensions {
		roots = append(roots, e.Path)
	}
	return roots
}

// withExtensionSettingsEnv gives each extension hook the values of the
// settings its extension declares, as environment variables over the
// hook's own "env", as Gemini CLI does (its MCP servers get them through
// config.Extension.ServersWithSettings). A hook is its extension's when it came from that
// extension's hooks/hooks.json.
func withExtensionSettingsEnv(exts []*config.Extension, list []hooks.Hook) {
	for _, e := range exts {
		if len(e.Env) == 0 {
			continue
		}
		file := filepath.Join(e.Path, "hooks", "hooks.json") + ":"
		for i := range list {
			h := &list[i]
			if h.Source != hooks.SourceExtension || !strings.HasPrefix(h.Origin, file) {
				continue
			}
			env := maps.Clone(h.Env)
			if env == nil {
				env = map[string]string{}
			}
			maps.Copy(env, e.Env)
			h.Env = env
		}
	}
}
