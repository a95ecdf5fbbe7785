package cli

import (
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/mcp"
)

// extensionServers are the MCP servers the active extensions bring, for
// `mcp list`, as a session adds them: after the configured servers, each
// extension's in name order, and never one named like a server already
// listed (settings, or an earlier extension, win). Each is marked with
// its extension, which the list shows as "(from <name>)". Problems
// (a broken extension, a malformed server entry) come back as warnings
// naming the extension's manifest.
func extensionServers(st *config.Settings, wd string, trusted bool, listed []*mcp.ServerConfig) (servers []*mcp.ServerConfig, warnings []string) {
	exts, warnings := config.LoadExtensions(config.ExtensionsOptions{
		GeminiDir: config.ResolveHome(nil).Dir,
		Workspace: wd,
		Trusted:   trusted,
		Lookup:    os.LookupEnv,
		Settings:  st,
	})
	taken := map[string]bool{}
	for name := range st.MCPServers {
		taken[name] = true
	}
	for _, s := range listed {
		taken[s.Name] = true
	}
	for _, e := range config.ActiveExtensions(exts) {
		decl := e.ServersWithSettings()
		for _, name := range slices.Sorted(maps.Keys(decl)) {
			if taken[name] {
				continue
			}
			taken[name] = true
			s, err := mcp.ParseServer(name, decl[name])
			if err != nil {
				warnings = append(warnings, filepath.Join(e.Path, config.ExtensionManifestName)+": "+err.Error())
				continue
			}
			s.Extension = e.Name
			servers = append(servers, s)
		}
	}
	return servers, warnings
}
