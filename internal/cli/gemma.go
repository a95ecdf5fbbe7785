package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
)

// gemmaNotApplicable is what `castor gemma` says: Gemini CLI's command
// sets up and runs a local Gemma model (LiteRT-LM) for its router, which
// Castor does not have.
const gemmaNotApplicable = "castor gemma is not applicable: Gemini CLI's `gemma` command manages a local Gemma model server " +
	"(setup, start, stop, status, logs) for its model router; Castor's router (model \"auto\") uses the Gemini API models only. " +
	"To run a local Gemma model as the session's model, serve it with Ollama and use -m ollama/gemma3 (see docs/providers.md)."

// newGemmaCommand is `castor gemma [anything]`: a command in Gemini CLI
// 0.61, so the word is never sent to the model as a prompt; it says
// clearly that it does not apply and exits 1.
func newGemmaCommand(context.Context, IO) *cobra.Command {
	return &cobra.Command{
		Use:                "gemma",
		Short:              "Not applicable: Gemini CLI's local Gemma model routing",
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
				return cmd.Help()
			}
			return errors.New(gemmaNotApplicable)
		},
	}
}
