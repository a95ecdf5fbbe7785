package setup

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"mvdan.cc/sh/v3/shell"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/version"
	"github.com/castor-dev/castor/mcp"
	"github.com/castor-dev/castor/tool"
	"github.com/castor-dev/castor/tool/builtin"
)

// openMCP starts the MCP servers configured in st (mcpServers, plus
// mcp.serverCommand as a server called "mcp"), filtered by mcp.allowed,
// mcp.excluded and allowedNames (--allowed-mcp-server-names), and returns
// their manager (tools, prompts, resources, statuses), or nil when no
// server is configured. It never fails: a bad entry or a server that does
// not come up is reported through warn, and the session goes on without
// it. A cancelled ctx stops the servers' start.
func openMCP(ctx context.Context, st *config.Settings, at mcpPlace, allowedNames []string, warn func(string)) *mcp.Manager {
	if warn == nil {
		warn = func(string) {}
	}
	m := newMCP(st, at, allowedNames, warn)
	if m != nil {
		connectMCP(ctx, m, warn)
	}
	return m
}

// newMCP builds the manager of the servers openMCP starts, without
// starting them; nil when no server is configured.
func newMCP(st *config.Settings, at mcpPlace, allowedNames []string, warn func(string)) *mcp.Manager {
	if st == nil {
		return nil
	}
	var servers []*mcp.ServerConfig
	for _, name := range slices.Sorted(maps.Keys(st.MCPServers)) {
		c, err := mcp.ParseServer(name, st.MCPServers[name])
		if err != nil {
			// Name the file to fix, as for every other bad setting.
			if f := st.FileOf("mcpServers", name); f != "" {
				err = fmt.Errorf("%s: %w", f, err)
			}
			warn(err.Error())
			continue
		}
		servers = append(servers, c)
	}
	if at.getenv == nil {
		at.getenv = os.Getenv
	}
	if cmd := st.MCP.ServerCommand; cmd != "" {
		// Gemini CLI splits mcp.serverCommand like a shell would, with
		// variables expanded, and names the server "mcp".
		args, err := shell.Fields(cmd, at.getenv)
		if err != nil || len(args) == 0 {
			warn(fmt.Sprintf("failed to parse mcpServerCommand: %s", cmd))
		} else {
			servers = append(servers, &mcp.ServerConfig{Name: "mcp", Command: args[0], Args: args[1:]})
		}
	}
	if len(servers) == 0 {
		return nil
	}

	workDir := at.workDir
	var roots []string
	if workDir != "" {
		roots = []string{workDir}
	}
	reserved := map[string]bool{mcp.ListResourcesToolName: true, mcp.ReadResourceToolName: true}
	for _, t := range builtin.All(&builtin.Env{}) {
		reserved[t.Name()] = true
		if a, ok := t.(tool.Aliased); ok {
			for _, n := range a.Aliases() {
				reserved[n] = true
			}
		}
	}
	// Servers switched off with `gemini mcp disable` (or castor's) stay off.
	disabled, err := mcp.LoadDisabled(filepath.Join(at.geminiDir, mcp.EnablementFileName))
	if err != nil {
		warn(err.Error())
	}
	return mcp.New(mcp.Options{
		Servers: servers,
		Filter: mcp.Filter{
			Allowed:      st.MCP.Allowed,
			Excluded:     st.MCP.Excluded,
			AllowedNames: allowedNames,
			Disabled:     disabled,
		},
		FolderTrusted: st.Trust.IsTrusted() || !st.Trust.FolderTrustEnabled,
		ClientName:    "castor",
		ClientVersion: version.Version,
		Environ:       at.environ,
		WorkDir:       workDir,
		Roots:         roots,
		EnvAllowed:    redaction(st, "allowed"),
		EnvBlocked:    redaction(st, "blocked"),
		Reserved:      func(n string) bool { return reserved[n] },
		// A server's tools/list_changed reaches the session's registry.
		OnToolsChanged: at.onToolsChanged,
		// A server's prompts/list_changed reaches the slash commands.
		OnPromptsChanged: at.onPromptsChanged,
		OutputLimit:      st.Tools.TruncateToolOutputThreshold,
		OutputDir:        at.tempDir,
		Elicit:           at.elicit,
		ConnectTimeout:   startTimeout(st, warn),
		Debug:            orDrop(at.debug),
		// No browser here: a headless start uses stored tokens only (the
		// lead's interactive faces can pass OpenBrowser).
		OAuth: &mcp.OAuthOptions{TokenFile: filepath.Join(at.geminiDir, mcp.TokenFileName)},
	})
}

// connectMCP starts m's servers and reports through warn those that did
// not come up.
func connectMCP(ctx context.Context, m *mcp.Manager, warn func(string)) {
	startMCP(ctx, m, warn)
	if ctx.Err() != nil {
		// Start-up was cancelled: the caller reports that, not each
		// server it interrupted.
		return
	}
	statuses := m.Statuses()
	sort.Slice(statuses, func(i, j int) bool { return statuses[i].Name < statuses[j].Name })
	for _, s := range statuses {
		switch s.Status {
		case mcp.StatusError:
			if f := s.Failure; f != nil {
				// Name the command or URL, say what went wrong and quote
				// the server's last stderr lines.
				warn(fmt.Sprintf("Error connecting to MCP server '%s' (%s): %s", s.Name, f.Target, f.Details()))
				continue
			}
			warn(fmt.Sprintf("Error connecting to MCP server '%s': %s", s.Name, s.Reason))
		case mcp.StatusBlocked, mcp.StatusDisabled:
			// Gemini CLI lists these in /mcp and `mcp list`, not at start.
		}
	}
}

// mcpPlace is where MCP servers run: the workspace (their working
// directory and root), the ~/.gemini directory holding their OAuth
// tokens, and the session's environment.
type mcpPlace struct {
	workDir   string
	geminiDir string
	// environ is what stdio servers start from (nil: the process's) and
	// getenv expands variables in mcp.serverCommand.
	environ []string
	getenv  func(string) string
	// onToolsChanged receives the whole MCP tool list after a server's
	// tools changed during the session.
	onToolsChanged func([]tool.Tool)
	// onPromptsChanged learns that a server's prompts were listed again
	// during the session (mcpCommands.refresh).
	onPromptsChanged func()
	// tempDir is where oversized tool results are saved whole.
	tempDir string
	// elicit answers servers' questions (see elicitFor).
	elicit mcp.ElicitFunc
	// debug receives the servers' debug lines (Options.Debug).
	debug func(string)
}

// redaction reads security.environmentVariableRedaction.allowed or
// .blocked: variables Gemini CLI always passes to, or withholds from, MCP
// servers.
func redaction(st *config.Settings, which string) []string {
	v, _ := st.GetStrings("security.environmentVariableRedaction." + which)
	return v
}

// orDrop is f, or a function that drops its lines, so that a library
// that logs through the process's log when given nothing logs nothing.
func orDrop(f func(string)) func(string) {
	if f == nil {
		return func(string) {}
	}
	return f
}

// startTimeout is mcp.startTimeout, in milliseconds: how long a server
// without a timeout of its own may take to connect (0: the default, 10
// minutes as Gemini CLI 0.61). A value that is not a positive number is
// reported and the default kept.
func startTimeout(st *config.Settings, warn func(string)) time.Duration {
	v, ok := st.Get("mcp.startTimeout")
	if !ok {
		return 0
	}
	n, isNum := v.(float64)
	if !isNum || n <= 0 {
		warn(cmp.Or(st.FileOf("mcp", "startTimeout"), "settings") + ": mcp.startTimeout must be a positive number of milliseconds; using 600000 (10 minutes)")
		return 0
	}
	return time.Duration(n * float64(time.Millisecond))
}
