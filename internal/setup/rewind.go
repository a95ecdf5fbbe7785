package setup

// Rewind, as Gemini CLI 0.61's /rewind: the conversation goes back to
// just before an earlier prompt, and, where checkpoints were taken
// (general.checkpointing.enabled), the files go back to how they were
// then: the first checkpoint taken after that prompt snapshots the
// workspace before that prompt's edits.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
)

// Rewound is what a rewind did.
type Rewound struct {
	// Prompt is the prompt taken back: its text is for the user to edit
	// and send again.
	Prompt agent.Prompt
	// Checkpoint is the checkpoint the files were restored from, "" when
	// the files were left alone (no checkpoint after the prompt, or
	// checkpointing off).
	Checkpoint string
}

// Rewind takes the conversation back to just before the prompt promptID
// (agent.Session.Prompts lists them) and, with files, the workspace's
// files back to the first checkpoint taken from that prompt on. The files
// are restored first: a failure there leaves the conversation as it was.
func (a *Agent) Rewind(ctx context.Context, promptID string, files bool) (Rewound, error) {
	prompts := a.Session.Prompts()
	at := -1
	for i, p := range prompts {
		if p.ID == promptID {
			at = i
		}
	}
	if at < 0 {
		return Rewound{}, fmt.Errorf("%w: %q", agent.ErrNoSuchPrompt, promptID)
	}
	var out Rewound
	if files && a.Checkpoints != nil {
		later := map[string]bool{}
		for _, p := range prompts[at:] {
			later[p.ID] = true
		}
		infos, err := a.Checkpoints.List()
		if err != nil {
			return Rewound{}, err
		}
		for _, in := range infos { // oldest first
			if later[in.MessageID] {
				if _, err := a.Checkpoints.Restore(ctx, in.Checkpoint); err != nil {
					return Rewound{}, err
				}
				out.Checkpoint = in.Checkpoint
				break
			}
		}
	}
	p, err := a.Session.Rewind(promptID)
	out.Prompt = p
	return out, err
}

// rewindCommand registers /rewind: without arguments it lists the
// prompts the conversation can go back to, numbered; "/rewind N" goes
// back to just before prompt N, files included where checkpoints exist.
// ("/rewind N --keep-files" leaves the files as they are.)
func (a *Agent) rewindCommand() {
	a.Commands.Register(&command.Command{
		Name:        "rewind",
		Description: "Jump back to a specific message and restart the conversation",
		Arguments:   []command.Argument{{Name: "prompt", Description: "the number of the prompt to go back to (without it, the list)"}},
		Execute: func(ctx context.Context, inv *command.Invocation) (*command.Result, error) {
			prompts := a.Session.Prompts()
			if len(prompts) == 0 {
				return command.Info("Nothing to rewind to."), nil
			}
			if len(inv.Args) == 0 {
				var sb strings.Builder
				sb.WriteString("Prompts to rewind to (/rewind N goes back to just before prompt N):")
				for i, p := range prompts {
					fmt.Fprintf(&sb, "\n%d. %s", i+1, oneLinePrompt(p.Text))
				}
				return command.Info("%s", sb.String()), nil
			}
			n, err := strconv.Atoi(inv.Args[0])
			if err != nil || n < 1 || n > len(prompts) {
				return command.Error("No prompt %s: give a number from 1 to %d.", inv.Args[0], len(prompts)), nil
			}
			files := !(len(inv.Args) > 1 && inv.Args[1] == "--keep-files")
			r, err := a.Rewind(ctx, prompts[n-1].ID, files)
			switch {
			case errors.Is(err, agent.ErrBusy):
				return command.Error("Cannot rewind while a request is running."), nil
			case err != nil:
				return command.Error("Rewind failed: %v", err), nil
			}
			msg := "Rewound the conversation to before: " + oneLinePrompt(r.Prompt.Text)
			if r.Checkpoint != "" {
				msg += "\nFile changes reverted."
			}
			return command.Info("%s", msg), nil
		},
	})
}

// oneLinePrompt shortens a prompt for a list.
func oneLinePrompt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}
