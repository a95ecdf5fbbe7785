package agent

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/genai"
)

// Prompt is one user prompt of the session, as Prompts lists it and
// Rewind takes it back.
type Prompt struct {
	// ID is the prompt's id ("<session>########<n>"), which checkpoints
	// and events carry.
	ID string
	// Text is the prompt's text parts, joined.
	Text string
	// Time is when it was sent.
	Time time.Time
}

// RewindRecorder is implemented by recorders that can record a rewind
// (Gemini CLI's $rewindTo record), so that a resumed session shows the
// rewound history.
type RewindRecorder interface {
	// RecordRewind drops the prompt promptID and everything after it
	// from the recording.
	RecordRewind(promptID string) error
}

// ErrNoSuchPrompt is returned by Rewind for a prompt the session cannot
// go back to.
var ErrNoSuchPrompt = errors.New("no such prompt to rewind to")

// promptMark is where a prompt starts in history. content is the history
// entry at that place when the prompt was sent: once history is replaced
// (compression, SetHistory) the entry differs, and the mark is dropped.
type promptMark struct {
	Prompt
	at      int
	content *genai.Content
}

// markPrompt records the prompt just added at or after index at.
func (s *Session) markPrompt(at int, id string, parts []*genai.Part, when time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if at >= len(s.hist) {
		at = len(s.hist) - 1 // joined to the user content before it
	}
	if at < 0 {
		return
	}
	var text []string
	for _, p := range parts {
		if p != nil && p.Text != "" && !p.Thought {
			text = append(text, p.Text)
		}
	}
	s.marks = append(s.marks, promptMark{Prompt: Prompt{ID: id, Text: strings.Join(text, ""), Time: when}, at: at, content: s.hist[at]})
}

// markHistory marks the prompts of a history the session starts with (a
// resumed conversation, an A2A task restored after a restart), so that
// they can be rewound to as well: each user content with text other than
// the context Castor sends along. Their time is unknown (zero), which
// keeps a face from guessing which checkpoint followed them.
func (s *Session) markHistory() {
	for i, c := range s.hist {
		if c == nil || c.Role != genai.RoleUser {
			continue
		}
		var text []string
		for _, p := range c.Parts {
			if p == nil || p.Text == "" || p.Thought || isSentContext(p.Text) {
				continue
			}
			text = append(text, p.Text)
		}
		if len(text) == 0 {
			continue
		}
		id := fmt.Sprintf("%s########restored-%d", s.cfg.SessionID, len(s.marks)+1)
		s.marks = append(s.marks, promptMark{Prompt: Prompt{ID: id, Text: strings.Join(text, "")}, at: i, content: c})
	}
}

// isSentContext reports whether a text part is context sent with a
// prompt rather than the prompt: the environment context, a compression
// summary, the editor's context.
func isSentContext(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range []string{"<session_context>", "<state_snapshot>", "Here is the user's editor context", "Here is a summary of changes in the user's editor context"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// validMarksLocked finds each mark's entry in history, which a repair
// may have moved (answers inserted for calls left without one), and
// drops the marks history no longer holds.
func (s *Session) validMarksLocked() {
	keep := s.marks[:0]
	from := 0
	for _, m := range s.marks {
		for j := max(from, m.at); j < len(s.hist); j++ {
			if s.hist[j] == m.content {
				m.at, from = j, j
				keep = append(keep, m)
				break
			}
		}
	}
	s.marks = keep
}

// Prompts lists the prompts of this session the conversation can be
// rewound to, oldest first: those sent since the session began (or since
// its history was last replaced, by compression or SetHistory).
func (s *Session) Prompts() []Prompt {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.validMarksLocked()
	out := make([]Prompt, len(s.marks))
	for i, m := range s.marks {
		out[i] = m.Prompt
	}
	return out
}

// Rewind takes the conversation back to just before the prompt id: the
// prompt and everything after it leave the history (and the recording,
// when the recorder can record a rewind), as Gemini CLI's /rewind does.
// It returns the prompt taken back, whose text a face may offer for
// editing. It fails while a turn runs (ErrBusy) and for a prompt Prompts
// does not list (ErrNoSuchPrompt). Files are not touched: restoring them
// is the checkpoints' business.
func (s *Session) Rewind(id string) (Prompt, error) {
	return s.RewindWith(id, nil)
}

// RewindWith is Rewind with first, when set, run once the prompt is found
// and no turn can start, before anything changes: a face restores the
// files there, and its error leaves the conversation as it was.
func (s *Session) RewindWith(id string, first func(Prompt) error) (Prompt, error) {
	if !s.turn.TryLock() {
		return Prompt{}, ErrBusy
	}
	defer s.turn.Unlock()
	s.mu.Lock()
	s.validMarksLocked()
	i := -1
	for j, m := range s.marks {
		if m.ID == id {
			i = j
			break
		}
	}
	if i < 0 {
		s.mu.Unlock()
		return Prompt{}, fmt.Errorf("%w: %q", ErrNoSuchPrompt, id)
	}
	m := s.marks[i]
	if first != nil {
		s.mu.Unlock()
		if err := first(m.Prompt); err != nil {
			return Prompt{}, err
		}
		s.mu.Lock()
	}
	s.hist = RepairHistory(cloneContents(s.hist[:m.at]), reasonRestored)
	s.marks = s.marks[:i]
	s.pending = nil
	s.lastPrompt = 0
	s.started = len(s.hist) > 0
	s.mu.Unlock()
	if rr, ok := s.cfg.Recorder.(RewindRecorder); ok {
		if err := rr.RecordRewind(id); err != nil {
			return m.Prompt, fmt.Errorf("the conversation is rewound, but its recording is not: %w", err)
		}
	}
	return m.Prompt, nil
}
