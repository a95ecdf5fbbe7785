package setup

import (
	"context"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/lsp"
	"github.com/castor-dev/castor/tool"
	"github.com/castor-dev/castor/tool/builtin"
)

// addLSP gives the session its language servers (internal/lsp) when the
// workspace has any: diagnostics after the edit tools write, and the
// lsp_ tools. Without one nothing is declared, so the requests are what
// they were. An untrusted folder runs none: a server runs the project's
// build tooling.
func addLSP(o Options, a *Agent, ts *toolSet) {
	st := a.Settings
	if o.IgnoreSettings || !a.Trusted {
		return
	}
	ls, err := lsp.FromSettings(st)
	if err != nil {
		o.Warn("settings: " + err.Error() + "; no language servers run")
		return
	}
	if ls.Off {
		return
	}
	m := lsp.New(lsp.Options{Servers: ls.Servers, Workspace: a.Workspace.Dirs()[0], Environ: a.Env.Environ(), ServerEnviron: func() []string { return lspEnviron(a) }, Wait: ls.Wait, Report: o.Warn})
	if m == nil {
		return
	}
	a.LSP = m
	a.onClose(m.Close)
	ts.env.Diagnostics = m
	exclude := builtinExclude(st)
	// lsp_rename writes as the edit tools do: checkpoints see it first.
	before := func(ctx context.Context, path string, args map[string]any) {
		if ts.env.BeforeEdit != nil {
			ts.env.BeforeEdit(ctx, builtin.Edit{Tool: "lsp_rename", Args: args, Path: path, CallID: tool.CallID(ctx), PromptID: tool.PromptID(ctx)})
		}
	}
	for _, t := range lsp.Tools(m, a.Workspace, before) {
		if keepTool(t, st.Tools.Core, exclude) {
			ts.registry.Register(t)
		}
	}
}

// lspCommand registers /lsp in the session's commands, for every face:
// the language servers, their state and their diagnostics' counts.
func (a *Agent) lspCommand() {
	run := func(context.Context, *command.Invocation) (*command.Result, error) {
		if a.LSP == nil {
			return info("No language servers are configured or available for this workspace (see docs/lsp.md)."), nil
		}
		return info("Language servers:\n" + lsp.FormatStatus(a.LSP.Status())), nil
	}
	a.Commands.Register(&command.Command{
		Name:        "lsp",
		Description: "List the language servers, their state and their diagnostics.",
		SubCommands: []*command.Command{{Name: "status", Description: "List the language servers, their state and their diagnostics.", Execute: run}},
		Execute:     run,
	})
}

// lspEnviron is the servers' environment: the session's, redacted as a
// stdio MCP server's is whatever security.environmentVariableRedaction
// .enabled says (a language server needs no API key), the Go module
// patterns (GOPRIVATE, GONOPROXY, GONOSUMDB: not secrets, though named
// like them) let through.
func lspEnviron(a *Agent) []string {
	r := envRules(a.Settings)
	r.Enabled = true
	r.Allowed = append(r.Allowed, "GOPRIVATE", "GONOPROXY", "GONOSUMDB")
	return r.Apply(a.Env.Environ())
}
