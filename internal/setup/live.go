package setup

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/chats"
)

// ReloadMemory re-reads the GEMINI.md files and rebuilds the running
// session's system instruction (global memory) and environment context
// (project memory) from them, so that the next model call sees the new
// memory. The environment context was sent with the first prompt: while
// no turn runs, it is replaced in history. /memory refresh and /memory add
// call it.
func (a *Agent) ReloadMemory() {
	if a.prompt == nil {
		return
	}
	a.prompt.reload()
	h := a.Session.History()
	if len(h) == 0 || len(h[0].Parts) == 0 || !strings.HasPrefix(h[0].Parts[0].Text, "<session_context>") {
		return
	}
	first := *h[0]
	first.Parts = append([]*genai.Part{{Text: a.prompt.envContext()}}, first.Parts[1:]...)
	h[0] = &first
	// A running turn keeps the context it has; the system instruction
	// changes for it all the same.
	_ = a.Session.SetHistory(h)
}

// ResumeChat switches the running session to a recorded session of this
// project (ref is an id, a 1-based index or "latest", as --resume takes):
// its conversation replaces the session's history, with the environment
// context first as when resuming at start-up, and recording goes on in its
// file. It returns the resumed session's id and conversation. It fails
// while a turn runs (agent.ErrBusy) and when recording is off.
func (a *Agent) ResumeChat(ref string) (string, []*genai.Content, error) {
	if a.recorder == nil {
		return "", nil, errors.New("cannot resume a session with recording disabled")
	}
	store, err := chats.OpenStore(a.Home.Dir, a.Workspace.Root())
	if err != nil {
		return "", nil, err
	}
	info, err := store.Resolve(ref)
	if err != nil {
		return "", nil, err
	}
	if info.ID == a.recorder.rec.SessionID() {
		return "", nil, fmt.Errorf("session %s is the current session", info.ID)
	}
	conv, err := store.Load(info)
	if err != nil {
		return "", nil, err
	}
	if notice := conv.SkippedNotice(info.Path); notice != "" {
		a.recorder.warn(notice)
	}
	history := append([]*genai.Content{genai.NewContentFromText(a.prompt.envContext(), genai.RoleUser)}, conv.History()...)
	if err := a.Session.SetHistory(history); err != nil {
		return "", nil, err
	}
	rec, err := store.Continue(info)
	if err != nil {
		// The conversation is switched; only its recording is not.
		a.recorder.report(err)
		return conv.SessionID, conv.History(), nil
	}
	// No turn runs (SetHistory succeeded), so nothing records meanwhile.
	a.recorder.mu.Lock()
	old := a.recorder.rec
	a.recorder.rec = rec
	a.recorder.mu.Unlock()
	a.onClose(rec.Close)
	old.Close()
	// The session's budget now counts the resumed session's spending.
	a.recorder.resumeSpending(sessionCost(conv, priceTable(a.Settings))) // budget.go
	return conv.SessionID, conv.History(), nil
}

// liveCommands registers the commands that act on the running session:
// /compress, and /memory whose refresh and add also reload the session's
// memory (the shared command alone only reads the files).
func (a *Agent) liveCommands() {
	a.Commands.Register(&command.Command{
		Name:        "compress",
		Description: "Compresses the context by replacing it with a summary.",
		Execute: func(ctx context.Context, _ *command.Invocation) (*command.Result, error) {
			return CompressMessage(a.Session.Compress(ctx)), nil
		},
	})
	mem, _, _ := a.Commands.Lookup("memory")
	if mem == nil {
		return
	}
	wrapped := *mem
	wrapped.SubCommands = nil
	for _, sub := range mem.SubCommands {
		if sub.Name == "refresh" || sub.Name == "add" {
			sub = a.reloadingAfter(sub)
		}
		wrapped.SubCommands = append(wrapped.SubCommands, sub)
	}
	a.Commands.Register(&wrapped)
}

// reloadingAfter returns a copy of c that reloads memory once c succeeded.
func (a *Agent) reloadingAfter(c *command.Command) *command.Command {
	w := *c
	run := c.Execute
	w.Execute = func(ctx context.Context, inv *command.Invocation) (*command.Result, error) {
		res, err := run(ctx, inv)
		if err == nil && (res == nil || res.MessageType != command.MessageError) {
			a.ReloadMemory()
		}
		return res, err
	}
	return &w
}

// CompressMessage words the outcome of agent.Session.Compress as Gemini
// CLI's /compress does.
func CompressMessage(info *agent.CompressionInfo, err error) *command.Result {
	switch {
	case errors.Is(err, agent.ErrBusy):
		return command.Error("Cannot compress the conversation while a request is running.")
	case errors.Is(err, agent.ErrNothingToCompress):
		return command.Info("Nothing to compress: the conversation is still short.")
	case err != nil:
		return command.Error("Failed to compress chat history: %v", err)
	case info.Status != "COMPRESSED":
		return command.Error("Failed to compress chat history (%s).", info.Status)
	}
	return command.Info("Chat history compressed from %d to %d tokens.", info.OriginalTokens, info.NewTokens)
}
