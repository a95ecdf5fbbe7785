package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/mcp"
)

// enablementPath is ~/.gemini/mcp-server-enablement.json, shared with
// Gemini CLI: a server disabled in one stays off in the other.
func enablementPath() string {
	return filepath.Join(config.ResolveHome(nil).Dir, mcp.EnablementFileName)
}

// enableCommand is `castor mcp enable <name>` or `disable <name>`, which
// switch a configured server on or off without touching its settings, as
// `gemini mcp enable|disable` do (Gemini CLI's --session applies inside an
// interactive session and is not offered here).
func enableCommand(enable bool, stdio IO) *cobra.Command {
	use, short := "disable <name>", "Disable an MCP server"
	if enable {
		use, short = "enable <name>", "Enable an MCP server"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return mcpEnable(args[0], enable, stdio)
		},
	}
}

func mcpEnable(name string, enable bool, stdio IO) error {
	st, err := loadMCPSettings()
	if err != nil {
		return err
	}
	key := strings.ToLower(strings.TrimSpace(name))
	found := false
	for n := range st.MCPServers {
		found = found || strings.ToLower(strings.TrimSpace(n)) == key
	}
	if !found {
		return fmt.Errorf("Server '%s' not found. Use 'castor mcp list' to see available servers.", name)
	}
	if enable {
		filter := mcp.Filter{Allowed: st.MCP.Allowed, Excluded: st.MCP.Excluded}
		if blocked, why := filter.Blocked(name); blocked {
			// Enabling cannot override the settings that block it.
			return fmt.Errorf("%s", why)
		}
	}
	if err := mcp.SetEnabled(enablementPath(), key, enable); err != nil {
		return err
	}
	state := "disabled"
	if enable {
		state = "enabled"
	}
	fmt.Fprintf(stdio.Stdout, "✓ MCP server '%s' %s.\n", key, state)
	return nil
}

// loadMCPSettings loads the settings of the working directory as if it
// were trusted, so that a project's servers can be named too.
func loadMCPSettings() (*config.Settings, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return config.Load(config.LoadOptions{Workspace: wd, Env: func(k string) (string, bool) {
		if k == config.EnvTrustWorkspace {
			return "true", true
		}
		return os.LookupEnv(k)
	}})
}
