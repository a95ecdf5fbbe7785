package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
)

// newExtensionsUpdateCommand is `castor extensions update <name> | --all`:
// an installed (copied or cloned) extension is fetched again from where it
// came from and replaces the installed copy when the version changed, as
// `gemini extensions update` does. A linked extension is read in place and
// needs no update.
func newExtensionsUpdateCommand(ctx context.Context, stdio IO) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "update [<name>] [--all]",
		Short: "Updates all extensions or a named extension to the latest version.",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			switch {
			case all && len(args) > 0:
				return &usageError{msg: "Arguments name and all are mutually exclusive"}
			case !all && len(args) == 0:
				return &usageError{msg: "Either an extension name or --all must be provided"}
			}
			return extUpdate(ctx, stdio, args, all)
		},
	}
	c.Flags().BoolVar(&all, "all", false, "Update all extensions.")
	return c
}

func extUpdate(ctx context.Context, stdio IO, names []string, all bool) error {
	p, err := currentExtPlace()
	if err != nil {
		return err
	}
	exts := loadExtensionsWarning(p, stdio)
	if !all {
		var found *config.Extension
		for _, e := range exts {
			if e.Name == names[0] {
				found = e
			}
		}
		if found == nil {
			msg := fmt.Sprintf("Extension %q not found.\n\nNo extensions installed.", names[0])
			if len(exts) > 0 {
				var installed []string
				for _, e := range exts {
					installed = append(installed, fmt.Sprintf("%s (%s)", e.Name, e.Version))
				}
				msg = fmt.Sprintf("Extension %q not found.\n\nInstalled extensions:\n%s\n\nRun \"castor extensions list\" for details.", names[0], strings.Join(installed, "\n"))
			}
			return errors.New(msg)
		}
		from, to, err := updateExtension(ctx, p, found)
		switch {
		case errors.Is(err, errNotUpdatable):
			fmt.Fprintf(stdio.Stdout, "Extension %q is not updated: %v.\n", found.Name, strings.TrimPrefix(err.Error(), errNotUpdatable.Error()+": "))
			return nil
		case err != nil:
			return fmt.Errorf("Failed to update %q: %w", found.Name, err)
		case from == to:
			fmt.Fprintf(stdio.Stdout, "Extension %q is already up to date.\n", found.Name)
		default:
			fmt.Fprintf(stdio.Stdout, "Extension %q successfully updated: %s → %s.\n", found.Name, from, to)
		}
		return nil
	}
	var failed []string
	updated := 0
	for _, e := range exts {
		from, to, err := updateExtension(ctx, p, e)
		switch {
		case errors.Is(err, errNotUpdatable):
		case err != nil:
			fmt.Fprintf(stdio.Stderr, "Failed to update %q: %v\n", e.Name, err)
			failed = append(failed, e.Name)
		case from != to:
			fmt.Fprintf(stdio.Stdout, "Extension %q successfully updated: %s → %s.\n", e.Name, from, to)
			updated++
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("failed to update: %s", strings.Join(failed, ", "))
	}
	if updated == 0 {
		fmt.Fprintln(stdio.Stdout, "No extensions to update.")
	}
	return nil
}

// errNotUpdatable marks an extension that is read in place (linked) or
// whose origin is unknown.
var errNotUpdatable = errors.New("not updatable")

// updateExtension fetches e again from its recorded source and, when the
// manifest's version differs from the installed one, swaps the new copy in
// (the install metadata kept). The old copy is removed only once the new one
// is in place, so a failure leaves the installed extension as it was.
func updateExtension(ctx context.Context, p extPlace, e *config.Extension) (from, to string, err error) {
	if e.Install == nil || e.InstallDir == "" {
		return "", "", fmt.Errorf("%w: it has no install metadata (%s)", errNotUpdatable, config.ExtensionInstallMetadataName)
	}
	if e.Install.Type == "link" {
		return "", "", fmt.Errorf("%w: it is linked from %s and read in place", errNotUpdatable, e.Install.Source)
	}
	meta := *e.Install
	src, cleanup, err := fetchExtensionSource(ctx, &meta, false)
	if err != nil {
		return "", "", err
	}
	defer cleanup()
	manifest := filepath.Join(src, config.ExtensionManifestName)
	data, err := os.ReadFile(manifest)
	if err != nil {
		return "", "", fmt.Errorf("Configuration file not found at %s", manifest)
	}
	m, err := config.ParseExtensionManifest(manifest, data, config.ExtensionVars(src, p.wd), nil, nil)
	if err != nil {
		return "", "", err
	}
	if m.Name != e.Name {
		return "", "", fmt.Errorf("the source at %s is now extension %q, not %q; uninstall and install it instead", e.Install.Source, m.Name, e.Name)
	}
	if m.Version == e.Version {
		return e.Version, m.Version, nil
	}
	// The new copy is built beside the old one, then the two swap by rename.
	fresh := e.InstallDir + ".castor-update"
	old := e.InstallDir + ".castor-old"
	os.RemoveAll(fresh)
	os.RemoveAll(old)
	if err := copyTree(src, fresh); err != nil {
		os.RemoveAll(fresh)
		return "", "", err
	}
	// The user's settings values live in the installed copy's .env.
	if envData, err := os.ReadFile(filepath.Join(e.InstallDir, config.ExtensionSettingsFileName)); err == nil {
		if err := os.WriteFile(filepath.Join(fresh, config.ExtensionSettingsFileName), envData, 0o600); err != nil {
			os.RemoveAll(fresh)
			return "", "", err
		}
	}
	md, _ := json.MarshalIndent(e.Install, "", "  ")
	if err := os.WriteFile(filepath.Join(fresh, config.ExtensionInstallMetadataName), md, 0o644); err != nil {
		os.RemoveAll(fresh)
		return "", "", err
	}
	if err := os.Rename(e.InstallDir, old); err != nil {
		os.RemoveAll(fresh)
		return "", "", err
	}
	if err := os.Rename(fresh, e.InstallDir); err != nil {
		os.Rename(old, e.InstallDir)
		os.RemoveAll(fresh)
		return "", "", err
	}
	os.RemoveAll(old)
	return e.Version, m.Version, nil
}

// loadExtensionsWarning loads the installed extensions and says on stderr
// why any failed to load: one missing from the list would otherwise be
// reported only as "not found".
func loadExtensionsWarning(p extPlace, stdio IO) []*config.Extension {
	exts, warnings := p.load()
	for _, w := range warnings {
		fmt.Fprintln(stdio.Stderr, "Warning: "+w)
	}
	return exts
}
