package setup

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/google/uuid"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/model"
)

func newSessionID() string { return uuid.NewString() }

// openRecording starts recording the session, or continues the recorded
// session o.Resume names, returning its history (after a fresh environment
// context) and id. A recording that cannot start is reported and skipped;
// a session that cannot be resumed is an error. With recording disabled
// the history is o.History.
func openRecording(o Options, a *Agent, sessionID string, envContext func() string) ([]*genai.Content, agent.Recorder, string, error) {
	if o.DisableRecording {
		if o.Resume != "" {
			return nil, nil, "", &ResumeError{Err: errors.New("cannot resume a session with recording disabled")}
		}
		return o.History, nil, sessionID, nil
	}
	wd := a.Workspace.Dirs()[0]
	store, err := chats.OpenStore(a.Home.Dir, wd)
	if err != nil {
		if o.Resume != "" {
			return nil, nil, "", &ResumeError{Err: err}
		}
		o.Warn("session recording is off: " + err.Error())
		return o.History, nil, sessionID, nil
	}
	record := func(r *chats.Recorder) agent.Recorder {
		a.onClose(r.Close)
		return &chatRecorder{rec: r, warn: o.Warn}
	}
	if o.Resume != "" {
		info, err := store.Resolve(o.Resume)
		switch {
		case err != nil && o.Resume == chats.Latest && errors.Is(err, chats.ErrNoSessions):
			// Gemini CLI starts afresh when there is nothing to resume.
			o.Warn(err.Error() + " Starting a new session.")
		case err != nil:
			return nil, nil, "", &ResumeError{Err: err}
		default:
			conv, err := store.Load(info)
			if err != nil {
				return nil, nil, "", &ResumeError{Err: err}
			}
			if notice := conv.SkippedNotice(info.Path); notice != "" {
				o.Warn(notice) // said here only, not by every later read of the file
			}
			rec, err := store.Continue(info)
			if err != nil {
				return nil, nil, "", &ResumeError{Err: err}
			}
			history := append([]*genai.Content{genai.NewContentFromText(envContext(), genai.RoleUser)}, conv.History()...)
			r := record(rec)
			r.(*chatRecorder).spent = sessionCost(conv, priceTable(a.Settings)) // budget.go
			return history, r, conv.SessionID, nil
		}
	}
	rec, err := store.Create(sessionID, chats.CreateOptions{Directories: a.Workspace.Dirs()})
	if err != nil {
		o.Warn("session recording is off: " + err.Error())
		return o.History, nil, sessionID, nil
	}
	return o.History, record(rec), sessionID, nil
}

// chatRecorder records the engine's conversation in Gemini CLI's session
// file format. A failing disk never ends the session: the problem is
// reported once and recording goes on trying.
type chatRecorder struct {
	rec    *chats.Recorder
	warn   func(string)
	warned bool
	// spent is what a resumed session had cost before this process;
	// budget is the session's (nil without one), started from it.
	spent  float64
	budget *model.Budget
	// prompts maps the engine's prompt ids to their user messages, for
	// RecordRewind and engineID; mu guards it (a turn records while a
	// face lists).
	mu      sync.Mutex
	prompts map[string]string
}

func (c *chatRecorder) report(err error) {
	if err != nil && !c.warned {
		c.warned = true
		c.warn("session recording failed: " + err.Error())
	}
}

func (c *chatRecorder) RecordUser(promptID string, parts []*genai.Part) {
	id, err := c.rec.RecordUser("", parts, "")
	c.report(err)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil && promptID != "" {
		if c.prompts == nil {
			c.prompts = map[string]string{}
		}
		c.prompts[promptID] = id
	}
}

// engineID is the engine's id of the prompt recorded as message id, ""
// for a prompt this process did not send.
func (c *chatRecorder) engineID(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for engine, rec := range c.prompts {
		if rec == id {
			return engine
		}
	}
	return ""
}

// RecordRewind implements agent.RewindRecorder with Gemini CLI's
// $rewindTo record.
func (c *chatRecorder) RecordRewind(promptID string) error {
	c.mu.Lock()
	id, ok := c.prompts[promptID]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("prompt %s was not recorded", promptID)
	}
	return c.rec.RewindTo(id)
}

func (c *chatRecorder) RecordError(msg string) {
	_, err := c.rec.RecordError(msg)
	c.report(err)
}

func (c *chatRecorder) RecordModel(t *agent.ModelTurn) {
	m := chats.Message{ID: t.ID, Timestamp: t.Time, Model: t.Model}
	if t.Content != nil {
		m.Content = t.Content.Parts
	}
	for _, th := range t.Thoughts {
		m.Thoughts = append(m.Thoughts, chats.Thought{Subject: th.Subject, Description: th.Description, Timestamp: t.Time})
	}
	if u := t.Usage; u != nil {
		m.Tokens = &chats.Tokens{
			Input: int(u.PromptTokenCount), Output: int(u.CandidatesTokenCount), Cached: int(u.CachedContentTokenCount),
			Thoughts: int(u.ThoughtsTokenCount), Tool: int(u.ToolUsePromptTokenCount), Total: int(u.TotalTokenCount),
			CacheWrite: int(model.CacheWriteTokens(u)),
		}
	}
	for _, call := range t.Calls {
		r := chats.ToolCallRecord{
			ID: call.ID, Name: call.Name, Args: call.Args, Result: call.Response,
			Status: chats.ToolCallStatus(call.Status), Timestamp: call.Ended,
			DisplayName: call.Name, Description: call.Description,
		}
		if call.Tool != nil {
			r.DisplayName = call.Tool.DisplayName()
		}
		if res := call.Result; res != nil {
			if res.Diff != nil {
				r.ResultDisplay = res.Diff
			} else {
				r.ResultDisplay = res.Display
			}
		}
		m.ToolCalls = append(m.ToolCalls, r)
	}
	_, err := c.rec.RecordModel(m)
	c.report(err)
}

// Recorded reports whether the session's file holds anything to resume:
// the file is created by the first record, so a session that never got a
// prompt has none, and an exit hint pointing at --resume would fail.
func (a *Agent) Recorded() bool {
	if a.recorder == nil {
		return false
	}
	_, err := os.Stat(a.recorder.rec.Path())
	return err == nil
}
