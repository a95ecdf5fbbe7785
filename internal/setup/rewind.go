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
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/chats"
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

// Prompts lists the prompts the conversation can be rewound to, oldest
// first: every prompt of the session's recording, those from before a
// --resume or a compression included, as Gemini CLI lists the recorded
// conversation's; with recording off, those the engine still holds
// (agent.Session.Prompts).
func (a *Agent) Prompts() []agent.Prompt {
	if a.recorder == nil {
		return a.Session.Prompts()
	}
	conv := a.recorder.rec.Conversation()
	var out []agent.Prompt
	for i := range conv.Messages {
		if m := &conv.Messages[i]; m.IsPrompt() {
			out = append(out, agent.Prompt{ID: m.ID, Text: m.PromptText(), Time: m.Timestamp})
		}
	}
	return out
}

// Rewind takes the conversation back to just before the prompt promptID
// (one of Prompts) and, with files, the workspace's files back to the
// first checkpoint taken from that prompt on. The files are restored
// first: a failure there leaves the conversation as it was.
//
// A prompt this process sent, still in the engine's history, is taken
// back there, exactly (agent.Session.Rewind). An earlier one (before a
// --resume, or a compression that replaced the history) is taken back in
// the recording, and the history is rebuilt from what the recording
// keeps before it, as --resume builds it and as Gemini CLI's /rewind
// does.
func (a *Agent) Rewind(ctx context.Context, promptID string, files bool) (Rewound, error) {
	var out Rewound
	restore := func(p agent.Prompt) error {
		if !files || a.Checkpoints == nil || p.Time.IsZero() {
			return nil // a restored prompt's time, and so its checkpoint, is unknown
		}
		cp, err := a.checkpointSince(p.Time)
		if err == nil && cp != "" {
			_, err = a.Checkpoints.Restore(ctx, cp)
			out.Checkpoint = cp
		}
		return err
	}
	if a.recorder == nil {
		p, err := a.Session.RewindWith(promptID, restore)
		out.Prompt = p
		return out, err
	}
	conv := a.recorder.rec.Conversation()
	i := slices.IndexFunc(conv.Messages, func(m chats.Message) bool { return m.ID == promptID && m.IsPrompt() })
	if i < 0 {
		return Rewound{}, fmt.Errorf("%w: %q", agent.ErrNoSuchPrompt, promptID)
	}
	m := &conv.Messages[i]
	out.Prompt = agent.Prompt{ID: promptID, Text: m.PromptText(), Time: m.Timestamp}
	if id := a.recorder.engineID(promptID); id != "" && slices.ContainsFunc(a.Session.Prompts(), func(p agent.Prompt) bool { return p.ID == id }) {
		p, err := a.Session.RewindWith(id, restore)
		if p.ID == "" { // nothing changed
			return Rewound{}, err
		}
		return out, err // err: the recording failed
	}
	var history []*genai.Content
	if before := (&chats.Conversation{Messages: conv.Messages[:i]}).History(); len(before) > 0 {
		history = append([]*genai.Content{genai.NewContentFromText(a.prompt.envContext(), genai.RoleUser)}, before...)
	}
	if err := a.Session.ReplaceHistory(history, func() error { return restore(out.Prompt) }); err != nil {
		return Rewound{}, err
	}
	if err := a.recorder.rec.RewindTo(promptID); err != nil {
		return out, fmt.Errorf("the conversation is rewound, but its recording is not: %w", err)
	}
	return out, nil
}

// checkpointSince is the first checkpoint of this session taken at or
// after t (the checkpoints of the prompts from t on), "" when there is
// none. Its prompt id names the session ("<session>########<n>"); ids
// restart with each process, so the time, not the id, places it.
func (a *Agent) checkpointSince(t time.Time) (string, error) {
	infos, err := a.Checkpoints.List()
	if err != nil {
		return "", err
	}
	ours := []string{a.Session.ID() + "########"}
	if a.recorder != nil {
		ours = append(ours, a.recorder.rec.SessionID()+"########")
	}
	since := t.Truncate(time.Millisecond)
	for _, in := range infos { // oldest first
		at, ok := in.Time()
		if ok && !at.Before(since) && slices.ContainsFunc(ours, func(p string) bool { return strings.HasPrefix(in.MessageID, p) }) {
			return in.Checkpoint, nil
		}
	}
	return "", nil
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
			prompts := a.Prompts()
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
