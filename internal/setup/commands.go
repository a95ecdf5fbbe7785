package castor

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
	var lookup config.LookupFunc // nil: the process environment
	if o.Getenv != nil {
		lookup = func(k string) (string, bool) {
			v := o.Getenv(k)
			return v, v != ""
		}
	}
	st, err := config.Load(config.LoadOptions{Workspace: o.WorkDir, Env: lookup, HomeDir: o.HomeDir})
	if err != nil {
		if o.Warn != nil {
			o.Warn(err.Error())
		}
		return reg, noop
	}
	home := config.ResolveHome(lookup)
	if o.HomeDir != "" {
		home = config.HomeAt(o.HomeDir)
	}
	m := openMCP(ctx, st, mcpPlace{workDir: o.WorkDir, geminiDir: home.Dir}, o.AllowedMCPServerNames, o.Warn)
	if m == nil {
		return reg, noop
	}
	for _, c := range m.Commands() {
		reg.Register(c)
	}
	return reg, m.Close
}
