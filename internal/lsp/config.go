package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// ServerConfig is one language server: how to run it and which files it
// serves.
type ServerConfig struct {
	// Name is the key under lsp.servers (the defaults' names: gopls,
	// typescript, pyright, rust-analyzer, clangd).
	Name    string
	Command string
	Args    []string
	// Extensions are the file name endings it serves (".go").
	Extensions []string
	// RootMarkers are file names whose folder is a root: the nearest one
	// above a file is the root of the server that serves it.
	RootMarkers []string
	// InitializationOptions are sent as is in initialize.
	InitializationOptions any
	// Env is added to the server's environment.
	Env map[string]string
	// Configured is true for servers the user's settings name; a default
	// one is offered only when its program is on PATH and the workspace
	// has one of its root markers.
	Configured bool
}

// Defaults are the servers Castor runs when they are on PATH.
func Defaults() []ServerConfig {
	return []ServerConfig{
		{Name: "gopls", Command: "gopls", Extensions: []string{".go"}, RootMarkers: []string{"go.work", "go.mod"}},
		{Name: "typescript", Command: "typescript-language-server", Args: []string{"--stdio"},
			Extensions:  []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"}},
		{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Extensions: []string{".py", ".pyi"},
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}},
		{Name: "rust-analyzer", Command: "rust-analyzer", Extensions: []string{".rs"}, RootMarkers: []string{"Cargo.toml"}},
		{Name: "clangd", Command: "clangd", Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"},
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd"}},
	}
}

// ParseServers reads lsp.servers (name → object) over the defaults: a
// name of a default changes the fields it sets, a new name adds a server
// (command and extensions required), "disabled": true drops one. file
// names the settings for errors.
func ParseServers(raw map[string]any) ([]ServerConfig, error) {
	servers := Defaults()
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		key := "lsp.servers." + name
		obj, ok := raw[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("key %q must be an object", key)
		}
		i := slices.IndexFunc(servers, func(s ServerConfig) bool { return s.Name == name })
		if i < 0 {
			servers = append(servers, ServerConfig{Name: name})
			i = len(servers) - 1
		}
		s := &servers[i]
		s.Configured = true
		if d, ok := obj["disabled"].(bool); ok && d {
			servers = slices.Delete(servers, i, i+1)
			continue
		}
		for k, v := range obj {
			var err error
			switch k {
			case "command":
				s.Command, err = str(v)
				if err == nil {
					// A command given without args keeps none of the default's.
					if _, has := obj["args"]; !has {
						s.Args = nil
					}
				}
			case "args":
				s.Args, err = strs(v)
			case "extensions", "fileTypes":
				s.Extensions, err = strs(v)
				for j, e := range s.Extensions {
					if !strings.HasPrefix(e, ".") {
						s.Extensions[j] = "." + e
					}
				}
			case "rootMarkers":
				s.RootMarkers, err = strs(v)
			case "initializationOptions":
				s.InitializationOptions = v
			case "env":
				m, ok := v.(map[string]any)
				if !ok {
					err = fmt.Errorf("must be an object of strings")
					break
				}
				s.Env = map[string]string{}
				for ek, ev := range m {
					sv, ok := ev.(string)
					if !ok {
						err = fmt.Errorf("%s must be a string", ek)
						break
					}
					s.Env[ek] = sv
				}
			case "disabled":
			default:
				err = fmt.Errorf("is not a language server setting (command, args, extensions, rootMarkers, initializationOptions, env, disabled)")
			}
			if err != nil {
				return nil, fmt.Errorf("key %q: %v", key+"."+k, err)
			}
		}
		if s.Command == "" {
			return nil, fmt.Errorf("key %q: a command is required", key+".command")
		}
		if len(s.Extensions) == 0 {
			return nil, fmt.Errorf("key %q: at least one file extension is required", key+".extensions")
		}
	}
	return servers, nil
}

func str(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("must be a string")
	}
	return s, nil
}

func strs(v any) ([]string, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("must be a list of strings")
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("must be a list of strings")
		}
		out = append(out, s)
	}
	return out, nil
}

// serves reports whether the server handles path.
func (cfg ServerConfig) serves(path string) bool {
	name := strings.ToLower(filepath.Base(path))
	return slices.ContainsFunc(cfg.Extensions, func(e string) bool { return strings.HasSuffix(name, strings.ToLower(e)) })
}

// languageID is the LSP language identifier of path.
func (cfg ServerConfig) languageID(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".go":
		return "go"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".py", ".pyi":
		return "python"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx":
		return "cpp"
	}
	return strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
}

// rootFor is the folder a server for path runs in: the nearest folder
// above path holding a root marker, else the workspace.
func (cfg ServerConfig) rootFor(path, workspace string) string {
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if hasMarker(dir, cfg.RootMarkers) {
			return dir
		}
		if parent := filepath.Dir(dir); parent == dir {
			return workspace
		}
	}
}

func hasMarker(dir string, markers []string) bool {
	for _, m := range markers {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			return true
		}
	}
	return false
}

// inWorkspace reports whether the workspace has one of the server's root
// markers: in the folder, a folder directly under it, or a folder above it
// up to the repository's top (.git).
func (cfg ServerConfig) inWorkspace(workspace string) bool {
	if hasMarker(workspace, cfg.RootMarkers) {
		return true
	}
	if entries, err := os.ReadDir(workspace); err == nil {
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "node_modules" && hasMarker(filepath.Join(workspace, e.Name()), cfg.RootMarkers) {
				return true
			}
		}
	}
	for dir := workspace; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
		if hasMarker(dir, cfg.RootMarkers) {
			return true
		}
	}
}
