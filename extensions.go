package castor

import (
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/tool"
)

// Extension bundles what a Gemini CLI extension adds to an agent, given
// in code instead of an installed gemini-extension.json: instructions
// (where an extension's context file goes), tools, MCP servers, custom
// commands, hooks, skills and subagents. Installed extensions (~/.gemini/extensions) are
// loaded too unless WithoutSettings.
type Extension struct {
	// Name identifies the extension: letters, digits and dashes. A
	// command of the extension whose name is taken becomes
	// "/<Name>.<command>", as in Gemini CLI.
	Name string
	// Instructions are added to the model's context with the extensions'
	// context files.
	Instructions string
	// Tools are added like WithTools: a call is confirmed when the tool's
	// Confirmation asks.
	Tools []tool.Tool
	// MCPServers are started with the agent; a server of the same name
	// in settings.json wins.
	MCPServers map[string]MCPServer
	// Commands are custom commands, as an extension's commands/*.toml.
	Commands []Command
	// Hooks run like WithHooks, as an extension's hooks/hooks.json.
	Hooks []Hook
	// Skills are added like WithSkills, as an extension's skills/.
	Skills []SkillSource
	// Subagents are added like WithSubagents, as an extension's agents/.
	Subagents []Subagent
}

// MCPServer is an MCP server an Extension starts: a command over stdio,
// or a URL (streamable HTTP, or SSE with URL).
type MCPServer struct {
	// Command, Args, Env and Cwd start a stdio server.
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// HTTPURL is a streamable HTTP server, URL an SSE one; Headers are
	// sent with every request.
	HTTPURL string
	URL     string
	Headers map[string]string
	// Description is shown where servers are listed.
	Description string
}

// Command is a custom slash command: typing "/Name args" sends Prompt
// with {{args}} replaced by args (or, without {{args}}, the invocation
// appended after a blank line). !{cmd} runs a shell command under the
// agent's policy and inserts its output; @{path} inserts a workspace
// file. Name may hold ":" to namespace it ("git:commit").
type Command struct {
	Name        string
	Description string
	Prompt      string
}

// WithExtensions adds extensions given in code. An invalid one (a bad
// name, a command whose prompt has an unclosed !{ or @{) makes New fail
// with a *ConfigError.
func WithExtensions(exts ...Extension) Option {
	return func(o *options) {
		for _, e := range exts {
			o.CodeExtensions = append(o.CodeExtensions, e.toSetup())
			// Hooks, skills and subagents of an extension are the same
			// as the agent's own; only their origin differs.
			if len(e.Hooks) > 0 {
				WithHooks(e.Hooks...)(o)
			}
			if len(e.Skills) > 0 {
				WithSkills(e.Skills...)(o)
			}
			if len(e.Subagents) > 0 {
				WithSubagents(e.Subagents...)(o)
			}
		}
	}
}

// WithExtensionNames limits the installed extensions to these names, as
// the castor command's -e flag does; "none" uses none of them.
func WithExtensionNames(names ...string) Option {
	return func(o *options) { o.Extensions = append(o.Extensions, names...) }
}

func (e Extension) toSetup() *setup.CodeExtension {
	ce := &setup.CodeExtension{Name: e.Name, Instructions: e.Instructions, Tools: e.Tools}
	if len(e.MCPServers) > 0 {
		ce.MCPServers = map[string]any{}
		for name, s := range e.MCPServers {
			ce.MCPServers[name] = s.settings()
		}
	}
	for _, c := range e.Commands {
		ce.Commands = append(ce.Commands, &command.FileCommand{Name: c.Name, Description: c.Description, Prompt: c.Prompt})
	}
	return ce
}

// settings is the server as an mcpServers entry of settings.json.
func (s MCPServer) settings() map[string]any {
	m := map[string]any{}
	set := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	set("command", s.Command)
	set("cwd", s.Cwd)
	set("httpUrl", s.HTTPURL)
	set("url", s.URL)
	set("description", s.Description)
	if len(s.Args) > 0 {
		args := make([]any, len(s.Args))
		for i, a := range s.Args {
			args[i] = a
		}
		m["args"] = args
	}
	for key, kv := range map[string]map[string]string{"env": s.Env, "headers": s.Headers} {
		if len(kv) > 0 {
			o := map[string]any{}
			for k, v := range kv {
				o[k] = v
			}
			m[key] = o
		}
	}
	return m
}
