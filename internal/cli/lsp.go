package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/lsp"
)

// lspCommand is `castor lsp`: status starts the workspace's language
// servers once and says which run, which fail and why others are not
// offered.
func lspCommand(ctx context.Context, stdio IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "Language servers: check which run for this workspace",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Start this workspace's language servers once and report each (state, pid, memory), and why others are not offered",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			st, err := config.Load(config.LoadOptions{Workspace: wd})
			if err != nil {
				return err
			}
			ls, err := lsp.FromSettings(st)
			if err != nil {
				return fmt.Errorf("settings: %v", err)
			}
			if ls.Off {
				fmt.Fprintln(stdio.Stdout, "Language servers are off (settings lsp.enabled is false).")
				return nil
			}
			if st.Trust.FolderTrustEnabled && !st.Trust.IsTrusted() {
				fmt.Fprintln(stdio.Stdout, "This folder is not trusted: no language server runs in it.")
				return nil
			}
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			sts, skipped := lsp.Probe(ctx, lsp.Options{Servers: ls.Servers, Workspace: wd})
			fmt.Fprintln(stdio.Stdout, lsp.FormatStatus(sts))
			for _, s := range skipped {
				fmt.Fprintln(stdio.Stdout, "not offered: "+s)
			}
			for _, s := range sts {
				if s.State != lsp.StateRunning {
					return fmt.Errorf("language server %s is %s", s.Name, s.State)
				}
			}
			return nil
		},
	})
	return cmd
}
