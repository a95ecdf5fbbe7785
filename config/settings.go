package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// DefaultContextFileName is the context file Gemini CLI looks for when
// context.fileName is not set.
const DefaultContextFileName = "GEMINI.md"

// Scope names a settings layer.
type Scope string

// The settings layers, lowest precedence first.
const (
	ScopeSystemDefaults Scope = "SystemDefaults"
	ScopeUser           Scope = "User"
	ScopeWorkspace      Scope = "Workspace"
	ScopeSystem         Scope = "System"
)

// LoadOptions are the inputs of Load. Every field may be left zero.
type LoadOptions struct {
	// Workspace is the directory whose .gemini/settings.json is the
	// workspace layer; "" means the current directory.
	Workspace string
	// Env is the environment used for path overrides, trust overrides and
	// $VAR expansion; nil reads the process environment.
	Env LookupFunc
	// HomeDir stands in for the user's home directory; "" means
	// GEMINI_CLI_HOME or the OS home (see ResolveHome).
	HomeDir string
	// SystemDefaultsPath and SystemSettingsPath override the system layers'
	// files; "" means the environment overrides or platform defaults.
	SystemDefaultsPath string
	SystemSettingsPath string
	// TrustedFoldersPath overrides the trusted-folders file.
	TrustedFoldersPath string
	// IDETrust, when not nil, is the trust the connected IDE reports.
	IDETrust *bool
}

// LayerFile describes one settings file that took part in a Load.
type LayerFile struct {
	Scope Scope
	Path  string
	// Exists reports whether the file was found.
	Exists bool
	// Skipped says why an existing layer was left out of the merge ("" when
	// it was used): the workspace layer of an untrusted folder, or a
	// workspace that is the home directory.
	Skipped string
	// Raw is the layer's content after migration and $VAR expansion; do not
	// modify it.
	Raw map[string]any
}

// Settings is the merged result of the settings layers.
//
// The typed fields hold what the engine uses, with Gemini CLI's defaults
// filled in; everything else is reachable through Get. A value of the wrong
// type in a file leaves the typed field at its default and adds a warning.
type Settings struct {
	Model      ModelSettings
	General    GeneralSettings
	Context    ContextSettings
	Tools      ToolsSettings
	Security   SecuritySettings
	IDE        IDESettings
	MCP        MCPSettings
	MCPServers map[string]any // mcpServers, raw (name → server config)
	Providers  map[string]any // providers, raw (name → provider config)

	// Trust is the workspace's trust, decided from the non-workspace layers
	// (a workspace cannot vouch for itself).
	Trust TrustResult
	// Files lists the layers in precedence order, lowest first.
	Files []LayerFile
	// Warnings are problems that did not stop loading.
	Warnings []string

	merged map[string]any
}

// ModelSettings is the model group.
type ModelSettings struct {
	Name                 string  // model.name; "" means the built-in default
	MaxSessionTurns      int     // model.maxSessionTurns; -1 means unlimited
	CompressionThreshold float64 // model.compressionThreshold, fraction of the context window
	DisableLoopDetection bool    // model.disableLoopDetection
	SkipNextSpeakerCheck bool    // model.skipNextSpeakerCheck (default true)
	// MaxBudgetUSD (model.maxBudgetUsd, Castor's own) caps a session's
	// spending in US dollars, as --max-budget-usd; 0 means none.
	MaxBudgetUSD float64
	// DailyBudgetUSD (model.dailyBudgetUsd, Castor's own) caps a day's
	// spending across the project's sessions; 0 means none.
	DailyBudgetUSD float64
}

// GeneralSettings is the general group.
type GeneralSettings struct {
	DefaultApprovalMode string // general.defaultApprovalMode: default, auto_edit, yolo or plan
	MaxAttempts         int    // general.maxAttempts, model retries
	PreferredEditor     string // general.preferredEditor
	Checkpointing       bool   // general.checkpointing.enabled
}

// ContextSettings is the context group.
type ContextSettings struct {
	// FileNames is context.fileName as a list (a single string becomes a
	// one-element list); default ["GEMINI.md"].
	FileNames                        []string
	IncludeDirectories               []string // context.includeDirectories
	IncludeDirectoryTree             bool     // context.includeDirectoryTree (default true)
	DiscoveryMaxDirs                 int      // context.discoveryMaxDirs (default 200)
	LoadMemoryFromIncludeDirectories bool     // context.loadMemoryFromIncludeDirectories
	MemoryBoundaryMarkers            []string // context.memoryBoundaryMarkers (default [".git"])
	ImportFormat                     string   // context.importFormat: "tree" (default) or "flat"
	FileFiltering                    FileFilteringSettings
}

// FileFilteringSettings is context.fileFiltering.
type FileFilteringSettings struct {
	RespectGitIgnore      bool     // default true
	RespectGeminiIgnore   bool     // default true
	CustomIgnoreFilePaths []string // extra ignore files
}

// ToolsSettings is the tools group. Nil lists mean "not set", which differs
// from an empty list for Core.
type ToolsSettings struct {
	Core                        []string // tools.core: allow-list of built-in tools
	Exclude                     []string // tools.exclude
	Allowed                     []string // tools.allowed: tools that skip confirmation
	UseRipgrep                  bool     // tools.useRipgrep (default true)
	TruncateToolOutputThreshold int      // tools.truncateToolOutputThreshold (default 40000)
	Sandbox                     any      // tools.sandbox, raw (bool, string or object)
}

// SecuritySettings is the security group.
type SecuritySettings struct {
	Auth        AuthSettings
	FolderTrust bool // security.folderTrust.enabled (default true)
}

// AuthSettings is security.auth.
type AuthSettings struct {
	SelectedType string // security.auth.selectedType
	EnforcedType string // security.auth.enforcedType
	UseExternal  bool   // security.auth.useExternal
}

// IDESettings is the ide group.
type IDESettings struct {
	Enabled bool // ide.enabled
}

// MCPSettings is the mcp group, consolidated across layers the way Gemini
// CLI applies it: Allowed is the intersection of every layer's mcp.allowed
// (nil when no layer sets one), Excluded the concatenation of every
// layer's mcp.excluded.
type MCPSettings struct {
	Allowed       []string
	Excluded      []string
	ServerCommand string // mcp.serverCommand
}

// defaults is the part of Gemini CLI's settings schema defaults that castor
// types; it is the lowest layer of every merge, so Get sees these values too.
func defaults() map[string]any {
	return map[string]any{
		"general": map[string]any{
			"defaultApprovalMode": "default",
			"maxAttempts":         float64(10),
			"checkpointing":       map[string]any{"enabled": false},
		},
		"model": map[string]any{
			"maxSessionTurns":      float64(-1),
			"compressionThreshold": 0.5,
			"disableLoopDetection": false,
			"skipNextSpeakerCheck": true,
		},
		"context": map[string]any{
			"includeDirectoryTree":             true,
			"discoveryMaxDirs":                 float64(200),
			"memoryBoundaryMarkers":            []any{".git"},
			"includeDirectories":               []any{},
			"loadMemoryFromIncludeDirectories": false,
			"fileFiltering": map[string]any{
				"respectGitIgnore":      true,
				"respectGeminiIgnore":   true,
				"customIgnoreFilePaths": []any{},
			},
		},
		"tools": map[string]any{
			"useRipgrep":                  true,
			"truncateToolOutputThreshold": float64(40000),
		},
		"security": map[string]any{
			"folderTrust": map[string]any{"enabled": true},
		},
		"ide":      map[string]any{"enabled": false},
		"advanced": map[string]any{"excludedEnvVars": []any{"DEBUG", "DEBUG_MODE"}},
	}
}

// ConfigError gathers the files that stopped a Load. The CLI exits with
// code 52 on it.
type ConfigError struct {
	Files []*FileError
}

// Error lists every bad file, then Gemini CLI's closing advice.
func (e *ConfigError) Error() string {
	var b strings.Builder
	for _, f := range e.Files {
		b.WriteString(f.Error())
		b.WriteByte('\n')
	}
	b.WriteString("Please fix the configuration file(s) and try again.")
	return b.String()
}

// Unwrap returns the individual file errors.
func (e *ConfigError) Unwrap() []error {
	out := make([]error, len(e.Files))
	for i, f := range e.Files {
		out[i] = f
	}
	return out
}

// Load reads and merges the settings layers, lowest precedence first:
// system defaults, user (~/.gemini/settings.json), workspace
// (<workspace>/.gemini/settings.json) and system overrides. Objects merge
// key by key; arrays and scalars are replaced, except for the few keys
// Gemini CLI concatenates or unions (context.includeDirectories,
// tools.exclude, hooks, ...) and mcpServers, whose servers replace each
// other by name.
//
// The workspace layer is skipped when the workspace is the home directory
// (it would be the user file again) and when the workspace is not trusted;
// trust is decided from the other layers, GEMINI_CLI_TRUST_WORKSPACE,
// opts.IDETrust and trustedFolders.json (see IsTrusted).
//
// Files may contain comments and trailing commas, flat V1 keys (migrated in
// memory, never rewritten) and $VAR, ${VAR} or ${VAR:-default} in string
// values. A file that cannot be read or parsed makes Load fail with a
// *ConfigError naming every such file, with line and column for syntax
// errors.
func Load(opts LoadOptions) (*Settings, error) {
	env := orOS(opts.Env)
	home := ResolveHome(env)
	if opts.HomeDir != "" {
		home = HomeAt(opts.HomeDir)
	}
	ws := opts.Workspace
	if ws == "" {
		ws, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(ws); err == nil {
		ws = abs
	}
	sysPath := opts.SystemSettingsPath
	if sysPath == "" {
		sysPath = SystemSettingsPath(env)
	}
	defPath := opts.SystemDefaultsPath
	if defPath == "" {
		if p := getenv(env, EnvSystemDefaults); p != "" {
			defPath = p
		} else {
			defPath = filepath.Join(filepath.Dir(sysPath), "system-defaults.json")
		}
	}

	s := &Settings{}
	load := func(scope Scope, path string) (LayerFile, *FileError) {
		lf := LayerFile{Scope: scope, Path: path, Raw: map[string]any{}}
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return lf, nil
		}
		lf.Exists = true
		if err == nil {
			var obj map[string]any
			if obj, err = parseSettings(data); err == nil {
				lf.Raw = expandTree(obj, env).(map[string]any)
				if err = validateSettings(lf.Raw); err == nil {
					return lf, nil
				}
			}
		}
		var fe *FileError
		if errors.As(err, &fe) {
			fe.Path = path
		} else {
			fe = &FileError{Path: path, Err: err}
		}
		return lf, fe
	}

	var bad []*FileError
	keep := func(lf LayerFile, fe *FileError) LayerFile {
		if fe != nil {
			bad = append(bad, fe)
		}
		return lf
	}
	sysDefaults := keep(load(ScopeSystemDefaults, defPath))
	user := keep(load(ScopeUser, home.SettingsPath()))
	system := keep(load(ScopeSystem, sysPath))
	wsFile := LayerFile{Scope: ScopeWorkspace, Path: WorkspaceSettingsPath(ws), Raw: map[string]any{}}
	var wsErr *FileError
	sameAsHome := sameDir(ws, home.UserDir)
	if sameAsHome {
		if _, err := os.Stat(wsFile.Path); err == nil {
			wsFile.Exists = true
			wsFile.Skipped = "the workspace is the home directory"
		}
	} else {
		wsFile, wsErr = load(ScopeWorkspace, wsFile.Path)
	}
	if len(bad) > 0 {
		if wsErr != nil {
			bad = append(bad, wsErr)
		}
		return nil, &ConfigError{Files: bad}
	}

	// A workspace must not be able to declare itself trusted, so trust is
	// decided before its layer is looked at.
	pre := mergeLayers(sysDefaults.Raw, user.Raw, system.Raw)
	// Anything but an explicit false keeps folder trust on: a typo must not
	// open the door.
	folderTrust, isBool := lookupPath(pre, "security.folderTrust.enabled").(bool)
	if !isBool {
		folderTrust = true
	}
	trust, err := IsTrusted(TrustOptions{
		Path:               ws,
		FolderTrustEnabled: folderTrust,
		TrustedFoldersPath: opts.TrustedFoldersPath,
		Home:               home,
		Env:                env,
		IDETrust:           opts.IDETrust,
	})
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			return nil, &ConfigError{Files: []*FileError{fe}}
		}
		return nil, err
	}
	// Unlike Gemini CLI, a broken settings file in a folder we will not read
	// anyway only warns: an untrusted checkout should not be able to stop
	// the CLI.
	if wsErr != nil {
		if trust.IsTrusted() {
			return nil, &ConfigError{Files: []*FileError{wsErr}}
		}
		s.Warnings = append(s.Warnings, wsErr.Error()+" (ignored: the workspace is not trusted)")
	}
	s.Trust = trust
	wsRaw := wsFile.Raw
	if !trust.IsTrusted() && !sameAsHome {
		wsRaw = map[string]any{}
		if wsFile.Exists {
			wsFile.Skipped = "the workspace is not trusted"
		}
	}
	s.Files = []LayerFile{sysDefaults, user, wsFile, system}
	s.merged = mergeLayers(sysDefaults.Raw, user.Raw, wsRaw, system.Raw)
	// Gemini CLI takes admin settings only from its server, never from files.
	delete(s.merged, "admin")

	allowLists, excluded := [][]string{}, []string{}
	for _, raw := range []map[string]any{system.Raw, sysDefaults.Raw, user.Raw, wsRaw} {
		if a, ok := lookupPath(raw, "mcp.allowed").([]any); ok {
			allowLists = append(allowLists, toStrings(a))
		}
		if x, ok := lookupPath(raw, "mcp.excluded").([]any); ok {
			excluded = append(excluded, toStrings(x)...)
		}
	}
	s.MCP.Allowed = intersectFold(allowLists)
	s.MCP.Excluded = excluded
	s.fillTyped()
	return s, nil
}

// mergeLayers merges layers over the schema defaults.
func mergeLayers(layers ...map[string]any) map[string]any {
	out := defaults()
	for _, l := range layers {
		mergeInto(out, l, nil)
	}
	return out
}

// sameDir reports whether a and b are the same directory once symlinks are
// resolved.
func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return normalizePath(realPathOr(a)) == normalizePath(realPathOr(b))
}

// intersectFold keeps the items of the first list present in every other
// list, comparing trimmed and case-folded; nil when there are no lists.
func intersectFold(lists [][]string) []string {
	if len(lists) == 0 {
		return nil
	}
	out := append([]string{}, lists[0]...)
	for _, l := range lists[1:] {
		set := map[string]bool{}
		for _, s := range l {
			set[strings.ToLower(strings.TrimSpace(s))] = true
		}
		kept := out[:0]
		for _, s := range out {
			if set[strings.ToLower(strings.TrimSpace(s))] {
				kept = append(kept, s)
			}
		}
		out = kept
	}
	return out
}

// Get returns the merged value at a dotted key ("model.name"), with schema
// defaults for the keys castor types. Objects come back as map[string]any,
// arrays as []any, numbers as float64; they are shared, do not modify them.
func (s *Settings) Get(key string) (any, bool) {
	if s == nil {
		return nil, false
	}
	return lookupPathOK(s.merged, strings.Split(key, "."))
}

// GetString returns the string at key, if there is one.
func (s *Settings) GetString(key string) (string, bool) {
	v, _ := s.Get(key)
	str, ok := v.(string)
	return str, ok
}

// GetBool returns the boolean at key, if there is one.
func (s *Settings) GetBool(key string) (bool, bool) {
	v, _ := s.Get(key)
	b, ok := v.(bool)
	return b, ok
}

// GetNumber returns the number at key, if there is one.
func (s *Settings) GetNumber(key string) (float64, bool) {
	v, _ := s.Get(key)
	n, ok := v.(float64)
	return n, ok
}

// GetStrings returns the array of strings at key, if there is one; a
// single string counts as a one-element list, as for context.fileName.
func (s *Settings) GetStrings(key string) ([]string, bool) {
	v, _ := s.Get(key)
	switch t := v.(type) {
	case string:
		return []string{t}, true
	case []any:
		return toStrings(t), true
	}
	return nil, false
}

// Raw returns a deep copy of the whole merged settings tree.
func (s *Settings) Raw() map[string]any {
	if s == nil {
		return map[string]any{}
	}
	return deepCopy(s.merged).(map[string]any)
}

// lookupPath returns the value at a dotted path, or nil.
func lookupPath(m map[string]any, key string) any {
	v, _ := lookupPathOK(m, strings.Split(key, "."))
	return v
}

// lookupPathOK walks path through nested objects.
func lookupPathOK(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, k := range path {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// toStrings keeps the string elements of a.
func toStrings(a []any) []string {
	out := make([]string, 0, len(a))
	for _, e := range a {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// fillTyped copies the merged tree into the typed fields.
func (s *Settings) fillTyped() {
	t := typer{s: s}
	s.Model = ModelSettings{
		Name:                 t.str("model.name", ""),
		MaxSessionTurns:      t.int("model.maxSessionTurns", -1),
		CompressionThreshold: t.num("model.compressionThreshold", 0.5),
		DisableLoopDetection: t.bool("model.disableLoopDetection", false),
		SkipNextSpeakerCheck: t.bool("model.skipNextSpeakerCheck", true),
		MaxBudgetUSD:         t.num("model.maxBudgetUsd", 0),
		DailyBudgetUSD:       t.num("model.dailyBudgetUsd", 0),
	}
	s.General = GeneralSettings{
		DefaultApprovalMode: t.str("general.defaultApprovalMode", "default"),
		MaxAttempts:         t.int("general.maxAttempts", 10),
		PreferredEditor:     t.str("general.preferredEditor", ""),
		Checkpointing:       t.bool("general.checkpointing.enabled", false),
	}
	names := t.strs("context.fileName")
	var cleaned []string
	seen := map[string]bool{}
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" && !seen[n] {
			seen[n] = true
			cleaned = append(cleaned, n)
		}
	}
	if len(cleaned) == 0 {
		cleaned = []string{DefaultContextFileName}
	}
	s.Context = ContextSettings{
		FileNames:                        cleaned,
		IncludeDirectories:               t.strs("context.includeDirectories"),
		IncludeDirectoryTree:             t.bool("context.includeDirectoryTree", true),
		DiscoveryMaxDirs:                 t.int("context.discoveryMaxDirs", 200),
		LoadMemoryFromIncludeDirectories: t.bool("context.loadMemoryFromIncludeDirectories", false),
		MemoryBoundaryMarkers:            t.strs("context.memoryBoundaryMarkers"),
		ImportFormat:                     t.str("context.importFormat", "tree"),
		FileFiltering: FileFilteringSettings{
			RespectGitIgnore:      t.bool("context.fileFiltering.respectGitIgnore", true),
			RespectGeminiIgnore:   t.bool("context.fileFiltering.respectGeminiIgnore", true),
			CustomIgnoreFilePaths: t.strs("context.fileFiltering.customIgnoreFilePaths"),
		},
	}
	sandbox, _ := s.Get("tools.sandbox")
	s.Tools = ToolsSettings{
		Core:                        t.strs("tools.core"),
		Exclude:                     t.strs("tools.exclude"),
		Allowed:                     t.strs("tools.allowed"),
		UseRipgrep:                  t.bool("tools.useRipgrep", true),
		TruncateToolOutputThreshold: t.int("tools.truncateToolOutputThreshold", 40000),
		Sandbox:                     sandbox,
	}
	s.Security = SecuritySettings{
		Auth: AuthSettings{
			SelectedType: t.str("security.auth.selectedType", ""),
			EnforcedType: t.str("security.auth.enforcedType", ""),
			UseExternal:  t.bool("security.auth.useExternal", false),
		},
		FolderTrust: t.bool("security.folderTrust.enabled", true),
	}
	s.IDE = IDESettings{Enabled: t.bool("ide.enabled", false)}
	s.MCP.ServerCommand = t.str("mcp.serverCommand", "")
	if providers, ok := s.merged["providers"].(map[string]any); ok {
		s.Providers = providers
	} else if v, ok := s.merged["providers"]; ok && v != nil {
		t.warn("providers", "an object")
	}
	if servers, ok := s.merged["mcpServers"].(map[string]any); ok {
		s.MCPServers = servers
	} else {
		s.MCPServers = map[string]any{}
		if v, ok := s.merged["mcpServers"]; ok && v != nil {
			t.warn("mcpServers", "an object")
		}
	}
}

// typer reads typed values out of the merged tree, warning about values of
// the wrong type.
type typer struct{ s *Settings }

func (t typer) warn(key, want string) {
	v, _ := t.s.Get(key)
	t.s.Warnings = append(t.s.Warnings, fmt.Sprintf("%s: %s should be %s, got %s; using the default", t.s.whereIs(key), key, want, jsString(v)))
}

func (t typer) str(key, def string) string {
	v, ok := t.s.Get(key)
	if !ok || v == nil {
		return def
	}
	if s, ok := v.(string); ok {
		return s
	}
	t.warn(key, "a string")
	return def
}

func (t typer) bool(key string, def bool) bool {
	v, ok := t.s.Get(key)
	if !ok || v == nil {
		return def
	}
	if b, ok := v.(bool); ok {
		return b
	}
	t.warn(key, "a boolean")
	return def
}

func (t typer) num(key string, def float64) float64 {
	v, ok := t.s.Get(key)
	if !ok || v == nil {
		return def
	}
	if n, ok := v.(float64); ok {
		return n
	}
	t.warn(key, "a number")
	return def
}

func (t typer) int(key string, def int) int {
	n := t.num(key, float64(def))
	if n != math.Trunc(n) || n > math.MaxInt32 || n < math.MinInt32 {
		t.warn(key, "an integer")
		return def
	}
	return int(n)
}

// strs returns a list setting; a lone string counts as a list of one. Not
// set gives nil.
func (t typer) strs(key string) []string {
	v, ok := t.s.Get(key)
	if !ok || v == nil {
		return nil
	}
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := toStrings(x)
		if len(out) != len(x) {
			t.s.Warnings = append(t.s.Warnings, fmt.Sprintf("%s: %s should hold only strings; other values ignored", t.s.whereIs(key), key))
		}
		return out
	}
	t.warn(key, "a list of strings")
	return nil
}
