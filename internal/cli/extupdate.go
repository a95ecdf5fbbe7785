package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/extension"
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
		from, to, note, err := extension.Update(ctx, found, p.wd)
		if note != "" {
			fmt.Fprintln(stdio.Stderr, "Warning: "+note)
		}
		switch {
		case errors.Is(err, extension.ErrNotUpdatable):
			fmt.Fprintf(stdio.Stdout, "Extension %q is not updated: %v.\n", found.Name, strings.TrimPrefix(err.Error(), extension.ErrNotUpdatable.Error()+": "))
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
		from, to, note, err := extension.Update(ctx, e, p.wd)
		if note != "" {
			fmt.Fprintln(stdio.Stderr, "Warning: "+note)
		}
		switch {
		case errors.Is(err, extension.ErrNotUpdatable):
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
