package castor

import (
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/tool"
)

// memory is the GEMINI.md context of a session: the global file goes in
// the system instruction, project (and extension) files in the
// environment context, as Gemini CLI places them.
type memory struct {
	global  string
	project string
	loaded  *config.Memory
}

func loadMemory(o Options, st *config.Settings, env *environment, filter tool.FileFilter) (memory, error) {
	if o.IgnoreSettings {
		return memory{}, nil
	}
	dirs := env.ws.Dirs()
	if !st.Context.LoadMemoryFromIncludeDirectories {
		dirs = dirs[:1]
	}
	m, err := config.LoadMemory(config.MemoryOptions{
		Workspace:       dirs,
		Home:            env.home.UserDir,
		FileNames:       st.Context.FileNames,
		Filter:          filter,
		Trusted:         env.trusted,
		MaxDirs:         st.Context.DiscoveryMaxDirs,
		BoundaryMarkers: st.Context.MemoryBoundaryMarkers,
		ImportFormat:    st.Context.ImportFormat,
	})
	if err != nil {
		return memory{}, err
	}
	for _, w := range m.Warnings {
		if o.Warn != nil {
			o.Warn(w)
		}
	}
	project := m.Project
	if m.Extension != "" {
		project = m.Extension + "\n\n" + project
	}
	return memory{global: m.Global, project: project, loaded: m}, nil
}
