package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/ide/companion"
	"github.com/castor-dev/castor/internal/version"
)

// ideCommand is `castor ide`: status explains the connection to the IDE
// companion, serve is a companion for editors that have none.
func ideCommand(ctx context.Context, stdio IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ide",
		Short: "IDE integration: check the connection, or run a companion for any editor",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(ideStatusCommand(ctx, stdio), ideServeCommand(ctx, stdio))
	return cmd
}

func ideStatusCommand(ctx context.Context, stdio IO) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Find the IDE companion, connect, and say what works or exactly why not",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			r := ide.Diagnose(ctx, ide.Options{WorkDir: wd, Version: version.Version})
			if asJSON {
				enc := json.NewEncoder(stdio.Stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(r); err != nil {
					return err
				}
			} else {
				if err := r.Write(stdio.Stdout); err != nil {
					return err
				}
				// Connecting does not depend on the setting, but using the
				// connection does: say so rather than let a user wonder.
				if st, err := config.Load(config.LoadOptions{Workspace: wd}); err == nil && !st.IDE.Enabled {
					fmt.Fprintln(stdio.Stdout, "IDE mode: off (settings ide.enabled is false; pass --ide to use it for one run)")
				}
			}
			if !r.Connected {
				return errors.New("not connected to an IDE companion")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func ideServeCommand(ctx context.Context, stdio IO) *cobra.Command {
	var (
		workspaces        []string
		pid               int
		name, displayName string
		debug             bool
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run an IDE companion driven by newline-delimited JSON on stdin and stdout (for editor plugins)",
		Long: "Run an IDE companion for an editor without one (Neovim, Emacs, Helix...). The editor plugin\n" +
			"starts it, writes editor events as JSON lines on its stdin and reads diff requests from its\n" +
			"stdout; castor (and Gemini CLI) running in that editor's terminal then work in IDE mode.\n" +
			"The protocol is described in ide/PROTOCOL.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(workspaces) == 0 {
				wd, err := os.Getwd()
				if err != nil {
					return err
				}
				workspaces = []string{wd}
			}
			for i, w := range workspaces {
				abs, err := filepath.Abs(w)
				if err != nil {
					return &inputError{msg: fmt.Sprintf("--workspace %s: %v", w, err)}
				}
				if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
					return &inputError{msg: fmt.Sprintf("--workspace %s is not a directory", w)}
				}
				workspaces[i] = abs
			}
			if displayName == "" {
				displayName = name
			}
			// Both empty: the companion's own default names it.
			o := companion.StdioOptions{Server: companion.Options{
				Workspaces: workspaces,
				PID:        pid,
				IDE:        ide.IDEInfo{Name: name, DisplayName: displayName},
				Version:    version.Version,
			}}
			if debug {
				o.Server.Logf = func(format string, args ...any) {
					fmt.Fprintf(stdio.Stderr, "[DEBUG] "+format+"\n", args...)
				}
			}
			return companion.ServeStdio(ctx, stdio.Stdin, stdio.Stdout, o)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&workspaces, "workspace", nil, "a workspace root open in the editor (repeatable; default: the current directory)")
	fl.IntVar(&pid, "pid", 0, "the editor's process id, for the discovery file's name (default: the parent process)")
	fl.StringVar(&name, "ide-name", "", "short lowercase name of the editor: neovim, emacs, helix... (default castor)")
	fl.StringVar(&displayName, "ide-display-name", "", "the editor's name as people read it (default: --ide-name)")
	fl.BoolVarP(&debug, "debug", "d", false, "print debug information on stderr")
	return cmd
}
