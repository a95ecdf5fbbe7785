package setup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/hooks"
)

// Folder trust in the faces that can ask (Gemini CLI's FolderTrustDialog):
// a workspace that no rule in trustedFolders.json, no IDE and no
// environment variable decides is asked about before anything is read
// from it, with a list of what it would run. The answer is saved in
// Gemini CLI's format; a folder not trusted runs in safe mode (its
// settings, hooks, MCP servers, commands, skills, agents and GEMINI.md
// left out, as config and the loaders do for an untrusted workspace).

// TrustQuestion is what a face shows when it asks whether to trust the
// workspace.
type TrustQuestion struct {
	// Folder is the workspace, absolute.
	Folder string
	// Found is what the folder would bring once trusted.
	Found FolderDiscovery
}

// FolderDiscovery lists what a folder's .gemini directory would load and
// run once the folder is trusted, read without running or trusting any of
// it (Gemini CLI's FolderTrustDiscoveryService, with the hooks' events
// and the MCP servers' commands added, which is what a user needs to
// judge them).
type FolderDiscovery struct {
	// Commands are custom commands (.gemini/commands/**/*.toml) by name;
	// those that run shell commands say so.
	Commands []string
	// MCPServers are "name: command args" or "name: URL".
	MCPServers []string
	// Hooks are "Event: command".
	Hooks []string
	// Skills and Agents are by name; Extensions are the folder's own
	// extensions (.gemini/extensions), by directory name.
	Skills, Agents, Extensions []string
	// Settings are the workspace settings' other top-level keys.
	Settings []string
	// Warnings name the settings that loosen safety.
	Warnings []string
	// Errors are what could not be read.
	Errors []string
}

// DiscoveryGroup is one labelled list of a FolderDiscovery.
type DiscoveryGroup struct {
	Label string
	Items []string
}

// Groups returns the non-empty lists in the order Gemini CLI shows them.
func (d FolderDiscovery) Groups() []DiscoveryGroup {
	all := []DiscoveryGroup{
		{"Commands", d.Commands},
		{"MCP Servers", d.MCPServers},
		{"Hooks", d.Hooks},
		{"Skills", d.Skills},
		{"Agents", d.Agents},
		{"Extensions", d.Extensions},
		{"Setting overrides", d.Settings},
	}
	var out []DiscoveryGroup
	for _, g := range all {
		if len(g.Items) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// Empty reports whether the folder brings nothing at all.
func (d FolderDiscovery) Empty() bool {
	return len(d.Groups()) == 0 && len(d.Warnings) == 0 && len(d.Errors) == 0
}

// ErrTrustNotGiven ends a start-up whose trust question was left without
// an answer (Esc in the terminal): nothing from the folder ran.
var ErrTrustNotGiven = errors.New("A folder trust level must be selected to continue.")

// DiscoverFolder reads what workspace's .gemini directory would bring.
// It only reads files: nothing found is run, expanded or trusted.
func DiscoverFolder(workspace string) FolderDiscovery {
	var d FolderDiscovery
	dir := filepath.Join(workspace, config.GeminiDirName)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return d
	}
	d.discoverSettings(config.WorkspaceSettingsPath(workspace))
	d.Commands = discoverCommands(filepath.Join(dir, "commands"), &d.Errors)
	d.Skills = subdirsWith(filepath.Join(dir, "skills"), "SKILL.md")
	d.Extensions = subdirsWith(filepath.Join(dir, "extensions"), "gemini-extension.json")
	if ents, err := os.ReadDir(filepath.Join(dir, "agents")); err == nil {
		for _, e := range ents {
			if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".md") && !strings.HasPrefix(n, "_") {
				d.Agents = append(d.Agents, strings.TrimSuffix(n, ".md"))
			}
		}
	}
	if len(d.Agents) > 0 {
		d.Warnings = append(d.Warnings, "This project contains custom agents.")
	}
	return d
}

// discoverSettings lists the workspace settings' MCP servers, hooks,
// other keys and the values that loosen safety.
func (d *FolderDiscovery) discoverSettings(path string) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		d.Errors = append(d.Errors, fmt.Sprintf("%s: %v", path, err))
		return
	}
	v, err := config.ParseJSONC(data)
	obj, ok := v.(map[string]any)
	if err != nil || !ok {
		if err == nil {
			err = errors.New("not a JSON object")
		}
		d.Errors = append(d.Errors, fmt.Sprintf("%s: %v", path, err))
		return
	}
	for k := range obj {
		if k != "mcpServers" && k != "hooks" && k != "$schema" {
			d.Settings = append(d.Settings, k)
		}
	}
	sort.Strings(d.Settings)
	if servers, ok := obj["mcpServers"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(servers)) {
			d.MCPServers = append(d.MCPServers, name+": "+mcpTarget(servers[name]))
		}
	}
	if raw, ok := obj["hooks"]; ok {
		list, _ := hooks.Parse(raw, hooks.SourceProject, path+": hooks")
		for _, h := range list {
			d.Hooks = append(d.Hooks, fmt.Sprintf("%s: %s", h.Event, h.Command))
		}
	}
	d.Warnings = append(d.Warnings, looseningWarnings(obj)...)
}

// looseningWarnings are Gemini CLI's security warnings of a workspace
// settings file, with the approval mode added: a folder that turns on
// YOLO runs every tool call unasked.
func looseningWarnings(obj map[string]any) []string {
	get := func(path ...string) any {
		var v any = obj
		for _, p := range path {
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[p]
		}
		return v
	}
	var out []string
	if mode, _ := get("general", "defaultApprovalMode").(string); mode != "" && mode != "default" && mode != "plan" {
		out = append(out, fmt.Sprintf("This project sets the approval mode to %s (general.defaultApprovalMode).", mode))
	}
	if allowed, _ := get("tools", "allowed").([]any); len(allowed) > 0 {
		out = append(out, fmt.Sprintf("This project auto-approves certain tools (tools.allowed: %s).", joinAny(allowed)))
	}
	if on, ok := get("security", "folderTrust", "enabled").(bool); ok && !on {
		out = append(out, "This project attempts to disable folder trust (security.folderTrust.enabled).")
	}
	if sb, ok := get("tools", "sandbox").(bool); ok && !sb {
		out = append(out, "This project disables the security sandbox (tools.sandbox).")
	}
	return out
}

// mcpTarget is what an MCP server entry starts or reaches.
func mcpTarget(v any) string {
	m, _ := v.(map[string]any)
	if cmd, _ := m["command"].(string); cmd != "" {
		args, _ := m["args"].([]any)
		if len(args) == 0 {
			return cmd
		}
		return cmd + " " + joinAny(args)
	}
	for _, k := range []string{"httpUrl", "url"} {
		if u, _ := m[k].(string); u != "" {
			return u
		}
	}
	return "(no command or URL)"
}

func joinAny(vs []any) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, " ")
}

// discoverCommands lists the .toml commands under dir as Gemini CLI names
// them (sub/dir/name.toml is sub:dir:name).
func discoverCommands(dir string, errs *[]string) []string {
	var out []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".toml") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		name := strings.ReplaceAll(filepath.ToSlash(strings.TrimSuffix(rel, ".toml")), "/", ":")
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), "!{") {
			name += " (runs shell commands)"
		}
		out = append(out, name)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		*errs = append(*errs, fmt.Sprintf("Failed to discover commands: %v", err))
	}
	return out
}

// subdirsWith lists the directories of dir that hold a file named marker.
func subdirsWith(dir, marker string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			if fi, err := os.Stat(filepath.Join(dir, e.Name(), marker)); err == nil && !fi.IsDir() {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

// askTrust asks o.AskTrust about a workspace that nothing decided, saves
// a given answer to trustedFolders.json, and reports whether the folder
// is now trusted. An unanswered question ("" without error) leaves the
// folder untrusted for this session only.
func askTrust(ctx context.Context, o Options, wd string, env *Env, st *config.Settings) (bool, error) {
	level, err := o.AskTrust(ctx, TrustQuestion{Folder: wd, Found: DiscoverFolder(wd)})
	if err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if level == "" {
		return false, nil
	}
	if !level.Valid() {
		return false, fmt.Errorf("invalid trust level %q", level)
	}
	home := config.ResolveHome(env.Lookup)
	if o.HomeDir != "" {
		home = config.HomeAt(o.HomeDir)
	}
	if _, err := SaveTrust(home, env.Lookup, wd, level); err != nil {
		return false, &ConfigError{Err: err}
	}
	trusted := level != config.DoNotTrust
	st.Trust.Source = config.TrustSourceFile
	st.Trust.State = config.Untrusted
	if trusted {
		st.Trust.State = config.Trusted
	}
	return trusted, nil
}

// SaveTrust records level for folder in home's trustedFolders.json
// (GEMINI_CLI_TRUSTED_FOLDERS_PATH, read through lookup, names another
// file), in Gemini CLI's format, and returns the file.
func SaveTrust(home config.Home, lookup config.LookupFunc, folder string, level config.TrustLevel) (string, error) {
	path := home.TrustedFoldersPath(lookup)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return path, fmt.Errorf("%s: cannot save the folder's trust: %w", path, err)
	}
	tf, err := config.LoadTrustedFolders(path)
	if err == nil {
		err = tf.Set(folder, level)
	}
	if err != nil {
		return path, fmt.Errorf("%s: cannot save the folder's trust: %w", path, err)
	}
	return path, nil
}

// trustLevels are the answers of a trust question, for faces that list
// them.
var trustLevels = []config.TrustLevel{config.TrustFolder, config.TrustParent, config.DoNotTrust}

// TrustChoices returns Gemini CLI's three answers for folder, labelled as
// its dialog labels them: "Trust folder (name)", "Trust parent folder
// (parent)", "Don't trust".
func TrustChoices(folder string) ([]string, []config.TrustLevel) {
	labels := []string{
		fmt.Sprintf("Trust folder (%s)", filepath.Base(folder)),
		fmt.Sprintf("Trust parent folder (%s)", filepath.Base(filepath.Dir(folder))),
		"Don't trust",
	}
	return labels, slices.Clone(trustLevels)
}

// UntrustedNotice is what a face says about a session running in an
// untrusted folder (Gemini CLI's start-up message), with how to change it
// in that face.
func UntrustedNotice(howToChange string) string {
	return "This folder is untrusted, project settings, hooks, MCPs, and GEMINI.md files will not be applied for this folder.\n" + howToChange
}
