package chats

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/fsutil"
)

// ErrClosed is returned by a Recorder used after Close.
var ErrClosed = errors.New("chats: recorder is closed")

// Recorder appends a live conversation to its session file. Each call
// writes whole lines with one write before returning, so a crash or kill
// at any point leaves a file whose lines all parse (or, if the kernel tore
// the very last write, whose last line alone is dropped on load): once
// write returned the lines are the kernel's, whatever becomes of the
// process.
//
// The file is synced to disk (fsync) when a turn ends (a model response
// that calls no tool, an error), before a rewind's record returns (the
// rewind then restores files), when a resumed file is taken up, and on
// Close; not after every record, where it was most of what recording cost
// a run. Only a power loss or a kernel crash can lose what a turn
// recorded before it ended. A Recorder is safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	now    func() time.Time
	newID  func() string
	conv   Conversation
	pos    map[string]int
	sigs   map[string][]byte
	closed bool
	// pending are lines not yet on disk: the header and any metadata
	// patches of a session whose file the first record creates (f is nil
	// until then). They go out in the same write as that record.
	pending [][]byte
	// alt is the file to create instead when path was taken meanwhile by
	// another session whose id starts the same (Store.Create).
	alt string
	// unsynced is set by a write not yet synced to disk.
	unsynced bool
	// fsync syncs the file (f.Sync; a test counts the calls).
	fsync func(*os.File) error
}

func newRecorder(f *os.File, path string, conv Conversation, now func() time.Time, newID func() string) *Recorder {
	r := &Recorder{f: f, path: path, now: now, newID: newID, conv: conv, pos: map[string]int{}, sigs: map[string][]byte{}, fsync: (*os.File).Sync}
	for i, m := range conv.Messages {
		r.pos[m.ID] = i
	}
	return r
}

// SessionID is the id of the recorded session.
func (r *Recorder) SessionID() string { return r.conv.SessionID }

// Path is the file being written. It may change until the first record
// creates the file (a name clash, see Store.Create).
func (r *Recorder) Path() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.path
}

// Conversation returns a snapshot of what has been recorded so far.
func (r *Recorder) Conversation() *Conversation {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.conv
	c.Messages = slices.Clone(r.conv.Messages)
	c.Directories = slices.Clone(r.conv.Directories)
	return &c
}

// RecordUser records a user turn. parts are what the model receives;
// displayText, when set and different, is what the user typed and saw (for
// example before @file expansion). An empty id is replaced by a new UUID;
// the id used is returned.
//
// Function responses should not be recorded here: they belong to the model
// message's tool calls (see UpdateToolCalls), which is where Gemini CLI
// rebuilds them from on resume.
func (r *Recorder) RecordUser(id string, parts []*genai.Part, displayText string) (string, error) {
	m := Message{ID: id, Type: TypeUser, Content: compactParts(parts)}
	if displayText != "" && displayText != partsString(m.Content) {
		m.DisplayContent = []*genai.Part{{Text: displayText}}
	}
	return r.record(m, false)
}

// RecordModel records a model response. Content should hold the visible
// text parts; thought parts are dropped (their summaries belong in
// Thoughts) and functionCall parts are dropped after their thought
// signatures are remembered for the matching ToolCallRecord, because Gemini
// CLI keeps calls only in toolCalls. Tool calls may be given now or later
// through UpdateToolCalls; a call is only replayed to the model on resume
// once it has a Result. A response that calls no tool ends its turn: the
// file is synced. The id used is returned.
func (r *Recorder) RecordModel(m Message) (string, error) {
	m.Type = TypeGemini
	var content []*genai.Part
	sigs := map[string][]byte{}
	calls := len(m.ToolCalls) > 0
	for _, p := range m.Content {
		switch {
		case p == nil:
		case p.FunctionCall != nil:
			calls = true
			if len(p.ThoughtSignature) > 0 && p.FunctionCall.ID != "" {
				sigs[p.FunctionCall.ID] = p.ThoughtSignature
			}
		case p.Thought:
		default:
			content = append(content, p)
		}
	}
	m.Content = content
	r.mu.Lock()
	for k, v := range sigs {
		r.sigs[k] = v
	}
	r.mu.Unlock()
	return r.record(m, !calls)
}

// RecordInfo records an informational notice shown to the user.
func (r *Recorder) RecordInfo(text string) (string, error) {
	return r.record(Message{Type: TypeInfo, Content: textParts(text)}, false)
}

// RecordWarning records a warning shown to the user.
func (r *Recorder) RecordWarning(text string) (string, error) {
	return r.record(Message{Type: TypeWarning, Content: textParts(text)}, false)
}

// RecordError records an error shown to the user. An error ends a turn:
// the file is synced.
func (r *Recorder) RecordError(text string) (string, error) {
	return r.record(Message{Type: TypeError, Content: textParts(text)}, true)
}

func textParts(s string) []*genai.Part {
	if s == "" {
		return nil
	}
	return []*genai.Part{{Text: s}}
}

// record appends a new message followed, as Gemini CLI does, by a
// lastUpdated patch; both lines go out in one write. ends says the
// message ends a turn: the file is synced after it.
func (r *Recorder) record(m Message, ends bool) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return "", ErrClosed
	}
	now := r.now()
	if m.ID == "" {
		m.ID = r.newID()
	}
	if m.Timestamp.IsZero() {
		m.Timestamp = now
	}
	if len(m.Thoughts) > 0 {
		m.Thoughts = slices.Clone(m.Thoughts)
		for i := range m.Thoughts {
			if m.Thoughts[i].Timestamp.IsZero() {
				m.Thoughts[i].Timestamp = now
			}
		}
	}
	m.ToolCalls = r.completeCalls(nil, m.ToolCalls, now)
	set, err := setLine(map[string]any{"lastUpdated": formatTime(now)})
	if err != nil {
		return "", err
	}
	if err := r.appendMessage(m, set); err != nil {
		return "", err
	}
	r.conv.LastUpdated = now
	if ends {
		if err := r.sync(); err != nil {
			return "", err
		}
	}
	return m.ID, nil
}

// completeCalls merges calls into existing ones by id (a later record of a
// call replaces the earlier one, keeping what the new one leaves empty) and
// fills defaults. It never modifies the caller's slices.
func (r *Recorder) completeCalls(existing, calls []ToolCallRecord, now time.Time) []ToolCallRecord {
	out := slices.Clone(existing)
	for _, c := range calls {
		i := slices.IndexFunc(out, func(o ToolCallRecord) bool { return o.ID == c.ID })
		if i >= 0 {
			old := out[i]
			if len(c.ThoughtSignature) == 0 {
				c.ThoughtSignature = old.ThoughtSignature
			}
			if c.Description == "" {
				c.Description = old.Description
			}
			if c.Timestamp.IsZero() {
				c.Timestamp = old.Timestamp
			}
		}
		if len(c.ThoughtSignature) == 0 {
			c.ThoughtSignature = r.sigs[c.ID]
		}
		if c.Timestamp.IsZero() {
			c.Timestamp = now
		}
		if c.DisplayName == "" {
			c.DisplayName = c.Name
		}
		if i >= 0 {
			out[i] = c
		} else {
			out = append(out, c)
		}
	}
	return out
}

func (r *Recorder) remember(m Message) {
	if i, ok := r.pos[m.ID]; ok {
		r.conv.Messages[i] = m
		return
	}
	r.pos[m.ID] = len(r.conv.Messages)
	r.conv.Messages = append(r.conv.Messages, m)
}

// UpdateToolCalls records tool calls, typically with their results, on the
// model message that made them. Gemini CLI does this by appending the whole
// message again under the same id; readers keep the last version in the
// original position. An empty messageID means the last message if it is a
// model message, and otherwise a new, text-less model message, as Gemini
// CLI does.
func (r *Recorder) UpdateToolCalls(messageID string, calls []ToolCallRecord) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	now := r.now()
	var m Message
	switch i, ok := r.pos[messageID]; {
	case messageID != "" && ok:
		m = r.conv.Messages[i]
	case messageID != "":
		return fmt.Errorf("chats: no message %q in session %s", messageID, r.conv.SessionID)
	case len(r.conv.Messages) > 0 && r.conv.Messages[len(r.conv.Messages)-1].Type == TypeGemini:
		m = r.conv.Messages[len(r.conv.Messages)-1]
	default:
		m = Message{ID: r.newID(), Timestamp: now, Type: TypeGemini}
	}
	if m.Type != TypeGemini {
		return fmt.Errorf("chats: message %q is a %s message, not a model message", m.ID, m.Type)
	}
	m.ToolCalls = r.completeCalls(m.ToolCalls, calls, now)
	return r.appendMessage(m)
}

// SetTokens attaches token usage to a model message that was recorded
// before the usage was known.
func (r *Recorder) SetTokens(messageID string, t Tokens) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	i, ok := r.pos[messageID]
	if !ok || r.conv.Messages[i].Type != TypeGemini {
		return fmt.Errorf("chats: no model message %q in session %s", messageID, r.conv.SessionID)
	}
	m := r.conv.Messages[i]
	m.Tokens = &t
	return r.appendMessage(m)
}

// appendMessage appends m to the file, whether new or a new version of a
// recorded message (readers keep the last version), followed by extra
// lines in the same write, and only once that is written takes m into
// memory, so that a failed write leaves the file and the memory agreeing.
func (r *Recorder) appendMessage(m Message, extra ...[]byte) error {
	line, err := encodeMessage(&m)
	if err != nil {
		return err
	}
	if err := r.append(append([][]byte{line}, extra...)...); err != nil {
		return err
	}
	r.remember(m)
	return nil
}

// SetSummary stores the session's one-line summary, which listings show in
// place of the first user message.
func (r *Recorder) SetSummary(summary string) error {
	return r.patch(map[string]any{"summary": summary}, func(c *Conversation) { c.Summary = summary })
}

// SetCost stores what the session has cost so far, in US dollars, for
// a resumed session's budget (Conversation.CostUSD). Money spent stays
// spent: a rewind does not take it back.
func (r *Recorder) SetCost(usd float64) error {
	return r.patch(map[string]any{"costUsd": usd}, func(c *Conversation) { c.CostUSD = usd })
}

// SetDirectories stores the workspace directories of the session.
func (r *Recorder) SetDirectories(dirs []string) error {
	dirs = slices.Clone(dirs)
	if dirs == nil {
		dirs = []string{}
	}
	return r.patch(map[string]any{"directories": dirs}, func(c *Conversation) { c.Directories = dirs })
}

func (r *Recorder) patch(set map[string]any, apply func(*Conversation)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	line, err := setLine(set)
	if err != nil {
		return err
	}
	if r.f == nil && len(r.conv.Messages) == 0 {
		// Metadata alone does not make a session worth a file: it waits
		// for the first message.
		r.pending = append(r.pending, line)
		apply(&r.conv)
		return nil
	}
	if err := r.append(line); err != nil {
		return err
	}
	apply(&r.conv)
	return nil
}

// RewindTo removes the message with the given id and every later one, as
// Gemini CLI's /rewind does, by appending a $rewindTo record, synced
// before it returns: the caller may go on to restore files to that point,
// and a power loss must not leave them restored and the rewind unrecorded.
func (r *Recorder) RewindTo(messageID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	i, ok := r.pos[messageID]
	if !ok {
		return fmt.Errorf("chats: no message %q in session %s", messageID, r.conv.SessionID)
	}
	line, err := marshalNoEscape(map[string]string{"$rewindTo": messageID})
	if err != nil {
		return err
	}
	if err := r.append(line); err != nil {
		return err
	}
	if err := r.sync(); err != nil {
		return err
	}
	for _, m := range r.conv.Messages[i:] {
		delete(r.pos, m.ID)
	}
	r.conv.Messages = r.conv.Messages[:i:i]
	return nil
}

// Sync syncs what was recorded to disk, as the end of a turn does.
func (r *Recorder) Sync() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	return r.sync()
}

// sync fsyncs the file if a write went out since the last sync.
func (r *Recorder) sync() error {
	if r.f == nil || !r.unsynced {
		return nil
	}
	if err := r.fsync(r.f); err != nil {
		return fmt.Errorf("chats: syncing %s: %w", r.path, err)
	}
	r.unsynced = false
	return nil
}

// Close syncs and closes the file. Further calls return ErrClosed.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if r.f == nil {
		return nil
	}
	err := r.sync()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func setLine(set map[string]any) ([]byte, error) {
	return marshalNoEscape(map[string]any{"$set": set})
}

// append writes lines in a single write, not synced (see Recorder). If
// the write fails part way (a full disk), the partial bytes are cut off
// again so that the next record does not fuse with a fragment; this is
// skipped if someone else has appended meanwhile (Gemini CLI adds
// summaries to live files). The first append of a new session creates its
// file and writes the pending header first; they stay pending until a
// write of them succeeds.
func (r *Recorder) append(lines ...[]byte) error {
	if r.f == nil {
		if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
			return err
		}
		// A chats folder an older version created open is closed.
		_ = fsutil.DropGroupOther(filepath.Dir(r.path))
		// O_EXCL: two sessions must never share a file, and a file name
		// clash (same id prefix within one minute) is better reported
		// than merged.
		f, err := os.OpenFile(r.path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
		if errors.Is(err, fs.ErrExist) && r.alt != "" && sessionIDOf(r.path) != r.conv.SessionID {
			// Another session whose id starts the same began this
			// minute, after Create looked: the longer name is ours. (The
			// same session started twice is refused, as by Create.)
			r.path, r.alt = r.alt, ""
			f, err = os.OpenFile(r.path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
		}
		if err != nil {
			return err
		}
		r.f = f
	}
	var buf bytes.Buffer
	for _, l := range append(slices.Clone(r.pending), lines...) {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	st, err := r.f.Stat()
	if err != nil {
		return err
	}
	n, err := r.f.Write(buf.Bytes())
	if err != nil {
		if n > 0 {
			if st2, serr := r.f.Stat(); serr == nil && st2.Size() == st.Size()+int64(n) {
				_ = r.f.Truncate(st.Size())
			}
		}
		return fmt.Errorf("chats: writing %s: %w", r.path, err)
	}
	r.pending = nil
	r.unsynced = true
	return nil
}

// terminateLastLine makes sure the next append starts on a fresh line. A
// file whose last write was torn by a crash ends mid-line; appending
// straight after it would glue our first record onto the fragment and lose
// both. The fragment stays (it is ignored on load); we only end it. The
// caller syncs.
func terminateLastLine(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() == 0 {
		return nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], st.Size()-1); err != nil && err != io.EOF {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	_, err = f.Write([]byte{'\n'})
	return err
}
