package chats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"
)

// Conversation is a session as read back from disk, with every patch and
// rewind applied.
type Conversation struct {
	SessionID   string
	ProjectHash string
	StartTime   time.Time
	LastUpdated time.Time
	// Summary is the one-line summary Gemini CLI generates for listings.
	Summary string
	// Directories are workspace directories added during the session.
	Directories []string
	// Kind is "main", "subagent", or empty in old files.
	Kind string
	// MemoryScratchpad is Gemini CLI's memory-extraction metadata, kept
	// verbatim so that migrating a legacy file does not lose it.
	MemoryScratchpad json.RawMessage
	// CostUSD is what the session's model calls have cost so far, in US
	// dollars (Castor's "costUsd", set by SetCost; 0 in Gemini CLI's
	// files), so a resumed session's budget counts it.
	CostUSD  float64
	Messages []Message
	// Skipped are the numbers (from 1) of the lines of a JSONL file that
	// are not whole records and were skipped: the last line of a file cut
	// short by a crash, or a line damaged otherwise. Never set for a
	// legacy JSON file.
	Skipped []int
}

// ErrNotSession reports a file that holds no session: no header with a
// session id and project hash, and not a legacy whole-file record either.
var ErrNotSession = errors.New("not a session file")

// LoadFile reads a session file, JSONL or legacy JSON.
func LoadFile(path string) (*Conversation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseFile(path, data)
}

// parseFile is Parse naming the file in its errors.
func parseFile(path string, data []byte) (*Conversation, error) {
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// messageLog is the ordered id → message map Gemini CLI's loader keeps: a
// record with a known id replaces the earlier one in place.
type messageLog struct {
	list []Message
	pos  map[string]int
}

func (l *messageLog) put(m Message) {
	if l.pos == nil {
		l.pos = map[string]int{}
	}
	if i, ok := l.pos[m.ID]; ok {
		l.list[i] = m
		return
	}
	l.pos[m.ID] = len(l.list)
	l.list = append(l.list, m)
}

// rewind drops the message with the given id and everything after it; an
// unknown id drops everything, as Gemini CLI does.
func (l *messageLog) rewind(id string) {
	i, ok := l.pos[id]
	if !ok {
		i = 0
	}
	for _, m := range l.list[i:] {
		delete(l.pos, m.ID)
	}
	l.list = l.list[:i]
}

func (l *messageLog) reset() {
	l.list = nil
	l.pos = nil
}

// meta accumulates header fields and $set patches.
type meta struct {
	sessionID, projectHash string
	startTime, lastUpdated string
	summary, kind          string
	directories            []string
	scratchpad             json.RawMessage
	costUSD                float64
}

// merge applies the keys of a header or $set record. Values of the wrong
// type are ignored rather than trusted.
func (m *meta) merge(f map[string]json.RawMessage) {
	for k, v := range f {
		switch k {
		case "sessionId":
			m.sessionID = rawString(v)
		case "projectHash":
			m.projectHash = rawString(v)
		case "startTime":
			m.startTime = rawString(v)
		case "lastUpdated":
			m.lastUpdated = rawString(v)
		case "summary":
			m.summary = rawString(v)
		case "kind":
			m.kind = rawString(v)
		case "directories":
			var d []string
			if json.Unmarshal(v, &d) == nil {
				m.directories = d
			} else {
				m.directories = nil
			}
		case "costUsd":
			var f float64
			if json.Unmarshal(v, &f) == nil && f >= 0 {
				m.costUSD = f
			}
		case "memoryScratchpad":
			if t := bytes.TrimSpace(v); len(t) == 0 || string(t) == "null" {
				m.scratchpad = nil
			} else {
				m.scratchpad = append(json.RawMessage(nil), t...)
			}
		}
	}
}

func addMessages(log *messageLog, raw json.RawMessage) {
	for _, e := range rawArray(raw) {
		f := rawObject(e)
		if f == nil {
			continue
		}
		if _, ok := f["id"]; ok && isJSONString(f["id"]) {
			log.put(decodeMessage(f))
		}
	}
}

func isJSONString(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '"' && json.Valid(raw)
}

// Parse reads the bytes of a session file. Lines that do not parse are
// skipped, which is what makes a file cut short by a crash still load.
func Parse(data []byte) (*Conversation, error) {
	var (
		md      meta
		log     messageLog
		skipped []int
	)
	for n, rest := 0, data; len(rest) > 0; {
		var line []byte
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			line, rest = rest, nil
		}
		n++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var f map[string]json.RawMessage
		if line[0] != '{' || json.Unmarshal(line, &f) != nil {
			skipped = append(skipped, n)
			continue
		}
		// Classification follows Gemini CLI's order of checks.
		switch {
		case isJSONString(f["$rewindTo"]):
			log.rewind(rawString(f["$rewindTo"]))
		case isJSONString(f["id"]):
			log.put(decodeMessage(f))
		case rawObject(f["$set"]) != nil:
			set := rawObject(f["$set"])
			if msgs, ok := set["messages"]; ok && rawArray(msgs) != nil {
				// A checkpoint: the message list is replaced wholesale.
				log.reset()
				addMessages(&log, msgs)
			}
			md.merge(set)
		case isJSONString(f["sessionId"]) && isJSONString(f["projectHash"]):
			md.merge(f)
			if msgs, ok := f["messages"]; ok {
				// A whole legacy record written on one line.
				addMessages(&log, msgs)
			}
		}
	}
	if md.sessionID == "" || md.projectHash == "" {
		return parseLegacy(data)
	}
	c := md.conversation(log.list)
	c.Skipped = skipped
	return c, nil
}

// SkippedNotice is the one line that says which lines of the session file
// at path were skipped when it was read, or "" when none were.
func (c *Conversation) SkippedNotice(path string) string {
	n := len(c.Skipped)
	if n == 0 {
		return ""
	}
	if n == 1 {
		return fmt.Sprintf("session file %s: line %d is not a whole record (cut short by a crash?) and was skipped", path, c.Skipped[0])
	}
	const shown = 5
	nums := make([]string, 0, shown)
	for _, l := range c.Skipped[:min(n, shown)] {
		nums = append(nums, strconv.Itoa(l))
	}
	list := strings.Join(nums, ", ")
	if n > shown {
		list += fmt.Sprintf(" and %d more", n-shown)
	}
	return fmt.Sprintf("session file %s: lines %s are not whole records (cut short by a crash?) and were skipped", path, list)
}

func (m *meta) conversation(msgs []Message) *Conversation {
	return &Conversation{
		SessionID:        m.sessionID,
		ProjectHash:      m.projectHash,
		StartTime:        parseTime(m.startTime),
		LastUpdated:      parseTime(m.lastUpdated),
		Summary:          m.summary,
		Directories:      m.directories,
		Kind:             m.kind,
		MemoryScratchpad: m.scratchpad,
		CostUSD:          m.costUSD,
		Messages:         msgs,
	}
}

// parseLegacy reads the single pretty-printed JSON object older Gemini CLI
// versions wrote. Like Gemini CLI it asks only for a sessionId key and keeps
// the messages in file order.
func parseLegacy(data []byte) (*Conversation, error) {
	f := rawObject(data)
	if f == nil {
		return nil, ErrNotSession
	}
	if _, ok := f["sessionId"]; !ok {
		return nil, ErrNotSession
	}
	var md meta
	md.merge(f)
	var msgs []Message
	for _, e := range rawArray(f["messages"]) {
		if o := rawObject(e); o != nil {
			msgs = append(msgs, decodeMessage(o))
		}
	}
	return md.conversation(msgs), nil
}

// History rebuilds the contents to send to the model when the session is
// resumed, following Gemini CLI's convertSessionToClientHistory:
//
//   - user messages become user contents, except empty ones, slash (/) and
//     help (?) commands, and injected <session_context>/<hook_context>;
//   - a gemini message becomes a model content (its text, then a
//     functionCall part per tool call, carrying the call id and any
//     recorded thought signature), followed by one user content holding the
//     functionResponse parts of its calls, in call order;
//   - info, error and warning messages are skipped.
//
// Where Castor deliberately differs: thought summaries are left out (Gemini
// CLI adds them as thought text and strips them again before sending), a
// tool call without a result gets no functionCall part (an unanswered call
// would make the next request invalid), and a function response is sent
// once even where the file holds it several times (newer Gemini CLI
// versions record it in the tool call and again as a user message, and
// after a resume copy a turn's responses into every call of the turn).
func (c *Conversation) History() []*genai.Content {
	var out []*genai.Content
	answered := map[string]bool{}
	for i := range c.Messages {
		m := &c.Messages[i]
		switch m.Type {
		case TypeUser:
			if isIgnoredUserContent(strings.TrimSpace(partsString(m.Content))) {
				continue
			}
			var parts []*genai.Part
			for _, p := range m.Content {
				if p == nil {
					continue
				}
				if fr := p.FunctionResponse; fr != nil && fr.ID != "" && answered[fr.ID] {
					continue
				}
				parts = append(parts, p)
			}
			if len(parts) > 0 {
				out = append(out, &genai.Content{Role: genai.RoleUser, Parts: parts})
			}
		case TypeGemini:
			model, responses := modelTurn(m)
			if len(model) == 0 {
				continue
			}
			out = append(out, &genai.Content{Role: genai.RoleModel, Parts: model})
			if len(responses) > 0 {
				for _, p := range responses {
					if p.FunctionResponse != nil && p.FunctionResponse.ID != "" {
						answered[p.FunctionResponse.ID] = true
					}
				}
				out = append(out, &genai.Content{Role: genai.RoleUser, Parts: responses})
			}
		}
	}
	return out
}

// modelTurn splits a gemini message into its model parts and the parts of
// the user turn answering its tool calls.
func modelTurn(m *Message) (model, responses []*genai.Part) {
	content := compactParts(m.Content)
	modern := false
	for _, p := range content {
		if p.FunctionCall != nil || p.Thought {
			modern = true
			break
		}
	}
	if modern {
		// Content rewritten from live history (Gemini CLI does this after
		// compression or rollback) is the source of truth for model parts.
		// Thought text without a signature is display material only.
		for _, p := range content {
			if p.Thought && len(p.ThoughtSignature) == 0 {
				continue
			}
			model = append(model, p)
		}
	} else {
		model = append(model, content...)
		for i := range m.ToolCalls {
			tc := &m.ToolCalls[i]
			if len(tc.Result) == 0 {
				continue
			}
			model = append(model, &genai.Part{
				FunctionCall:     &genai.FunctionCall{ID: tc.ID, Name: tc.Name, Args: tc.Args},
				ThoughtSignature: tc.ThoughtSignature,
			})
		}
	}
	// After a resume, Gemini CLI syncs each call's result to the whole
	// response turn, so every call of a multi-call turn carries all of the
	// turn's responses. Replaying them as stored would answer each call
	// several times; keep each response (and each identical result) once.
	answered := map[string]bool{}
	var seen [][]*genai.Part
	for i := range m.ToolCalls {
		res := compactParts(m.ToolCalls[i].Result)
		if slices.ContainsFunc(seen, func(prev []*genai.Part) bool { return reflect.DeepEqual(prev, res) }) {
			continue
		}
		seen = append(seen, res)
		for _, p := range res {
			if fr := p.FunctionResponse; fr != nil && fr.ID != "" {
				if answered[fr.ID] {
					continue
				}
				answered[fr.ID] = true
			}
			responses = append(responses, p)
		}
	}
	return model, responses
}

// isIgnoredUserContent mirrors Gemini CLI: these user records are commands
// or injected context, not conversation.
func isIgnoredUserContent(trimmed string) bool {
	return trimmed == "" ||
		strings.HasPrefix(trimmed, "/") ||
		strings.HasPrefix(trimmed, "?") ||
		strings.HasPrefix(trimmed, "<session_context>") ||
		strings.HasPrefix(trimmed, "<hook_context>")
}

// isResumable mirrors Gemini CLI's isResumableMessageRecord: a session with
// no such message is not listed.
func isResumable(m *Message) bool {
	switch m.Type {
	case TypeUser:
		return !isIgnoredUserContent(strings.TrimSpace(partsString(m.Content)))
	case TypeGemini:
		return strings.TrimSpace(partsString(m.Content)) != "" ||
			len(m.ToolCalls) > 0 || len(m.Thoughts) > 0
	}
	return false
}

// IsPrompt reports whether m is a prompt the user sent, one a rewind can
// go back to: a user message with text that Gemini CLI's history keeps
// (not a slash command, nor injected context, nor a tool's answer).
func (m *Message) IsPrompt() bool {
	return m.Type == TypeUser && m.PromptText() != "" && !isIgnoredUserContent(strings.TrimSpace(partsString(m.Content)))
}

// PromptText is a user message's text as the user saw it: its display
// content when it has one, else its content's text parts.
func (m *Message) PromptText() string {
	parts := m.DisplayContent
	if len(parts) == 0 {
		parts = m.Content
	}
	var sb strings.Builder
	for _, p := range parts {
		if p != nil && !p.Thought {
			sb.WriteString(p.Text)
		}
	}
	return sb.String()
}
