package setup

import (
	"context"
	"slices"
	"strings"

	"github.com/castor-dev/castor/internal/discovered"
)

// addDiscovered registers the tools tools.discoveryCommand declares
// (Gemini CLI's discovered_tool_* tools), after the built-in and the
// caller's tools and before MCP's, Gemini CLI's order. Every problem is a
// line through Warn and start-up goes on without the tools it concerns.
//
// Castor runs the command only in a trusted folder: it runs in the
// project root, and a project one has not vetted should not run its own
// scripts at start-up. Gemini CLI has no such check of its own (an
// untrusted folder's settings file is ignored, but not a user setting).
func addDiscovered(ctx context.Context, o Options, a *Agent, ts *toolSet, exclude []string) {
	cmd, _ := a.Settings.GetString("tools.discoveryCommand")
	if strings.TrimSpace(cmd) == "" {
		return
	}
	if !a.Trusted {
		o.Warn(discovered.DiscoveryKey + " is not run: this folder is not trusted")
		return
	}
	call, _ := a.Settings.GetString("tools.callCommand")
	tools, notes, err := discovered.Discover(ctx, discovered.Config{
		DiscoveryCommand: cmd,
		CallCommand:      call,
		Dir:              a.Workspace.Dirs()[0],
		Environ:          a.Env.Environ(),
		Getenv:           a.Env.Getenv,
	})
	for _, n := range notes {
		o.Warn(n)
	}
	if err != nil {
		if ctx.Err() == nil {
			o.Warn(err.Error())
		}
		return
	}
	// tools.exclude names a tool, or all of them by Gemini CLI's class
	// name.
	if slices.Contains(exclude, "DiscoveredTool") {
		return
	}
	for _, t := range tools {
		if keepTool(t, nil, exclude) {
			ts.registry.Register(t)
		}
	}
}
