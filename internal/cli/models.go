package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/internal/termtext"
)

// newModelsCommand is `castor models`: the models the settings, the
// environment and the workspace's .env configure, per provider, and
// whether each provider's server and the Gemini API answer (GET
// {baseUrl}/models, all at once, within --timeout).
// It exits 0 whatever the servers say unless --check asks.
func newModelsCommand(ctx context.Context, stdio IO) *cobra.Command {
	var (
		format  string
		check   bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the configured models and whether each provider is reachable",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if format != "text" && format != "json" {
				return &usageError{msg: fmt.Sprintf("--output-format %q: want text or json", format)}
			}
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			st, err := config.Load(config.LoadOptions{Workspace: wd})
			if err != nil {
				return err
			}
			// The workspace's .env, as a session reads it, may hold the keys.
			env := setup.NewEnv(nil)
			if _, err := env.LoadSessionDotEnv(st, wd, config.ResolveHome(env.Lookup).UserDir); err != nil {
				fmt.Fprintln(stdio.Stderr, err)
			}
			list := setup.ListModels(ctx, st, env.Getenv, timeout)
			if format == "json" {
				b, _ := json.MarshalIndent(struct {
					Providers []setup.ProviderListing `json:"providers"`
				}{list}, "", "  ")
				fmt.Fprintln(stdio.Stdout, string(b))
			} else {
				fmt.Fprint(stdio.Stdout, termtext.String(modelsText(list)))
			}
			var dead []string
			for _, p := range list {
				if p.Error != "" {
					dead = append(dead, p.Name+" ("+p.BaseURL+")")
				}
			}
			if check && len(dead) > 0 {
				return errors.New("providers not reachable: " + strings.Join(dead, ", "))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&format, "output-format", "o", "text", "text or json")
	cmd.Flags().BoolVar(&check, "check", false, "exit 1 when a provider is not reachable")
	cmd.Flags().DurationVar(&timeout, "timeout", 3*time.Second, "how long each provider's server has to answer")
	return cmd
}

// modelsText is the listing for people: a provider a line, its models
// indented under it.
func modelsText(list []setup.ProviderListing) string {
	var b strings.Builder
	for _, p := range list {
		state := ""
		switch {
		case p.Error != "" && p.BaseURL == "":
			state = "not usable: " + p.Error // its settings, before any request
		case p.Error != "":
			state = "not reachable: " + p.Error
		case p.Reachable:
			state = "reachable"
		}
		fmt.Fprintf(&b, "%s: %s", p.Name, p.Type)
		if p.BaseURL != "" {
			fmt.Fprintf(&b, " at %s", p.BaseURL)
		}
		fmt.Fprintf(&b, " (%s)", p.Source)
		for _, s := range []string{state, p.Note} {
			if s != "" {
				fmt.Fprintf(&b, "\n  %s", s)
			}
		}
		b.WriteString("\n")
		for _, m := range p.Models {
			line := "  - " + m.Name
			if m.Is != "" {
				line += " → " + m.Is
			}
			if m.ContextWindow > 0 {
				line += fmt.Sprintf(", %d tokens of context", m.ContextWindow)
			}
			if pr := m.Price; pr != nil {
				line += fmt.Sprintf(", $%g in / $%g cached / $%g out per million tokens", pr.Input, pr.CachedInput, pr.Output)
				if pr.CacheWrite > 0 {
					line += fmt.Sprintf(" ($%g to write to the cache)", pr.CacheWrite)
				}
			}
			b.WriteString(line + "\n")
		}
		if len(p.Served) > 0 {
			fmt.Fprintf(&b, "  served: %s\n", strings.Join(p.Served, ", "))
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
