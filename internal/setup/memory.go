package setup

import (
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/textutil"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// memory is the GEMINI.md context of a session: the global file goes in
// the system instruction, project (and extension) files in the
// environment context, as Gemini CLI places them.
type memory struct {
	global, extension, project string
	// files is the loaded memory, which just-in-time loading extends.
	files *config.Memory
}

func loadMemory(o Options, a *Agent, filter tool.FileFilter) (memory, error) {
	if o.IgnoreSettings {
		return memory{}, nil
	}
	st := a.Settings
	dirs := a.Workspace.Dirs()
	if !st.Context.LoadMemoryFromIncludeDirectories {
		dirs = dirs[:1]
	}
	maxDirs := st.Context.DiscoveryMaxDirs
	if jitEnabled(st) {
		// Subfolder files arrive with the output of the tools that touch
		// them (jit.go), as in Gemini CLI 0.61; no scan at start.
		maxDirs = -1
	}
	m, err := config.LoadMemory(config.MemoryOptions{
		Workspace:       dirs,
		Home:            a.Home.UserDir,
		FileNames:       st.Context.FileNames,
		Filter:          filter,
		Trusted:         a.Trusted,
		MaxDirs:         maxDirs,
		BoundaryMarkers: st.Context.MemoryBoundaryMarkers,
		ImportFormat:    st.Context.ImportFormat,
		ExtensionFiles:  extensionContextFiles(a.Extensions),
	})
	if err != nil {
		return memory{}, err
	}
	for _, w := range m.Warnings {
		o.Warn(w)
	}
	return memory{global: m.Global, extension: m.Extension, project: m.Project, files: m}, nil
}

// prompt is what the session tells the model besides the conversation:
// the system prompt (with the global memory) and the environment context
// (with the project memory) sent with the first message.
type prompt struct {
	system     guardedString
	envContext func() string
	// reload re-reads memory after save_memory changed it, so the next
	// model call sees it.
	reload func()
	// project and extension are the project memory and the extensions'
	// the environment context carries.
	project, extension guardedString
}

func newPrompt(o Options, a *Agent, ts *toolSet, pol *policy.Engine) (*prompt, error) {
	filter := ts.filters.get(ts.respect)
	mem, err := loadMemory(o, a, filter)
	if err != nil {
		o.Warn(err.Error())
	}
	ts.jit.set(mem.files)
	inGit := config.InGitRepo(a.Workspace.Dirs()[0])
	build := func(global string) (string, error) {
		s, err := agent.SystemPrompt(agent.PromptOptions{
			GeminiHome:   a.Home.Dir,
			Getenv:       a.Env.Getenv,
			Memory:       strings.TrimSpace(textutil.Paragraphs(global, o.Instructions)),
			ApprovalMode: string(pol.Mode()),
			InGitRepo:    inGit,
		})
		return withSections(s, customPrompt(a.Env.Getenv), a.agentsSection, a.skillsSection), err
	}
	p := &prompt{}
	p.project.set(mem.project)
	p.extension.set(mem.extension)
	s, err := build(mem.global)
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	p.system.set(s)
	p.reload = func() {
		m, err := loadMemory(o, a, filter)
		if err != nil {
			o.Warn(err.Error())
			return
		}
		ts.jit.set(m.files)
		p.project.set(m.project)
		p.extension.set(m.extension)
		if s, err := build(m.global); err == nil {
			p.system.set(s)
		}
	}
	p.envContext = func() string {
		tree := ""
		if o.IgnoreSettings || a.Settings.Context.IncludeDirectoryTree {
			var trees []string
			for _, d := range a.Workspace.Dirs() {
				trees = append(trees, config.FolderStructure(d, 200, filter))
			}
			tree = strings.Join(trees, "\n")
		}
		return agent.EnvContext(agent.EnvInfo{
			Date: time.Now(), OS: runtime.GOOS, TempDir: a.TempDir,
			Dirs: a.Workspace.Dirs(), Tree: tree, Memory: p.project.get(), ExtensionMemory: p.extension.get(),
		})
	}
	return p, nil
}

// guardedString is a string read by model calls while a tool may replace
// it (the system prompt after save_memory).
type guardedString struct {
	mu sync.RWMutex
	s  string
}

func (g *guardedString) get() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.s
}

func (g *guardedString) set(s string) {
	g.mu.Lock()
	g.s = s
	g.mu.Unlock()
}
