package setup

import (
	"context"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/config"
)

// Commands returns the slash commands a face offers for the workspace of
// o: the built-in ones and the prompts of the MCP servers its settings
// configure, which become commands as in Gemini CLI. The returned function
// stops those servers.
func Commands(ctx context.Context, o Options) (*command.Registry, func() error) {
	reg := command.DefaultRegistry()
	noop := func() error { return nil }
	if o.IgnoreSettings || o.WorkDir == "" {
		return reg, noop
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	env := NewEnv(o.Env)
	st, err := config.Load(config.LoadOptions{Workspace: o.WorkDir, Env: env.Lookup, HomeDir: o.HomeDir})
	if err != nil {
		o.Warn(err.Error())
		return reg, noop
	}
	home := config.ResolveHome(env.Lookup)
	if o.HomeDir != "" {
		home = config.HomeAt(o.HomeDir)
	}
	listFileCommands(reg, o, st, home, env)
	m := openMCP(ctx, st, mcpPlace{workDir: o.WorkDir, geminiDir: home.Dir, environ: env.Environ(), getenv: env.Getenv, debug: o.Debug}, o.AllowedMCPServerNames, o.Warn)
	if m == nil {
		return reg, noop
	}
	registerMCPCommands(reg, m)
	return reg, m.Close
}
