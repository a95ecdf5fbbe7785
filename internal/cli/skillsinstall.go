package cli

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/extension"
	"github.com/castor-dev/castor/internal/skills"
	"github.com/castor-dev/castor/internal/termtext"
)

// skillsWarning is Gemini CLI's warning in a skill's consent text.
const skillsWarning = "Agent skills inject specialized instructions and domain-specific knowledge into the agent's system prompt. This can change how the agent interprets your requests and interacts with your environment. Review the skill definitions at the location(s) provided below to ensure they meet your security standards."

// skillScope checks --scope of the skills subcommands that write.
func skillScope(scope string) error {
	if scope != "user" && scope != "workspace" {
		return fmt.Errorf("Invalid values:\n  Argument: scope, Given: %q, Choices: \"user\", \"workspace\"", scope)
	}
	return nil
}

// skillsTarget is where a scope's skills are installed: ~/.gemini/skills
// or the workspace's .gemini/skills, as Gemini CLI installs them.
func skillsTarget(scope string) (string, error) {
	if scope == "workspace" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		return filepath.Join(wd, config.GeminiDirName, "skills"), nil
	}
	return filepath.Join(config.ResolveHome(nil).Dir, "skills"), nil
}

// skillsInstallCommands are `skills install`, `skills link` and `skills
// uninstall`, as in Gemini CLI 0.61.
func skillsInstallCommands(ctx context.Context, stdio IO) []*cobra.Command {
	var scope, sub string
	var consent bool
	install := &cobra.Command{
		Use:   "install <source> [--scope] [--path]",
		Short: "Installs an agent skill from a git repository URL or a local path.",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := skillScope(scope); err != nil {
				return err
			}
			return skillsInstall(ctx, stdio, args[0], scope, sub, consent, false)
		},
	}
	install.Flags().StringVar(&scope, "scope", "user", `The scope to install the skill into. Defaults to "user" (global).`)
	install.Flags().StringVar(&sub, "path", "", "Sub-path within the repository to install from (only used for git repository sources).")
	install.Flags().BoolVar(&consent, "consent", false, "Acknowledge the security risks of installing a skill and skip the confirmation prompt.")

	var linkScope string
	var linkConsent bool
	link := &cobra.Command{
		Use:   "link <path>",
		Short: "Links an agent skill from a local path. Updates to the source will be reflected immediately.",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := skillScope(linkScope); err != nil {
				return err
			}
			return skillsInstall(ctx, stdio, args[0], linkScope, "", linkConsent, true)
		},
	}
	link.Flags().StringVar(&linkScope, "scope", "user", `The scope to link the skill into. Defaults to "user" (global).`)
	link.Flags().BoolVar(&linkConsent, "consent", false, "Acknowledge the security risks of linking a skill and skip the confirmation prompt.")

	var unScope string
	uninstall := &cobra.Command{
		Use:   "uninstall <name> [--scope]",
		Short: "Uninstalls an agent skill by name.",
		Args:  exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := skillScope(unScope); err != nil {
				return err
			}
			return skillsUninstall(stdio, args[0], unScope)
		},
	}
	uninstall.Flags().StringVar(&unScope, "scope", "user", `The scope to uninstall the skill from. Defaults to "user" (global).`)
	return []*cobra.Command{install, link, uninstall}
}

// skillsInstall copies (or, with link, symlinks) the skills found in
// source (a local folder, a git URL cloned first, or a .skill zip file)
// into the scope's skills folder, after the user's consent.
func skillsInstall(ctx context.Context, stdio IO, source, scope, sub string, consent, link bool) error {
	root := source
	if !link && extension.IsGitSource(source) {
		meta := &config.ExtensionInstall{Source: source}
		fmt.Fprintf(stdio.Stdout, "Cloning skill from %s...\n", source)
		dir, cleanup, err := extension.Fetch(ctx, meta, false)
		if err != nil {
			return err
		}
		defer cleanup()
		root = dir
	} else if !link && strings.HasSuffix(strings.ToLower(source), ".skill") {
		fmt.Fprintf(stdio.Stdout, "Extracting skill from %s...\n", source)
		dir, err := os.MkdirTemp("", "castor-skill")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if err := unzipSkill(source, dir); err != nil {
			return err
		}
		root = dir
	}
	if sub != "" && !link {
		joined := filepath.Join(root, sub)
		if rel, err := filepath.Rel(root, joined); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return errors.New("Invalid path: Directory traversal not allowed.")
		}
		root = joined
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdio.Stdout, "Searching for skills in %s...\n", abs)
	found, errs := skills.LoadDir(abs)
	for _, e := range errs {
		fmt.Fprintf(stdio.Stderr, "Warning: %s\n", termtext.String(e.Error()))
	}
	if len(found) == 0 {
		at := ""
		if sub != "" {
			at = fmt.Sprintf(" at path %q", sub)
		}
		if link {
			return fmt.Errorf("No valid skills found in %q. Ensure a SKILL.md file exists with valid frontmatter.", abs)
		}
		return fmt.Errorf("No valid skills found in %s%s. Ensure a SKILL.md file exists with valid frontmatter.", source, at)
	}
	seen := map[string]string{}
	for _, s := range found {
		if prev, ok := seen[s.Name]; ok {
			return fmt.Errorf("Duplicate skill name %q found at multiple locations:\n  - %s\n  - %s", s.Name, prev, s.Location)
		}
		seen[s.Name] = s.Location
	}
	target, err := skillsTarget(scope)
	if err != nil {
		return err
	}
	text := skillsConsent(found, source, target, link)
	if consent {
		fmt.Fprintln(stdio.Stderr, "You have consented to the following:")
		fmt.Fprintln(stdio.Stderr, termtext.String(text))
	} else {
		fmt.Fprintln(stdio.Stderr, termtext.String(text))
		answer, ok := newSettingPrompter(stdio).ask("Do you want to continue? [Y/n]: ", false)
		if a := strings.ToLower(strings.TrimSpace(answer)); ok && a != "" && a != "y" && a != "yes" {
			if link {
				return errors.New("Skill linking cancelled by user.")
			}
			return errors.New("Skill installation cancelled by user.")
		}
	}
	if err := os.MkdirAll(target, 0o755); err != nil {
		return err
	}
	for _, s := range found {
		dest := filepath.Join(target, s.Name)
		if rel, err := filepath.Rel(target, dest); err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return errors.New("Invalid skill name: Path traversal detected.")
		}
		if _, err := os.Lstat(dest); err == nil {
			fmt.Fprintf(stdio.Stdout, "Skill %q already exists. Overwriting...\n", s.Name)
			if err := os.RemoveAll(dest); err != nil {
				return err
			}
		}
		if link {
			err = os.Symlink(s.Dir, dest)
		} else {
			err = extension.CopyTree(s.Dir, dest)
		}
		if err != nil {
			return err
		}
		if !link {
			fmt.Fprintf(stdio.Stdout, "Successfully installed skill: %s (scope: %s, location: %s)\n", s.Name, scope, dest)
		}
	}
	if link {
		fmt.Fprintln(stdio.Stdout, "\nSuccessfully linked skills.")
	}
	return nil
}

// skillsConsent is Gemini CLI's consent text for installing or linking
// skills.
func skillsConsent(found []*skills.Skill, source, target string, link bool) string {
	action, dest := "Installing", "Install"
	if link {
		action, dest = "Linking", "Link"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s agent skill(s) from %q.\n\nThe following agent skill(s) will be %s:\n\n", action, source, strings.ToLower(action))
	for _, s := range found {
		fmt.Fprintf(&b, "  * %s: %s\n", s.Name, s.Description)
		count := " (Could not count items in directory)"
		if items, err := os.ReadDir(s.Dir); err == nil {
			count = fmt.Sprintf(" (%d items in directory)", len(items))
		}
		fmt.Fprintf(&b, "    (Source: %s)%s\n\n", s.Location, count)
	}
	fmt.Fprintf(&b, "%s Destination: %s\n\n%s", dest, target, skillsWarning)
	return b.String()
}

// skillsUninstall removes the skill called name from the scope's skills
// folder (found by its SKILL.md, else by its folder's name).
func skillsUninstall(stdio IO, name, scope string) error {
	target, err := skillsTarget(scope)
	if err != nil {
		return err
	}
	dir := ""
	found, _ := skills.LoadDir(target)
	for _, s := range found {
		if s.Name == name {
			dir = s.Dir
		}
	}
	if dir == "" {
		dir = filepath.Join(target, name)
	}
	rel, err := filepath.Rel(target, dir)
	if _, statErr := os.Lstat(dir); err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || statErr != nil {
		return fmt.Errorf("Skill %q is not installed in the %s scope.", name, scope)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	fmt.Fprintf(stdio.Stdout, "Successfully uninstalled skill: %s (scope: %s, location: %s)\n", name, scope, dir)
	return nil
}

// unzipSkill extracts a .skill file (a zip) into dir, refusing entries
// that would land outside it.
func unzipSkill(file, dir string) error {
	r, err := zip.OpenReader(file)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	defer r.Close()
	for _, f := range r.File {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if rel, err := filepath.Rel(dir, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%s: entry %q is outside the archive's folder", file, f.Name)
		}
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if !f.Mode().IsRegular() {
			continue // links and devices are not a skill's business
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := extractOne(f, p); err != nil {
			return fmt.Errorf("%s: %s: %w", file, f.Name, err)
		}
	}
	return nil
}

func extractOne(f *zip.File, p string) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, rc); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
