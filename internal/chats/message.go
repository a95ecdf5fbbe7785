package chats

import (
	"bytes"
	"encoding/json"
	"time"

	"google.golang.org/genai"
)

// MessageType is the "type" of a message record.
type MessageType string

// The message types Gemini CLI records. Only user and gemini messages reach
// the model on resume; the others are UI notices.
const (
	TypeUser    MessageType = "user"
	TypeGemini  MessageType = "gemini"
	TypeInfo    MessageType = "info"
	TypeError   MessageType = "error"
	TypeWarning MessageType = "warning"
)

// ToolCallStatus is the final state of a recorded tool call, using Gemini
// CLI's scheduler status names.
type ToolCallStatus string

// Tool call states as Gemini CLI names them. Recorded calls are normally
// success, error or cancelled; the others appear only in unusual files.
const (
	StatusSuccess          ToolCallStatus = "success"
	StatusError            ToolCallStatus = "error"
	StatusCancelled        ToolCallStatus = "cancelled"
	StatusValidating       ToolCallStatus = "validating"
	StatusScheduled        ToolCallStatus = "scheduled"
	StatusExecuting        ToolCallStatus = "executing"
	StatusAwaitingApproval ToolCallStatus = "awaiting_approval"
)

// Thought is a summary of the model's reasoning shown to the user. It is
// display-only: it is not sent back to the model on resume.
type Thought struct {
	Subject     string
	Description string
	Timestamp   time.Time
}

// Tokens is the usage reported for one model response.
type Tokens struct {
	Input    int // promptTokenCount
	Output   int // candidatesTokenCount
	Cached   int // cachedContentTokenCount
	Thoughts int // thoughtsTokenCount
	Tool     int // toolUsePromptTokenCount
	Total    int // totalTokenCount
	// CacheWrite counts the input written to the provider's prompt
	// cache (Anthropic's; Castor's "cacheWrite", absent for Gemini).
	CacheWrite int
}

// ToolCallRecord is one tool call made by a model message, with its outcome.
type ToolCallRecord struct {
	ID   string
	Name string
	Args map[string]any
	// Result holds the parts sent back to the model: functionResponse parts,
	// possibly followed by inline data the tool produced.
	Result []*genai.Part
	Status ToolCallStatus
	// Timestamp is when the call completed; zero means "now" when recorded.
	Timestamp time.Time
	// AgentID names the subagent that ran the call, if any.
	AgentID string
	// DisplayName defaults to Name when recorded.
	DisplayName string
	Description string
	// ResultDisplay is what the UI showed: a string, or a structured value
	// such as a file diff. It must marshal to JSON.
	ResultDisplay          any
	RenderOutputAsMarkdown bool
	// ThoughtSignature is the signature the model attached to the
	// functionCall part. Gemini CLI does not store it; Castor adds it as an
	// extra "thoughtSignature" field, which Gemini CLI ignores, so that a
	// resumed history carries it back to the model.
	ThoughtSignature []byte
}

// Message is one message record of a session.
type Message struct {
	ID        string
	Timestamp time.Time
	Type      MessageType
	// Content is what was said: for user messages the parts sent to the
	// model, for gemini messages the visible text parts.
	Content []*genai.Part
	// DisplayContent is what the UI showed instead of Content, if different.
	DisplayContent []*genai.Part
	// The fields below are used by gemini messages only.
	Thoughts  []Thought
	ToolCalls []ToolCallRecord
	Tokens    *Tokens
	Model     string
}

// timeLayout is JavaScript's Date.prototype.toISOString, which Gemini CLI
// uses for every timestamp.
const timeLayout = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string {
	return t.UTC().Format(timeLayout)
}

// parseTime accepts ISO 8601 timestamps as JavaScript's Date does for the
// forms Gemini CLI writes; anything else yields the zero time.
func parseTime(s string) time.Time {
	for _, layout := range []string{
		time.RFC3339Nano,
		"2006-01-02T15:04:05.999999999",
		"2006-01-02T15:04Z07:00",
		"2006-01-02",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// wireMessage fixes the key order of a message record to the order Gemini
// CLI writes, which keeps files diffable against Gemini CLI's own.
type wireMessage struct {
	ID             string          `json:"id"`
	Timestamp      string          `json:"timestamp"`
	Type           MessageType     `json:"type"`
	Content        json.RawMessage `json:"content"`
	DisplayContent json.RawMessage `json:"displayContent,omitempty"`
	Thoughts       json.RawMessage `json:"thoughts,omitempty"`
	Tokens         json.RawMessage `json:"tokens,omitempty"`
	Model          string          `json:"model,omitempty"`
	ToolCalls      []wireToolCall  `json:"toolCalls,omitempty"`
}

type wireThought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
	Timestamp   string `json:"timestamp"`
}

type wireTokens struct {
	Input    int `json:"input"`
	Output   int `json:"output"`
	Cached   int `json:"cached"`
	Thoughts int `json:"thoughts"`
	Tool     int `json:"tool"`
	Total    int `json:"total"`
	// CacheWrite is Castor's, omitted when 0 so Gemini's stay Gemini CLI's.
	CacheWrite int `json:"cacheWrite,omitempty"`
}

type wireToolCall struct {
	ID                     string          `json:"id"`
	Name                   string          `json:"name"`
	Args                   map[string]any  `json:"args"`
	Result                 json.RawMessage `json:"result"`
	Status                 ToolCallStatus  `json:"status"`
	Timestamp              string          `json:"timestamp"`
	AgentID                string          `json:"agentId,omitempty"`
	ResultDisplay          any             `json:"resultDisplay,omitempty"`
	Description            string          `json:"description"`
	DisplayName            string          `json:"displayName"`
	RenderOutputAsMarkdown bool            `json:"renderOutputAsMarkdown"`
	ThoughtSignature       []byte          `json:"thoughtSignature,omitempty"`
}

// encodeMessage renders a message as one JSON line (without the newline).
func encodeMessage(m *Message) ([]byte, error) {
	// User content is an array in Gemini CLI's files; everything else is a
	// bare string whenever it is plain text.
	content, err := encodeContent(m.Content, m.Type != TypeUser)
	if err != nil {
		return nil, err
	}
	w := wireMessage{
		ID:        m.ID,
		Timestamp: formatTime(m.Timestamp),
		Type:      m.Type,
		Content:   content,
	}
	if len(m.DisplayContent) > 0 {
		if w.DisplayContent, err = encodeContent(m.DisplayContent, false); err != nil {
			return nil, err
		}
	}
	if m.Type == TypeGemini {
		// Gemini CLI always writes thoughts and tokens on model messages,
		// as [] and null when there are none.
		thoughts := make([]wireThought, 0, len(m.Thoughts))
		for _, t := range m.Thoughts {
			thoughts = append(thoughts, wireThought{t.Subject, t.Description, formatTime(t.Timestamp)})
		}
		if w.Thoughts, err = marshalNoEscape(thoughts); err != nil {
			return nil, err
		}
		w.Tokens = json.RawMessage("null")
		if m.Tokens != nil {
			t := m.Tokens
			if w.Tokens, err = marshalNoEscape(wireTokens{t.Input, t.Output, t.Cached, t.Thoughts, t.Tool, t.Total, t.CacheWrite}); err != nil {
				return nil, err
			}
		}
		w.Model = m.Model
		for i := range m.ToolCalls {
			tc, err := encodeToolCall(&m.ToolCalls[i])
			if err != nil {
				return nil, err
			}
			w.ToolCalls = append(w.ToolCalls, tc)
		}
	}
	return marshalNoEscape(w)
}

func encodeToolCall(c *ToolCallRecord) (wireToolCall, error) {
	w := wireToolCall{
		ID:                     c.ID,
		Name:                   c.Name,
		Args:                   c.Args,
		Result:                 json.RawMessage("null"),
		Status:                 c.Status,
		Timestamp:              formatTime(c.Timestamp),
		AgentID:                c.AgentID,
		Description:            c.Description,
		DisplayName:            c.DisplayName,
		RenderOutputAsMarkdown: c.RenderOutputAsMarkdown,
		ThoughtSignature:       c.ThoughtSignature,
	}
	if w.Args == nil {
		w.Args = map[string]any{}
	}
	if w.DisplayName == "" {
		w.DisplayName = c.Name
	}
	if c.Result != nil {
		r, err := encodeContent(capParts(c.Result, MaxToolOutputSize), false)
		if err != nil {
			return w, err
		}
		w.Result = r
	}
	if c.ResultDisplay != nil {
		w.ResultDisplay = capValue(c.ResultDisplay, MaxToolOutputSize)
	}
	return w, nil
}

// rawString decodes a JSON string, yielding "" for anything else, because
// files written by other programs may hold unexpected types and one odd
// field must not discard a message.
func rawString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func rawInt(raw json.RawMessage) int {
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return 0
	}
	return int(f)
}

func rawObject(raw json.RawMessage) map[string]json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func rawArray(raw json.RawMessage) []json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var a []json.RawMessage
	if json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return a
}

// decodeMessage builds a Message from a record already known to carry a
// string id. Each field is decoded on its own so that one malformed field
// costs only that field.
func decodeMessage(f map[string]json.RawMessage) Message {
	m := Message{
		ID:        rawString(f["id"]),
		Timestamp: parseTime(rawString(f["timestamp"])),
		Type:      MessageType(rawString(f["type"])),
		Model:     rawString(f["model"]),
	}
	m.Content, _ = decodePartList(f["content"])
	m.DisplayContent, _ = decodePartList(f["displayContent"])
	for _, t := range rawArray(f["thoughts"]) {
		o := rawObject(t)
		if o == nil {
			continue
		}
		m.Thoughts = append(m.Thoughts, Thought{
			Subject:     rawString(o["subject"]),
			Description: rawString(o["description"]),
			Timestamp:   parseTime(rawString(o["timestamp"])),
		})
	}
	if o := rawObject(f["tokens"]); o != nil {
		m.Tokens = &Tokens{
			Input:    rawInt(o["input"]),
			Output:   rawInt(o["output"]),
			Cached:   rawInt(o["cached"]),
			Thoughts: rawInt(o["thoughts"]),
			Tool:     rawInt(o["tool"]),
			Total:    rawInt(o["total"]),
			// Castor's own key.
			CacheWrite: rawInt(o["cacheWrite"]),
		}
	}
	for _, tc := range rawArray(f["toolCalls"]) {
		if o := rawObject(tc); o != nil {
			m.ToolCalls = append(m.ToolCalls, decodeToolCall(o))
		}
	}
	return m
}

func decodeToolCall(o map[string]json.RawMessage) ToolCallRecord {
	c := ToolCallRecord{
		ID:          rawString(o["id"]),
		Name:        rawString(o["name"]),
		Status:      ToolCallStatus(rawString(o["status"])),
		Timestamp:   parseTime(rawString(o["timestamp"])),
		AgentID:     rawString(o["agentId"]),
		DisplayName: rawString(o["displayName"]),
		Description: rawString(o["description"]),
	}
	if rawObject(o["args"]) != nil {
		var args map[string]any
		if json.Unmarshal(o["args"], &args) == nil {
			c.Args = args
		}
	}
	parts, wasString := decodePartList(o["result"])
	if wasString && len(parts) > 0 {
		// Old files stored a tool's output as a bare string; Gemini CLI
		// wraps it as {output: …} when rebuilding history, and so do we, at
		// load time, so History has a single shape to handle.
		c.Result = []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
			ID: c.ID, Name: c.Name, Response: map[string]any{"output": textOf(parts)},
		}}}
	} else {
		c.Result = parts
	}
	if rd, ok := o["resultDisplay"]; ok {
		var v any
		if json.Unmarshal(rd, &v) == nil {
			c.ResultDisplay = v
		}
	}
	var md bool
	if json.Unmarshal(o["renderOutputAsMarkdown"], &md) == nil {
		c.RenderOutputAsMarkdown = md
	}
	if s := rawString(o["thoughtSignature"]); s != "" {
		c.ThoughtSignature = decodeSignature(s)
	}
	return c
}
