package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/skills"
	"github.com/castor-dev/castor/internal/termtext"
)

// newSkillsCommand is `castor skills list|enable|disable|install|link|
// uninstall`, which show the discovered Agent Skills, edit
// skills.disabled and install skills as `gemini skills` does, with the
// same messages and settings files (skillsinstall.go).
func newSkillsCommand(ctx context.Context, stdio IO) *cobra.Command {
	cmd := commandGroup("skills", "Manage agent skills")
	cmd.Aliases = []string{"skill"}
	var all bool
	list := &cobra.Command{
		Use:   "list [--all]",
		Short: "Lists discovered agent skills.",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return skillsList(stdio)
		},
	}
	// Castor has no built-in skills; --all is accepted for Gemini CLI's
	// scripts.
	list.Flags().BoolVar(&all, "all", false, "Show all skills, including built-in ones.")
	enable := &cobra.Command{
		Use:   "enable <name>",
		Short: "Enables an agent skill.",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return skillsEnable(args[0], stdio)
		},
	}
	var scope string
	disable := &cobra.Command{
		Use:   "disable <name> [--scope]",
		Short: "Disables an agent skill.",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return skillsDisable(args[0], scope, stdio)
		},
	}
	disable.Flags().StringVarP(&scope, "scope", "s", "workspace", "The scope to disable the skill in (user or workspace).")
	cmd.AddCommand(list, enable, disable)
	cmd.AddCommand(skillsInstallCommands(ctx, stdio)...)
	return cmd
}

func skillsList(stdio IO) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	st, err := config.Load(config.LoadOptions{Workspace: wd})
	if err != nil {
		return err
	}
	for _, w := range st.Warnings {
		fmt.Fprintf(stdio.Stderr, "Warning: %s\n", termtext.String(w))
	}
	home := config.ResolveHome(nil)
	trusted := st.Trust.IsTrusted() || !st.Trust.FolderTrustEnabled
	// Active extensions' skills/ folders count, as in a session.
	exts, warnings := config.LoadExtensions(config.ExtensionsOptions{GeminiDir: home.Dir, Workspace: wd, Trusted: trusted, Settings: st})
	var roots []string
	for _, e := range config.ActiveExtensions(exts) {
		roots = append(roots, e.Path)
	}
	set, more := skills.Discover(skills.Sources{
		Home:       home.UserDir,
		Workspace:  wd,
		Trusted:    trusted,
		Extensions: roots,
	})
	warnings = append(warnings, more...)
	for _, w := range warnings {
		fmt.Fprintf(stdio.Stderr, "Warning: %s\n", termtext.String(w))
	}
	if disabled, ok := st.GetStrings("skills.disabled"); ok {
		set.Disable(disabled)
	}
	list := set.All()
	slices.SortStableFunc(list, func(a, b *skills.Skill) int { return strings.Compare(a.Name, b.Name) })
	if len(list) == 0 {
		fmt.Fprintln(stdio.Stdout, "No skills discovered.")
		return nil
	}
	// Names and descriptions come from files a cloned project can supply:
	// they are cleaned of terminal control sequences.
	var b strings.Builder
	b.WriteString("Discovered Agent Skills:\n\n")
	for _, s := range list {
		status := "[Enabled]"
		if s.Disabled {
			status = "[Disabled]"
		}
		fmt.Fprintf(&b, "%s %s\n  Description: %s\n  Location:    %s\n\n", s.Name, status, s.Description, s.Location)
	}
	fmt.Fprint(stdio.Stdout, termtext.String(b.String()))
	return nil
}

// disabledIn returns the skills.disabled list written in one settings
// file (a missing file has none).
func disabledIn(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(strings.TrimSpace(string(data))) == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := config.ParseJSONC(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	root, _ := v.(map[string]any)
	sk, _ := root["skills"].(map[string]any)
	raw, ok := sk["disabled"]
	if !ok {
		return nil, nil
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: skills.disabled must be a list of names", path)
	}
	var names []string
	for _, it := range items {
		if s, ok := it.(string); ok {
			names = append(names, s)
		}
	}
	return names, nil
}

type scopeFile struct{ label, path string }

func scopeFiles() (user, workspace scopeFile, err error) {
	u, _, err := settingsPath("user")
	if err != nil {
		return
	}
	w, _, err := settingsPath("project")
	return scopeFile{"user", u}, scopeFile{"workspace", w}, err
}

func skillsDisable(name, scope string, stdio IO) error {
	if scope != "user" && scope != "workspace" {
		return fmt.Errorf("Invalid values:\n  Argument: scope, Given: %q, Choices: \"user\", \"workspace\"", scope)
	}
	user, ws, err := scopeFiles()
	if err != nil {
		return err
	}
	f := ws
	if scope == "user" {
		f = user
	}
	list, err := disabledIn(f.path)
	if err != nil {
		return err
	}
	if slices.Contains(list, name) {
		fmt.Fprintf(stdio.Stdout, "Skill %q is already disabled.\n", name)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return err
	}
	if err := config.UpdateFile(f.path, "skills.disabled", append(list, name)); err != nil {
		return err
	}
	fmt.Fprintf(stdio.Stdout, "Skill %q disabled by adding it to the disabled list in %s (%s) settings.\n", name, f.label, f.path)
	return nil
}

func skillsEnable(name string, stdio IO) error {
	user, ws, err := scopeFiles()
	if err != nil {
		return err
	}
	var changed []scopeFile
	for _, f := range []scopeFile{user, ws} {
		if len(changed) > 0 && f.path == changed[0].path {
			continue // the workspace is the home directory
		}
		list, err := disabledIn(f.path)
		if err != nil {
			return err
		}
		if !slices.Contains(list, name) {
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == name })
		if kept == nil {
			kept = []string{}
		}
		if err := config.UpdateFile(f.path, "skills.disabled", kept); err != nil {
			return err
		}
		changed = append(changed, f)
	}
	switch len(changed) {
	case 0:
		fmt.Fprintf(stdio.Stdout, "Skill %q is already enabled.\n", name)
	case 1:
		fmt.Fprintf(stdio.Stdout, "Skill %q enabled by removing it from the disabled list in %s (%s) settings.\n", name, changed[0].label, changed[0].path)
	default:
		fmt.Fprintf(stdio.Stdout, "Skill %q enabled by removing it from the disabled list in %s (%s) and %s (%s) settings.\n", name, changed[0].label, changed[0].path, changed[1].label, changed[1].path)
	}
	return nil
}
