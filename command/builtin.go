package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/tool/builtin"
)

// Builtins returns the commands Gemini CLI's A2A server offers, as far as
// Castor can back them truthfully today: extensions, memory and init.
// Gemini CLI's restore needs checkpoints, which Castor does not take yet,
// so it is not offered rather than offered broken.
func Builtins() []*Command {
	return []*Command{Extensions(), Memory(), Init(), Restore()}
}

// DefaultRegistry returns a registry holding Builtins.
func DefaultRegistry() *Registry { return NewRegistry(Builtins()...) }

func home(env Env) config.Home {
	if env.HomeDir != "" {
		return config.HomeAt(env.HomeDir)
	}
	return config.ResolveHome(nil)
}

// ExtensionInfo describes an installed extension as /extensions list shows
// it.
type ExtensionInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Path    string `json:"path"`
	// IsActive says whether sessions in this workspace use it (the
	// enablement rules of extension-enablement.json).
	IsActive bool `json:"isActive"`
	// Scope is "user": Gemini CLI 0.61 installs extensions under
	// ~/.gemini/extensions only.
	Scope string `json:"scope"`
}

// Extensions is /extensions, whose default is /extensions list.
func Extensions() *Command {
	list := &Command{
		Name:        "list",
		Description: "Lists all installed extensions.",
		Execute: func(_ context.Context, inv *Invocation) (*Result, error) {
			exts := ListExtensions(inv.Env)
			if len(exts) == 0 {
				return &Result{Kind: ResultData, Data: "No extensions installed.", Content: "No extensions installed."}, nil
			}
			return &Result{Kind: ResultData, Data: exts}, nil
		},
	}
	return &Command{
		Name:        "extensions",
		Description: "Manage extensions.",
		SubCommands: []*Command{list},
		Execute:     list.Execute,
	}
}

// ListExtensions loads the extensions installed under
// ~/.gemini/extensions (config.LoadExtensions), sorted by name; broken
// ones are left out.
func ListExtensions(env Env) []ExtensionInfo {
	// The settings' security.allowedExtensions leaves refused ones out;
	// unreadable settings list every extension, as before.
	st, _ := config.Load(config.LoadOptions{Workspace: env.Workspace, HomeDir: env.HomeDir})
	exts, _ := config.LoadExtensions(config.ExtensionsOptions{GeminiDir: home(env).Dir, Workspace: env.Workspace, Trusted: env.Trusted, Settings: st})
	var out []ExtensionInfo
	for _, e := range exts {
		out = append(out, ExtensionInfo{Name: e.Name, Version: e.Version, Path: e.Path, IsActive: e.Active, Scope: "user"})
	}
	return out
}

// LoadMemory loads the GEMINI.md files an agent in env would load, with
// the settings that govern it.
func LoadMemory(env Env) (*config.Memory, error) {
	h := home(env)
	ws := env.Workspace
	if ws == "" {
		ws = h.UserDir
	}
	st, err := config.Load(config.LoadOptions{Workspace: ws, HomeDir: env.HomeDir})
	if err != nil {
		return nil, err
	}
	var extFiles []string
	exts, _ := config.LoadExtensions(config.ExtensionsOptions{GeminiDir: h.Dir, Workspace: ws, Trusted: env.Trusted, Settings: st})
	for _, e := range config.ActiveExtensions(exts) {
		extFiles = append(extFiles, e.ContextFiles...)
	}
	return config.LoadMemory(config.MemoryOptions{
		ExtensionFiles:  extFiles,
		Workspace:       []string{ws},
		Home:            h.UserDir,
		FileNames:       st.Context.FileNames,
		Trusted:         env.Trusted,
		MaxDirs:         st.Context.DiscoveryMaxDirs,
		BoundaryMarkers: st.Context.MemoryBoundaryMarkers,
		ImportFormat:    st.Context.ImportFormat,
	})
}

// flatten joins memory the way Gemini CLI's flattenMemory shows it.
func flatten(m *config.Memory) string {
	var parts []string
	for _, s := range []string{m.Global, m.Extension, m.Project} {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Memory is /memory with show (the default), list, refresh and add.
func Memory() *Command {
	show := &Command{
		Name:        "show",
		Description: "Shows the current memory contents.",
		Execute: func(_ context.Context, inv *Invocation) (*Result, error) {
			m, err := LoadMemory(inv.Env)
			if err != nil {
				return nil, err
			}
			if content := flatten(m); content != "" {
				return Info("Current memory content from %d file(s):\n\n---\n%s\n---", m.Count(), content), nil
			}
			return Info("Memory is currently empty."), nil
		},
	}
	refresh := &Command{
		Name:        "refresh",
		Description: "Refreshes the memory from the source.",
		Execute: func(_ context.Context, inv *Invocation) (*Result, error) {
			// Every task loads memory when it starts, so reloading here is
			// what the next task will see.
			m, err := LoadMemory(inv.Env)
			if err != nil {
				return nil, err
			}
			if content := flatten(m); content != "" {
				return Info("Memory reloaded successfully. Loaded %d characters from %d file(s)", len(content), m.Count()), nil
			}
			return Info("Memory reloaded successfully. No memory content found"), nil
		},
	}
	list := &Command{
		Name:        "list",
		Description: "Lists the paths of the GEMINI.md files in use.",
		Execute: func(_ context.Context, inv *Invocation) (*Result, error) {
			m, err := LoadMemory(inv.Env)
			if err != nil {
				return nil, err
			}
			paths := m.Paths()
			if len(paths) == 0 {
				return Info("No GEMINI.md files in use."), nil
			}
			return Info("There are %d GEMINI.md file(s) in use:\n\n%s", len(paths), strings.Join(paths, "\n")), nil
		},
	}
	add := &Command{
		Name:        "add",
		Description: "Add content to the memory.",
		Arguments:   []Argument{{Name: "fact", Description: "The fact to remember.", Required: true}},
		Execute: func(ctx context.Context, inv *Invocation) (*Result, error) {
			fact := strings.TrimSpace(strings.Join(inv.Args, " "))
			if fact == "" {
				return Error("Usage: /memory add <text to remember>"), nil
			}
			name := ""
			if st, err := config.Load(config.LoadOptions{Workspace: orHome(inv.Env), HomeDir: inv.Env.HomeDir}); err == nil && len(st.Context.FileNames) > 0 {
				name = st.Context.FileNames[0]
			}
			// The save_memory tool owns the format of the memory file, so
			// the command goes through it rather than writing on its own.
			t := builtin.NewSaveMemory(&builtin.Env{MemoryFile: home(inv.Env).MemoryPath(name)})
			call, err := t.Build(map[string]any{"fact": fact})
			if err != nil {
				return Error("%v", err), nil
			}
			res := call.Execute(ctx, nil)
			if res.Error != nil {
				return Error("%s", res.Display), nil
			}
			return Info("%s", res.Display), nil
		},
	}
	return &Command{
		Name:              "memory",
		Description:       "Manage memory.",
		SubCommands:       []*Command{show, refresh, list, add},
		RequiresWorkspace: true,
		Execute:           show.Execute,
	}
}

func orHome(env Env) string {
	if env.Workspace != "" {
		return env.Workspace
	}
	return home(env).UserDir
}

// InitPrompt is the prompt /init sends, Gemini CLI's text.
const InitPrompt = `
You are an AI agent that brings the power of Gemini directly into the terminal. Your task is to analyze the current directory and generate a comprehensive GEMINI.md file to be used as instructional context for future interactions.

**Analysis Process:**

1.  **Initial Exploration:**
    *   Start by listing the files and directories to get a high-level overview of the structure.
    *   Read the README file (e.g., ` + "`README.md`, `README.txt`" + `) if it exists. This is often the best place to start.

2.  **Iterative Deep Dive (up to 10 files):**
    *   Based on your initial findings, select a few files that seem most important (e.g., configuration files, main source files, documentation).
    *   Read them. As you learn more, refine your understanding and decide which files to read next. You don't need to decide all 10 files at once. Let your discoveries guide your exploration.

3.  **Identify Project Type:**
    *   **Code Project:** Look for clues like ` + "`package.json`, `requirements.txt`, `pom.xml`, `go.mod`, `Cargo.toml`, `build.gradle`, or a `src`" + ` directory. If you find them, this is likely a software project.
    *   **Non-Code Project:** If you don't find code-related files, this might be a directory for documentation, research papers, notes, or something else.

**GEMINI.md Content Generation:**

**For a Code Project:**

*   **Project Overview:** Write a clear and concise summary of the project's purpose, main technologies, and architecture.
*   **Building and Running:** Document the key commands for building, running, and testing the project. Infer these from the files you've read (e.g., ` + "`scripts` in `package.json`, `Makefile`" + `, etc.). If you can't find explicit commands, provide a placeholder with a TODO.
*   **Development Conventions:** Describe any coding styles, testing practices, or contribution guidelines you can infer from the codebase.

**For a Non-Code Project:**

*   **Directory Overview:** Describe the purpose and contents of the directory. What is it for? What kind of information does it hold?
*   **Key Files:** List the most important files and briefly explain what they contain.
*   **Usage:** Explain how the contents of this directory are intended to be used.

**Final Output:**

Write the complete content to the ` + "`GEMINI.md`" + ` file. The output must be well-formatted Markdown.
`

// Init is /init: with no GEMINI.md in the workspace it creates an empty
// one and asks the face to run InitPrompt, which fills it in.
func Init() *Command {
	return &Command{
		Name:              "init",
		Description:       "Analyzes the project and creates a tailored GEMINI.md file",
		RequiresWorkspace: true,
		Streaming:         true,
		Execute: func(_ context.Context, inv *Invocation) (*Result, error) {
			p := filepath.Join(inv.Env.Workspace, config.DefaultContextFileName)
			if _, err := os.Stat(p); err == nil {
				return Info("A GEMINI.md file already exists in this directory. No changes were made."), nil
			} else if !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("checking %s: %w", p, err)
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				return nil, err
			}
			// Edits run unasked (the file must be written) but shell
			// commands still ask: Gemini CLI's autoExecute would let a
			// prompt-injected README run anything.
			return &Result{Kind: ResultSubmitPrompt, Content: InitPrompt, Data: p, Mode: "auto_edit"}, nil
		},
	}
}
