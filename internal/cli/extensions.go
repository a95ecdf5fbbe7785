package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/extension"
	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/internal/setup"
)

// newExtensionsCommand is `castor extensions list|install|uninstall|link|
// enable|disable|validate|update|new|config`, which manage ~/.gemini/extensions as `gemini
// extensions` does, in the same files and formats, so both tools share
// their extensions.
func newExtensionsCommand(ctx context.Context, stdio IO) *cobra.Command {
	cmd := commandGroup("extensions", "Manage Gemini CLI extensions")
	cmd.Aliases = []string{"extension"}
	var listFormat string
	list := &cobra.Command{
		Use:   "list",
		Short: "Lists installed extensions.",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return extList(stdio, listFormat)
		},
	}
	list.Flags().StringVarP(&listFormat, "output-format", "o", "text", "The format of the CLI output (text or json)")
	var ref string
	var consent, autoUpdate, skipSettings bool
	install := &cobra.Command{
		Use:   "install <source>",
		Short: "Installs an extension from a git repository URL or a local path.",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			in := newSettingPrompter(stdio)
			name, err := extInstall(ctx, stdio, args[0], ref, autoUpdate, false, consent, in)
			if err != nil || skipSettings {
				return err
			}
			return promptInstallSettings(stdio, in, name)
		},
	}
	install.Flags().BoolVar(&skipSettings, "skip-settings", false, "Skip the configuration of the extension's settings during install.")
	install.Flags().StringVar(&ref, "ref", "", "The git ref to install from.")
	install.Flags().BoolVar(&autoUpdate, "auto-update", false, "Enable auto-update for this extension.")
	install.Flags().BoolVar(&consent, "consent", false, "Acknowledge the security risks of installing an extension and skip the confirmation prompt.")
	link := &cobra.Command{
		Use:   "link <path>",
		Short: "Links an extension from a local path. Updates made to the local path will always be reflected.",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			in := newSettingPrompter(stdio)
			name, err := extInstall(ctx, stdio, args[0], "", false, true, consent, in)
			if err != nil || skipSettings {
				return err
			}
			return promptInstallSettings(stdio, in, name)
		},
	}
	link.Flags().BoolVar(&skipSettings, "skip-settings", false, "Skip the configuration of the extension's settings during install.")
	link.Flags().BoolVar(&consent, "consent", false, "Acknowledge the security risks of installing an extension and skip the confirmation prompt.")
	uninstall := &cobra.Command{
		Use:   "uninstall <names...>",
		Short: "Uninstalls one or more extensions.",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return extUninstall(stdio, args)
		},
	}
	var scope string
	enable := &cobra.Command{
		Use:   "enable [--scope] <name>",
		Short: "Enables an extension.",
		Args:  exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return extSetEnabled(stdio, args[0], scope, c.Flags().Changed("scope"), true)
		},
	}
	enable.Flags().StringVar(&scope, "scope", "user", "The scope to enable the extension in (user or workspace).")
	disable := &cobra.Command{
		Use:   "disable [--scope] <name>",
		Short: "Disables an extension.",
		Args:  exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return extSetEnabled(stdio, args[0], scope, true, false)
		},
	}
	disable.Flags().StringVar(&scope, "scope", "user", "The scope to disable the extension in (user or workspace).")
	validate := &cobra.Command{
		Use:   "validate <path>",
		Short: "Validates an extension from a local path.",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return extValidate(stdio, args[0])
		},
	}
	cmd.AddCommand(list, install, link, uninstall, enable, disable, validate)
	cmd.AddCommand(newExtensionsUpdateCommand(ctx, stdio), newExtensionsNewCommand(stdio), newExtensionsConfigCommand(stdio))
	return cmd
}

// extPlace is where the extension commands work: the user's .gemini
// folder and the current workspace with its trust.
type extPlace struct {
	home    config.Home
	wd      string
	trusted bool
	// settings hold the admin's security.allowedExtensions.
	settings *config.Settings
}

func currentExtPlace() (extPlace, error) {
	wd, err := os.Getwd()
	if err != nil {
		return extPlace{}, err
	}
	p := extPlace{home: config.ResolveHome(nil), wd: wd}
	if st, err := config.Load(config.LoadOptions{Workspace: wd}); err == nil {
		p.trusted = st.Trust.IsTrusted() || !st.Trust.FolderTrustEnabled
		p.settings = st
	}
	return p, nil
}

func (p extPlace) load() ([]*config.Extension, []string) {
	return config.LoadExtensions(config.ExtensionsOptions{GeminiDir: p.home.Dir, Workspace: p.wd, Trusted: p.trusted, Settings: p.settings})
}

func (p extPlace) enablement() *config.Enablement {
	return &config.Enablement{Path: filepath.Join(config.ExtensionsDir(p.home.Dir), config.ExtensionEnablementFileName)}
}

// extListEntry is one extension in `extensions list -o json`.
type extListEntry struct {
	Name         string                   `json:"name"`
	Version      string                   `json:"version"`
	Description  string                   `json:"description,omitempty"`
	Path         string                   `json:"path"`
	IsActive     bool                     `json:"isActive"`
	ContextFiles []string                 `json:"contextFiles"`
	MCPServers   map[string]any           `json:"mcpServers,omitempty"`
	ExcludeTools []string                 `json:"excludeTools,omitempty"`
	Install      *config.ExtensionInstall `json:"installMetadata,omitempty"`
}

func extList(stdio IO, format string) error {
	p, err := currentExtPlace()
	if err != nil {
		return err
	}
	exts, warnings := p.load()
	for _, w := range warnings {
		fmt.Fprintln(stdio.Stderr, "Warning: "+w)
	}
	switch format {
	case "json":
		entries := []extListEntry{}
		for _, e := range exts {
			entries = append(entries, extListEntry{Name: e.Name, Version: e.Version, Description: e.Description, Path: e.Path,
				IsActive: e.Active, ContextFiles: append([]string{}, e.ContextFiles...), MCPServers: e.MCPServers, ExcludeTools: e.ExcludeTools, Install: e.Install})
		}
		data, _ := json.MarshalIndent(entries, "", "  ")
		fmt.Fprintln(stdio.Stdout, string(data))
		return nil
	case "text", "":
	default:
		return &usageError{msg: fmt.Sprintf("invalid output format %q: use text or json", format)}
	}
	if len(exts) == 0 {
		fmt.Fprintln(stdio.Stdout, "No extensions installed.")
		return nil
	}
	en := p.enablement()
	var blocks []string
	for _, e := range exts {
		blocks = append(blocks, extString(e, en.Enabled(e.Name, p.home.UserDir), e.Active))
	}
	fmt.Fprintln(stdio.Stdout, strings.Join(blocks, "\n\n"))
	return nil
}

// extString describes an extension as `gemini extensions list` does.
func extString(e *config.Extension, userEnabled, workspaceEnabled bool) string {
	status := "✗"
	if workspaceEnabled {
		status = "✓"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s)", status, e.Name, e.Version)
	fmt.Fprintf(&b, "\n Path: %s", e.Path)
	if e.Install != nil {
		fmt.Fprintf(&b, "\n Source: %s (Type: %s)", e.Install.Source, e.Install.Type)
		if e.Install.Ref != "" {
			fmt.Fprintf(&b, "\n Ref: %s", e.Install.Ref)
		}
	}
	fmt.Fprintf(&b, "\n Enabled (User): %t", userEnabled)
	fmt.Fprintf(&b, "\n Enabled (Workspace): %t", workspaceEnabled)
	if len(e.ContextFiles) > 0 {
		b.WriteString("\n Context files:")
		for _, f := range e.ContextFiles {
			b.WriteString("\n  " + f)
		}
	}
	if len(e.MCPServers) > 0 {
		b.WriteString("\n MCP servers:")
		for _, k := range sortedKeys(e.MCPServers) {
			b.WriteString("\n  " + k)
		}
	}
	if len(e.ExcludeTools) > 0 {
		b.WriteString("\n Excluded tools:")
		for _, t := range e.ExcludeTools {
			b.WriteString("\n  " + t)
		}
	}
	if len(e.Settings) > 0 {
		b.WriteString("\n Settings:")
		for _, s := range e.Settings {
			v, ok := e.Env[s.EnvVar]
			switch {
			case !ok:
				v = "[not set]"
			case s.Sensitive:
				// Masked as Gemini CLI masks it (which keeps it in the
				// keychain; Castor in its 0600 secrets file).
				v = "***"
			}
			fmt.Fprintf(&b, "\n  %s: %s", s.Name, v)
		}
	}
	return b.String()
}

// extInstall installs source (a git URL, cloned with git, or a local
// folder, copied) as ~/.gemini/extensions/<name>, or with link records a
// link to the local folder, which is then read in place. It returns the
// extension's name. Without consent it asks before installing, as Gemini
// CLI does; Enter or no answer at all (stdin closed) is its default, yes.
func extInstall(ctx context.Context, stdio IO, source, ref string, autoUpdate, link, consent bool, in *settingPrompter) (string, error) {
	p, err := currentExtPlace()
	if err != nil {
		return "", err
	}
	meta := config.ExtensionInstall{Source: source, Type: "local", Ref: ref, AutoUpdate: autoUpdate}
	// The admin's allow-list is checked before anything is fetched.
	if ok, err := p.settings.ExtensionSourceAllowed(source); err != nil || !ok {
		if err == nil {
			err = errors.New(config.AllowedExtensionsInstallRefusal(source))
		}
		return "", err
	}
	src, cleanup, err := extension.Fetch(ctx, &meta, link)
	if errors.Is(err, extension.ErrBadSource) {
		return "", &inputError{msg: err.Error()}
	}
	if err != nil {
		return "", err
	}
	defer cleanup()
	manifest := filepath.Join(src, config.ExtensionManifestName)
	data, err := os.ReadFile(manifest)
	if err != nil {
		return "", fmt.Errorf("Configuration file not found at %s", manifest)
	}
	m, err := config.ParseExtensionManifest(manifest, data, config.ExtensionVars(src, p.wd), nil, nil)
	if err != nil {
		return "", err
	}
	dest := filepath.Join(config.ExtensionsDir(p.home.Dir), m.Name)
	if _, err := os.Stat(dest); err == nil {
		return "", fmt.Errorf("Extension %q is already installed. Please uninstall it first.", m.Name)
	}
	fmt.Fprintf(stdio.Stderr, "Installing extension %q.\n**Extensions may introduce unexpected behavior. Ensure you have investigated the extension source and trust the author.**\n", m.Name)
	if !consent {
		answer, ok := in.ask("Do you want to continue? [Y/n]: ", false)
		if a := strings.ToLower(strings.TrimSpace(answer)); ok && a != "" && a != "y" && a != "yes" {
			return "", fmt.Errorf("Installation cancelled for %q.", m.Name)
		}
	}
	// Copied (or, for a link, created) whole or not at all.
	from := src
	if link {
		from = ""
	}
	note, err := extension.Install(dest, from, meta)
	if note != "" {
		fmt.Fprintln(stdio.Stderr, "Warning: "+note)
	}
	if errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("Extension %q is already installed. Please uninstall it first.", m.Name)
	}
	if err != nil {
		return "", err
	}
	verb := "installed"
	if link {
		verb = "linked"
	}
	fmt.Fprintf(stdio.Stdout, "Extension %q %s successfully and enabled.\n", m.Name, verb)
	return m.Name, nil
}

func extUninstall(stdio IO, names []string) error {
	p, err := currentExtPlace()
	if err != nil {
		return err
	}
	exts, _ := p.load()
	var failed []string
	for _, n := range names {
		var found *config.Extension
		for _, e := range exts {
			if e.Name == n || (e.Install != nil && e.Install.Source == n) {
				found = e
			}
		}
		if found == nil {
			// A folder that no longer loads can still be removed by name.
			dir := filepath.Join(config.ExtensionsDir(p.home.Dir), n)
			if !config.ValidExtensionName(n) || !isDir(dir) {
				fmt.Fprintf(stdio.Stderr, "Failed to uninstall %q: Extension not found.\n", n)
				failed = append(failed, n)
				continue
			}
			found = &config.Extension{Name: n, InstallDir: dir}
		}
		if err := os.RemoveAll(found.InstallDir); err != nil {
			fmt.Fprintf(stdio.Stderr, "Failed to uninstall %q: %v\n", n, err)
			failed = append(failed, n)
			continue
		}
		if err := p.enablement().Remove(found.Name); err != nil {
			fmt.Fprintf(stdio.Stderr, "Warning: %v\n", err)
		}
		// Its sensitive settings go with it.
		if err := p.secrets().Remove(found.Name); err != nil {
			fmt.Fprintf(stdio.Stderr, "Warning: %v\n", err)
		}
		fmt.Fprintf(stdio.Stdout, "Extension %q successfully uninstalled.\n", found.Name)
	}
	if len(failed) > 0 {
		return fmt.Errorf("failed to uninstall: %s", strings.Join(failed, ", "))
	}
	return nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func extSetEnabled(stdio IO, name, scope string, scoped, enable bool) error {
	p, err := currentExtPlace()
	if err != nil {
		return err
	}
	var folder string
	switch strings.ToLower(scope) {
	case "user":
		folder = p.home.UserDir
	case "workspace":
		folder = p.wd
	default:
		return &usageError{msg: fmt.Sprintf("Invalid scope: %s. Please use one of user, workspace.", scope)}
	}
	exts, _ := p.load()
	found := false
	for _, e := range exts {
		found = found || e.Name == name
	}
	if !found {
		return &setup.ConfigError{Err: fmt.Errorf("Extension with name %s does not exist.", name)}
	}
	if err := p.enablement().SetEnabled(name, folder, enable); err != nil {
		return err
	}
	verb := "disabled"
	if enable {
		verb = "enabled"
	}
	if scoped {
		fmt.Fprintf(stdio.Stdout, "Extension %q successfully %s for scope %q.\n", name, verb, strings.ToLower(scope))
	} else {
		fmt.Fprintf(stdio.Stdout, "Extension %q successfully %s in all scopes.\n", name, verb)
	}
	return nil
}

var semverRE = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
}}

// extValidate checks an extension folder: its manifest, its context
// files, its version, and its custom commands.
func extValidate(stdio IO, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	manifest := filepath.Join(abs, config.ExtensionManifestName)
	data, err := os.ReadFile(manifest)
	if err != nil {
		return fmt.Errorf("Configuration file not found at %s", manifest)
	}
	wd, _ := os.Getwd()
	m, err := config.ParseExtensionManifest(manifest, data, config.ExtensionVars(abs, wd), nil, nil)
	if err != nil {
		return err
	}
	var warnings, errs []string
	var missing []string
	for _, f := range m.ContextFileNames {
		if _, err := os.Stat(filepath.Join(abs, f)); err != nil {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		errs = append(errs, "The following context files referenced in gemini-extension.json are missing: "+strings.Join(missing, ","))
	}
	if !semverRE.Get().MatchString(m.Version) {
		warnings = append(warnings, fmt.Sprintf("Warning: Version '%s' does not appear to be standard semver (e.g., 1.0.0).", m.Version))
	}
	errs = append(errs, validateCommands(filepath.Join(abs, "commands"))...)
	if len(warnings) > 0 {
		fmt.Fprintln(stdio.Stderr, "Validation warnings:")
		for _, w := range warnings {
			fmt.Fprintln(stdio.Stderr, "  - "+w)
		}
	}
	if len(errs) > 0 {
		fmt.Fprintln(stdio.Stderr, "Validation failed with the following errors:")
		for _, e := range errs {
			fmt.Fprintln(stdio.Stderr, "  - "+e)
		}
		return errors.New("Extension validation failed.")
	}
	fmt.Fprintf(stdio.Stdout, "Extension %s has been successfully validated.\n", path)
	return nil
}

// validateCommands parses every command file below dir.
func validateCommands(dir string) []string {
	_, errs := command.LoadFileCommands([]command.CommandDir{{Path: dir, Scope: command.ScopeExtension}})
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// listExtensionNames is -l/--list-extensions: the installed extensions'
// names, as Gemini CLI prints them.
func listExtensionNames(stdio IO) int {
	p, err := currentExtPlace()
	if err != nil {
		fmt.Fprintf(stdio.Stderr, "Error: %v\n", err)
		return ExitError
	}
	exts, warnings := p.load()
	for _, w := range warnings {
		// A broken extension is missing from the list; say why.
		fmt.Fprintln(stdio.Stderr, "Warning: "+w)
	}
	fmt.Fprintln(stdio.Stdout, "Installed extensions:")
	for _, e := range exts {
		fmt.Fprintln(stdio.Stdout, "- "+e.Name)
	}
	return ExitOK
}
