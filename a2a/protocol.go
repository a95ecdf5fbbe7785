package a2a

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"
)

// ProtocolVersion is the A2A version this server speaks, the one Gemini
// CLI's clients (@a2a-js/sdk 0.3.x) use.
const ProtocolVersion = "0.3.0"

// TaskState is an A2A 0.3 task state, as the wire writes it.
type TaskState string

// Task states (A2A 0.3.0).
const (
	StateSubmitted     TaskState = "submitted"
	StateWorking       TaskState = "working"
	StateInputRequired TaskState = "input-required"
	StateCompleted     TaskState = "completed"
	StateCanceled      TaskState = "canceled"
	StateFailed        TaskState = "failed"
	StateRejected      TaskState = "rejected"
	StateAuthRequired  TaskState = "auth-required"
	StateUnknown       TaskState = "unknown"
)

// Terminal reports whether no message may continue a task in state s:
// completed, canceled, failed and rejected (as A2A 0.3 says).
func (s TaskState) Terminal() bool {
	return s == StateCompleted || s == StateCanceled || s == StateFailed || s == StateRejected
}

// The wire types below are A2A 0.3's as Gemini CLI's server writes them
// (and as @a2a-js/sdk 0.3.x reads and writes them): Castor's own, since
// a2a-go's 0.3 module wrote other bytes (it left out an empty artifacts
// list and a false append, wrote a missing data part as null and ordered
// the keys otherwise) and, linked, cost every start its init work.

// Message is an A2A message.
type Message struct {
	Kind             string         `json:"kind"`
	Role             string         `json:"role"`
	MessageID        string         `json:"messageId"`
	Parts            []Part         `json:"parts"`
	TaskID           string         `json:"taskId,omitempty"`
	ContextID        string         `json:"contextId,omitempty"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
	Metadata         map[string]any `json:"metadata,omitempty"`
}

// Part kinds.
const (
	PartText = "text"
	PartFile = "file"
	PartData = "data"
)

// Part is a text, file or data part; Kind says which fields count.
type Part struct {
	Kind     string
	Text     string
	File     *FileContent
	Data     any
	Metadata map[string]any
}

// FileContent is a file part's file: inline bytes (base64) or a URI.
type FileContent struct {
	Bytes    string `json:"bytes,omitempty"`
	URI      string `json:"uri,omitempty"`
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// decodeBytes returns the file's inline bytes. Clients write base64
// padded or not, in the standard or the URL alphabet (Go's []byte is
// padded standard, browsers' base64url is neither), so each is accepted.
// Bytes none of them reads get standard base64's error: the last form's
// would point at a '+' or '/' rather than at the byte that is wrong.
func (f *FileContent) decodeBytes() ([]byte, error) {
	var first error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(f.Bytes)
		if err == nil {
			return b, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// TextPart returns a text part.
func TextPart(s string) Part { return Part{Kind: PartText, Text: s} }

// DataPart returns a data part.
func DataPart(v any) Part { return Part{Kind: PartData, Data: v} }

// MarshalJSON writes only the fields of the part's kind, so that an empty
// text still appears as "text":"" and a missing data as {}.
func (p Part) MarshalJSON() ([]byte, error) {
	// A field left nil is left out; the kind's own field is set, even to
	// a nil file, which is written as null.
	out := struct {
		Kind     string         `json:"kind"`
		Text     *string        `json:"text,omitempty"`
		File     any            `json:"file,omitempty"`
		Data     any            `json:"data,omitempty"`
		Metadata map[string]any `json:"metadata,omitempty"`
	}{Kind: p.Kind, Metadata: p.Metadata}
	switch p.Kind {
	case PartText:
		out.Text = &p.Text
	case PartFile:
		out.File = p.File
	case PartData:
		out.Data = p.Data
		if out.Data == nil {
			out.Data = map[string]any{}
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a part and checks it has the fields its kind needs.
func (p *Part) UnmarshalJSON(b []byte) error {
	var raw struct {
		Kind     string          `json:"kind"`
		Text     *string         `json:"text"`
		File     *FileContent    `json:"file"`
		Data     json.RawMessage `json:"data"`
		Metadata map[string]any  `json:"metadata"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*p = Part{Kind: raw.Kind, Metadata: raw.Metadata}
	switch raw.Kind {
	case PartText:
		if raw.Text == nil {
			return fmt.Errorf("text part without text")
		}
		p.Text = *raw.Text
	case PartFile:
		if raw.File == nil || (raw.File.Bytes == "" && raw.File.URI == "") {
			return fmt.Errorf("file part without bytes or uri")
		}
		p.File = raw.File
	case PartData:
		var obj map[string]any
		if err := json.Unmarshal(raw.Data, &obj); err != nil || obj == nil {
			return fmt.Errorf("data part whose data is not an object")
		}
		p.Data = obj
	default:
		return fmt.Errorf("unknown part kind %q", raw.Kind)
	}
	return nil
}

// TaskStatus is a task's state with the message that explains it.
type TaskStatus struct {
	State     TaskState `json:"state"`
	Message   *Message  `json:"message,omitempty"`
	Timestamp string    `json:"timestamp,omitempty"`
}

// Artifact is an output of a task.
type Artifact struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []Part         `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Extensions  []string       `json:"extensions,omitempty"`
}

// Task is an A2A task.
type Task struct {
	Kind      string     `json:"kind"`
	ID        string     `json:"id"`
	ContextID string     `json:"contextId"`
	Status    TaskStatus `json:"status"`
	History   []Message  `json:"history,omitempty"`
	// Artifacts is always written, as [] when there are none: Gemini
	// CLI's server always sends the array and its clients index it.
	Artifacts []Artifact     `json:"artifacts"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// MarshalJSON writes the task with artifacts never null.
func (t Task) MarshalJSON() ([]byte, error) {
	type plain Task
	if t.Artifacts == nil {
		t.Artifacts = []Artifact{}
	}
	return json.Marshal(plain(t))
}

// StatusUpdateEvent is a TaskStatusUpdateEvent.
type StatusUpdateEvent struct {
	Kind      string         `json:"kind"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Status    TaskStatus     `json:"status"`
	Final     bool           `json:"final"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// ArtifactUpdateEvent is a TaskArtifactUpdateEvent.
type ArtifactUpdateEvent struct {
	Kind      string   `json:"kind"`
	TaskID    string   `json:"taskId"`
	ContextID string   `json:"contextId"`
	Artifact  Artifact `json:"artifact"`
	// Append and LastChunk are always written, as Gemini CLI's server
	// writes them (append true, lastChunk false, for live output).
	Append    bool           `json:"append"`
	LastChunk bool           `json:"lastChunk"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// MessageSendConfiguration is MessageSendParams.configuration.
type MessageSendConfiguration struct {
	AcceptedOutputModes    []string                `json:"acceptedOutputModes,omitempty"`
	HistoryLength          *int                    `json:"historyLength,omitempty"`
	PushNotificationConfig *PushNotificationConfig `json:"pushNotificationConfig,omitempty"`
	Blocking               *bool                   `json:"blocking,omitempty"`
}

// MessageSendParams are the params of message/send and message/stream.
type MessageSendParams struct {
	Message       *Message                  `json:"message"`
	Configuration *MessageSendConfiguration `json:"configuration,omitempty"`
	Metadata      map[string]any            `json:"metadata,omitempty"`
}

// PushNotificationAuthenticationInfo tells a webhook how it is called.
type PushNotificationAuthenticationInfo struct {
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials,omitempty"`
}

// PushNotificationConfig is where to send a task's updates.
type PushNotificationConfig struct {
	ID             string                              `json:"id,omitempty"`
	URL            string                              `json:"url"`
	Token          string                              `json:"token,omitempty"`
	Authentication *PushNotificationAuthenticationInfo `json:"authentication,omitempty"`
	// Version is the A2A version of the client that set the config, "1.0"
	// or "" (0.3): its webhook gets that version's body and token header.
	Version string `json:"a2aVersion,omitempty"`
}

// TaskPushNotificationConfig binds a push config to a task.
type TaskPushNotificationConfig struct {
	TaskID                 string                 `json:"taskId"`
	PushNotificationConfig PushNotificationConfig `json:"pushNotificationConfig"`
}

// pushConfigParams are the params of tasks/pushNotificationConfig/get,
// list and delete. Their metadata is not read (nor type-checked): these
// methods have always ignored it.
type pushConfigParams struct {
	ID       string `json:"id"`
	ConfigID string `json:"pushNotificationConfigId,omitempty"`
}

// taskIDParams are the params of tasks/cancel and tasks/resubscribe.
// Metadata is read as an object (a request whose metadata is another
// kind of value is refused): tasks/resubscribe activates extensions from
// it.
type taskIDParams struct {
	ID       string         `json:"id"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// taskQueryParams are the params of tasks/get.
type taskQueryParams struct {
	HistoryLength *int           `json:"historyLength,omitempty"`
	ID            string         `json:"id"`
	Metadata      map[string]any `json:"metadata,omitempty"`
}

// stamp formats t as A2A timestamps are written.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
