package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/castor-dev/castor/internal/extension/swap"
	"github.com/castor-dev/castor/internal/lazy"
)

// Extension files and folders, named as Gemini CLI names them.
const (
	// ExtensionManifestName is the manifest at the root of an extension.
	ExtensionManifestName = "gemini-extension.json"
	// ExtensionInstallMetadataName records where an installed extension
	// came from (and, for a linked one, where it lives).
	ExtensionInstallMetadataName = ".gemini-extension-install.json"
	// ExtensionEnablementFileName holds per-folder enable and disable
	// rules, under ~/.gemini/extensions.
	ExtensionEnablementFileName = "extension-enablement.json"
	// ExtensionSettingsFileName is the .env holding an extension's
	// settings values.
	ExtensionSettingsFileName = ".env"
)

// ExtensionSetting is one entry of a manifest's "settings": a value the
// user provides, stored in the extension's .env under EnvVar.
type ExtensionSetting struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	EnvVar      string `json:"envVar"`
	Sensitive   bool   `json:"sensitive,omitempty"`
}

// ExtensionManifest is a parsed gemini-extension.json.
type ExtensionManifest struct {
	Name        string
	Version     string
	Description string
	// MCPServers are the manifest's servers, raw as in settings.json.
	MCPServers map[string]any
	// ContextFileNames are contextFileName as a list; nil when absent.
	ContextFileNames []string
	// ExcludeTools are tools.exclude-style entries the extension adds.
	ExcludeTools []string
	Settings     []ExtensionSetting
	MigratedTo   string
	// PlanDirectory is plan.directory: where plan mode keeps its plans
	// when the user's settings name no general.plan.directory.
	PlanDirectory string
}

// ExtensionInstall is .gemini-extension-install.json.
type ExtensionInstall struct {
	// Source is the path or URL installed from (a linked extension's
	// folder).
	Source string `json:"source"`
	// Type is "local", "link", "git" or "github-release".
	Type       string `json:"type"`
	Ref        string `json:"ref,omitempty"`
	AutoUpdate bool   `json:"autoUpdate,omitempty"`
	// Commit is the commit a git install was cloned at, which the update
	// check compares with the ref's commit upstream (Castor's own field:
	// Gemini CLI keeps the clone's .git folder instead).
	Commit string `json:"commit,omitempty"`
}

// Extension is an installed extension as a session sees it.
type Extension struct {
	Name        string
	Version     string
	Description string
	// Path is the extension's folder: where its manifest, context files
	// and commands/, hooks/, skills/, agents/ and policies/ folders are
	// (for a linked extension, the linked folder).
	Path string
	// InstallDir is its folder under ~/.gemini/extensions ("" for an
	// extension given in code).
	InstallDir string
	// Install is the install metadata, nil when there is none.
	Install *ExtensionInstall
	// ContextFiles are the existing context files (absolute paths).
	ContextFiles []string
	// MCPServers are its MCP servers, variables resolved.
	MCPServers map[string]any
	// ExcludeTools are added to tools.exclude while it is active.
	ExcludeTools []string
	// PlanDirectory is the manifest's plan.directory ("" when absent).
	PlanDirectory string
	// Settings are the declared settings; Env holds the values from the
	// extension's .env files.
	Settings []ExtensionSetting
	Env      map[string]string
	// Active is false when the enablement rules or -e leave it off.
	Active bool
	// notes are LoadExtensions' warnings about its settings' storage.
	notes []string
}

// Dir returns one of the extension's conventional folders ("commands",
// "hooks", "skills", "agents", "policies") whether or not it exists.
func (e *Extension) Dir(name string) string { return filepath.Join(e.Path, name) }

// ServersWithSettings returns the extension's MCP servers, each given
// the values of the extension's settings as environment variables under
// its own "env" (which wins), as Gemini CLI starts an extension's stdio
// servers. MCPServers itself stays as the manifest says, so listings
// never show a setting's value.
func (e *Extension) ServersWithSettings() map[string]any {
	if len(e.Env) == 0 || len(e.MCPServers) == 0 {
		return e.MCPServers
	}
	out := make(map[string]any, len(e.MCPServers))
	for name, s := range e.MCPServers {
		m, ok := s.(map[string]any)
		if !ok {
			// Not an object: left for the MCP parser to report.
			out[name] = s
			continue
		}
		cp := make(map[string]any, len(m)+1)
		for k, v := range m {
			cp[k] = v
		}
		env := map[string]any{}
		for k, v := range e.Env {
			env[k] = v
		}
		switch own := m["env"].(type) {
		case map[string]any:
			for k, v := range own {
				env[k] = v
			}
		case map[string]string:
			for k, v := range own {
				env[k] = v
			}
		case nil:
		default:
			// A malformed "env" stays as written, for the parser's error.
			out[name] = s
			continue
		}
		cp["env"] = env
		out[name] = cp
	}
	return out
}

// ExtensionsDir is ~/.gemini/extensions for the .gemini directory dir.
func ExtensionsDir(geminiDir string) string { return filepath.Join(geminiDir, "extensions") }

var extensionNameRE = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9-]+$`) }}

// ValidExtensionName reports whether name is one Gemini CLI accepts:
// letters, digits and dashes.
func ValidExtensionName(name string) bool { return extensionNameRE.Get().MatchString(name) }

// ExtensionVars are the ${…} variables of a manifest.
func ExtensionVars(extensionPath, workspacePath string) map[string]string {
	sep := string(filepath.Separator)
	return map[string]string{"extensionPath": extensionPath, "workspacePath": workspacePath, "/": sep, "pathSeparator": sep}
}

var extensionVarRE = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\$\{(.*?)\}`) }}

// HydrateExtensionString replaces ${name} with vars[name]; an unknown
// name is left as written (it may be an environment variable reference).
func HydrateExtensionString(s string, vars map[string]string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return extensionVarRE.Get().ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vars[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

func hydrateTree(v any, f func(string) string) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case map[string]any:
		for k, e := range t {
			t[k] = hydrateTree(e, f)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = hydrateTree(e, f)
		}
		return t
	}
	return v
}

// ParseExtensionManifest parses a gemini-extension.json read from file.
// Strings get ${extensionPath}-style variables from vars, then $VAR
// references from env (the extension's settings, then lookup). Errors
// name the file and the key (or the line of a syntax error).
func ParseExtensionManifest(file string, data []byte, vars map[string]string, env map[string]string, lookup LookupFunc) (*ExtensionManifest, error) {
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: line %d: invalid JSON: %v", file, lineOf(data, se.Offset), err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: line %d: invalid JSON: unexpected end of file", file, lineOf(data, int64(len(data))))
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s: the manifest must be a JSON object", file)
		}
		return nil, fmt.Errorf("%s: invalid JSON: %v", file, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("%s: the manifest must be a JSON object", file)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: line %d: invalid JSON: unexpected data after the manifest object", file, lineOf(data, dec.InputOffset()))
	}
	hydrateTree(raw, func(s string) string {
		s = HydrateExtensionString(s, vars)
		return ExpandEnvVars(s, func(k string) (string, bool) {
			if v, ok := env[k]; ok {
				return v, true
			}
			if lookup != nil {
				return lookup(k)
			}
			return os.LookupEnv(k)
		})
	})
	m := &ExtensionManifest{}
	str := func(key string, dst *string) error {
		v, ok := raw[key]
		if !ok || v == nil {
			return nil
		}
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: key %q must be a string", file, key)
		}
		*dst = s
		return nil
	}
	strs := func(key string, v any, allowString bool) ([]string, error) {
		switch t := v.(type) {
		case nil:
			return nil, nil
		case string:
			if allowString {
				return []string{t}, nil
			}
		case []any:
			out := make([]string, 0, len(t))
			for i, e := range t {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("%s: key \"%s[%d]\" must be a string", file, key, i)
				}
				out = append(out, s)
			}
			return out, nil
		}
		if allowString {
			return nil, fmt.Errorf("%s: key %q must be a string or a list of strings", file, key)
		}
		return nil, fmt.Errorf("%s: key %q must be a list of strings", file, key)
	}
	for _, k := range []struct {
		key string
		dst *string
	}{{"name", &m.Name}, {"version", &m.Version}, {"description", &m.Description}, {"migratedTo", &m.MigratedTo}} {
		if err := str(k.key, k.dst); err != nil {
			return nil, err
		}
	}
	if m.Name == "" {
		return nil, fmt.Errorf("Invalid configuration in %s: missing \"name\"", file)
	}
	if m.Version == "" {
		return nil, fmt.Errorf("Invalid configuration in %s: missing \"version\"", file)
	}
	if !ValidExtensionName(m.Name) {
		return nil, fmt.Errorf("%s: key \"name\": invalid extension name %q: only letters (a-z, A-Z), numbers (0-9), and dashes (-) are allowed", file, m.Name)
	}
	var err error
	if m.ContextFileNames, err = strs("contextFileName", raw["contextFileName"], true); err != nil {
		return nil, err
	}
	if m.ExcludeTools, err = strs("excludeTools", raw["excludeTools"], false); err != nil {
		return nil, err
	}
	if v, ok := raw["plan"]; ok && v != nil {
		plan, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: key \"plan\" must be an object", file)
		}
		if d, ok := plan["directory"]; ok && d != nil {
			if m.PlanDirectory, ok = d.(string); !ok {
				return nil, fmt.Errorf("%s: key %q must be a string", file, "plan.directory")
			}
		}
	}
	if v, ok := raw["mcpServers"]; ok && v != nil {
		servers, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: key \"mcpServers\" must be an object", file)
		}
		for name, s := range servers {
			sm, ok := s.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: key \"mcpServers.%s\" must be an object", file, name)
			}
			// Gemini CLI never lets an extension mark its own server
			// trusted: its calls are confirmed like any other.
			delete(sm, "trust")
			numbersToFloats(sm)
		}
		m.MCPServers = servers
	}
	if v, ok := raw["settings"]; ok && v != nil {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: key \"settings\" must be a list", file)
		}
		for i, e := range list {
			o, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: key \"settings[%d]\" must be an object", file, i)
			}
			var s ExtensionSetting
			for _, f := range []struct {
				key string
				dst *string
			}{{"name", &s.Name}, {"description", &s.Description}, {"envVar", &s.EnvVar}} {
				if fv, ok := o[f.key]; ok && fv != nil {
					fs, ok := fv.(string)
					if !ok {
						return nil, fmt.Errorf("%s: key \"settings[%d].%s\" must be a string", file, i, f.key)
					}
					*f.dst = fs
				}
			}
			if sv, ok := o["sensitive"]; ok && sv != nil {
				b, ok := sv.(bool)
				if !ok {
					return nil, fmt.Errorf("%s: key \"settings[%d].sensitive\" must be true or false", file, i)
				}
				s.Sensitive = b
			}
			if s.Name == "" || s.EnvVar == "" {
				return nil, fmt.Errorf("%s: key \"settings[%d]\" needs a \"name\" and an \"envVar\"", file, i)
			}
			m.Settings = append(m.Settings, s)
		}
	}
	return m, nil
}

// numbersToFloats turns json.Number values back into float64, the type
// settings.json values have, so MCP server configs parse the same way.
func numbersToFloats(v any) any {
	switch t := v.(type) {
	case json.Number:
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = numbersToFloats(e)
		}
	case []any:
		for i, e := range t {
			t[i] = numbersToFloats(e)
		}
	}
	return v
}

func lineOf(data []byte, offset int64) int {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	return bytes.Count(data[:offset], []byte("\n")) + 1
}

// ExtensionsOptions say where and for whom extensions are loaded.
type ExtensionsOptions struct {
	// GeminiDir is the user's ~/.gemini.
	GeminiDir string
	// Workspace is the workspace root (the enablement rules are per
	// folder, and ${workspacePath} is it).
	Workspace string
	// Trusted is the workspace's trust: the workspace .env of extension
	// settings is read only when trusted.
	Trusted bool
	// Enabled is -e/--extensions: when non-empty only these are active
	// ("none" alone: none is).
	Enabled []string
	// Lookup resolves $VAR references after the extension's settings.
	Lookup LookupFunc
	// Settings, when set, apply security.allowedExtensions and
	// security.blockGitExtensions: an extension they refuse is left out
	// with Gemini CLI's warning, and a malformed allow-list loads none.
	Settings *Settings
}

// LoadExtensions loads the extensions installed under ~/.gemini/extensions,
// sorted by name, with their Active state. Gemini CLI 0.61 has no
// workspace extensions, so neither has Castor. A broken extension is
// skipped with a warning naming its file and key; an -e name that matches
// no extension is a warning too.
func LoadExtensions(o ExtensionsOptions) (exts []*Extension, warnings []string) {
	root := ExtensionsDir(o.GeminiDir)
	// An update a crash interrupted is finished or rolled back first, so
	// the extension is neither lost nor loaded twice.
	warnings = append(warnings, swap.RecoverAll(root)...)
	entries, err := os.ReadDir(root)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			warnings = append(warnings, fmt.Sprintf("reading %s: %v", root, err))
		}
		return nil, warnings
	}
	en := &Enablement{Path: filepath.Join(root, ExtensionEnablementFileName), Only: o.Enabled}
	rules, err := en.Read()
	if err != nil {
		warnings = append(warnings, err.Error())
	}
	var gate extensionGate
	if o.Settings != nil {
		if gate, err = o.Settings.extensionGate(); err != nil {
			// Fail closed: no pattern can be trusted to mean what the
			// admin wanted.
			return nil, append(warnings, err.Error())
		}
	}
	seen := map[string]bool{}
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || swap.Leftover(e.Name()) {
			continue
		}
		// The admin's rule comes before the manifest is even read. A
		// malformed metadata file is left to LoadExtension to report.
		if im, err := readInstallMetadata(dir); err == nil {
			if why := gate.refusal(dir, im); why != "" {
				warnings = append(warnings, why)
				continue
			}
		}
		ext, err := LoadExtension(dir, o)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("Skipping extension in %s: %v", dir, err))
			continue
		}
		if seen[ext.Name] {
			warnings = append(warnings, fmt.Sprintf("Skipping extension in %s: an extension named %s is already loaded", dir, ext.Name))
			continue
		}
		seen[ext.Name] = true
		for _, n := range ext.notes {
			if !slices.Contains(warnings, n) {
				warnings = append(warnings, n)
			}
		}
		ext.Active = en.enabled(rules, ext.Name, o.Workspace)
		exts = append(exts, ext)
	}
	sort.Slice(exts, func(i, j int) bool { return exts[i].Name < exts[j].Name })
	for _, n := range o.Enabled {
		if strings.EqualFold(n, "none") {
			continue
		}
		found := false
		for _, e := range exts {
			found = found || strings.EqualFold(e.Name, n)
		}
		if !found {
			warnings = append(warnings, "Extension not found: "+n)
		}
	}
	return exts, warnings
}

// LoadExtension loads the extension installed in dir (following a link
// recorded in its install metadata). Active is left false.
func LoadExtension(dir string, o ExtensionsOptions) (*Extension, error) {
	ext := &Extension{InstallDir: dir, Path: dir}
	if data, err := os.ReadFile(filepath.Join(dir, ExtensionInstallMetadataName)); err == nil {
		var im ExtensionInstall
		if err := json.Unmarshal(data, &im); err != nil {
			return nil, fmt.Errorf("%s: invalid JSON: %v", filepath.Join(dir, ExtensionInstallMetadataName), err)
		}
		ext.Install = &im
		if im.Type == "link" && im.Source != "" {
			ext.Path = im.Source
		}
	}
	manifest := filepath.Join(ext.Path, ExtensionManifestName)
	data, err := os.ReadFile(manifest)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("Configuration file not found at %s", manifest)
		}
		return nil, err
	}
	// The settings' values come from the extension's .env (user scope)
	// and, in a trusted workspace, the workspace's .env, which wins: the
	// name is needed first, so peek at it.
	var peek struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(data, &peek)
	env, plain := map[string]string{}, map[string]string{}
	if ValidExtensionName(peek.Name) {
		// Sensitive values live in Castor's secrets file, never a .env.
		env, plain, ext.notes = extensionEnv(peek.Name, ext.InstallDir, o)
	}
	m, err := ParseExtensionManifest(manifest, data, ExtensionVars(ext.Path, o.Workspace), env, o.Lookup)
	if err != nil {
		return nil, err
	}
	ext.Name, ext.Version, ext.Description = m.Name, m.Version, m.Description
	ext.MCPServers, ext.ExcludeTools, ext.Settings = m.MCPServers, m.ExcludeTools, m.Settings
	ext.PlanDirectory = m.PlanDirectory
	// Only declared settings reach the extension's servers and hooks.
	ext.Env = map[string]string{}
	for _, s := range m.Settings {
		if v, ok := env[s.EnvVar]; ok {
			ext.Env[s.EnvVar] = v
		}
	}
	ext.notes = append(ext.notes, plainSecretNotes(ext, plain)...)
	names := m.ContextFileNames
	if names == nil {
		names = []string{DefaultContextFileName}
	}
	for _, n := range names {
		p := filepath.Join(ext.Path, n)
		if rel, err := filepath.Rel(ext.Path, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s: key \"contextFileName\": invalid context file path %q: context files must be within the extension directory", manifest, n)
		}
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			ext.ContextFiles = append(ext.ContextFiles, p)
		}
	}
	return ext, nil
}

// readDotEnvFile reads a .env file; a missing or unreadable one is empty.
func readDotEnvFile(path string) map[string]string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, kv := range ParseDotEnv(data) {
		out[kv[0]] = kv[1]
	}
	return out
}

// ActiveExtensions returns the active ones of exts.
func ActiveExtensions(exts []*Extension) []*Extension {
	var out []*Extension
	for _, e := range exts {
		if e.Active {
			out = append(out, e)
		}
	}
	return out
}
