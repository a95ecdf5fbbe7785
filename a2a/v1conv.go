package a2a

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	v1 "github.com/a2aproject/a2a-go/v2/a2a"
)

// The conversions between the 0.3 wire and a2a-go's 1.0 types that the
// 1.0 handler needs. They give what a2a-go's a2acompat/a2av0 gives (the
// golden files testdata/v1conv-*.golden hold what a2av0 answered), written
// here because a2av0 links a2a-go v1's client, server and protobuf
// packages, and a2a-go's 0.3 module, into every start of the binary.
// Where a2av0 panics (a nil 1.0 part) these answer an error instead.
//
// A 0.3 event is read from its JSON as a2a-go's 0.3 types read it (the
// *03 types below mirror them: the same fields, the same checks), so that
// an event relayed from another replica converts as one rendered here.

// dataPartCompat is the metadata key marking a 0.3 data part that wraps
// a 1.0 data value which is not an object, under "value".
const dataPartCompat = "data_part_compat"

// states and roles pair the names of 0.3 (first) and 1.0 (second):
// constant tables, which need no init work. A state or role the other
// version does not know (0.3's "unknown" state among them) is unspecified,
// "" in both.
var (
	states = [...][2]string{
		{string(StateAuthRequired), string(v1.TaskStateAuthRequired)},
		{string(StateCanceled), string(v1.TaskStateCanceled)},
		{string(StateCompleted), string(v1.TaskStateCompleted)},
		{string(StateFailed), string(v1.TaskStateFailed)},
		{string(StateInputRequired), string(v1.TaskStateInputRequired)},
		{string(StateRejected), string(v1.TaskStateRejected)},
		{string(StateSubmitted), string(v1.TaskStateSubmitted)},
		{string(StateWorking), string(v1.TaskStateWorking)},
	}
	roles = [...][2]string{
		{"agent", string(v1.MessageRoleAgent)},
		{"user", string(v1.MessageRoleUser)},
	}
)

// rename reads s in column from of table and answers its pair, or "".
func rename[T, U ~string](table [][2]string, s T, from int) U {
	for _, p := range table {
		if p[from] == string(s) {
			return U(p[1-from])
		}
	}
	return ""
}

func toV1State(s TaskState) v1.TaskState {
	return rename[TaskState, v1.TaskState](states[:], s, 0)
}

// fromV1State answers the 0.3 state of a 1.0 one, "" for a state 0.3
// does not know.
func fromV1State(s v1.TaskState) TaskState {
	return rename[v1.TaskState, TaskState](states[:], s, 1)
}

// message03 is a 0.3 message as read back from its JSON.
type message03 struct {
	ID             string         `json:"messageId"`
	ContextID      string         `json:"contextId"`
	Extensions     []string       `json:"extensions"`
	Metadata       map[string]any `json:"metadata"`
	Parts          parts03        `json:"parts"`
	ReferenceTasks []string       `json:"referenceTaskIds"`
	Role           string         `json:"role"`
	TaskID         string         `json:"taskId"`
}

// status03 is a 0.3 task status as read back from its JSON; the
// timestamp is read as a JSON time (RFC 3339), as a2a-go reads it.
type status03 struct {
	Message   *message03 `json:"message"`
	State     TaskState  `json:"state"`
	Timestamp *time.Time `json:"timestamp"`
}

// artifact03 is a 0.3 artifact as read back from its JSON.
type artifact03 struct {
	ID          string         `json:"artifactId"`
	Description string         `json:"description"`
	Extensions  []string       `json:"extensions"`
	Metadata    map[string]any `json:"metadata"`
	Name        string         `json:"name"`
	Parts       parts03        `json:"parts"`
}

// task03 is a 0.3 task as read back from its JSON.
type task03 struct {
	ID        string         `json:"id"`
	Artifacts []*artifact03  `json:"artifacts"`
	ContextID string         `json:"contextId"`
	History   []*message03   `json:"history"`
	Metadata  map[string]any `json:"metadata"`
	Status    status03       `json:"status"`
}

// statusUpdate03 is a 0.3 status-update event as read back from its JSON.
// Final is read (an event whose final is not true or false does not
// convert) but not converted: 1.0 has no such field.
type statusUpdate03 struct {
	ContextID string         `json:"contextId"`
	Final     bool           `json:"final"`
	Status    status03       `json:"status"`
	TaskID    string         `json:"taskId"`
	Metadata  map[string]any `json:"metadata"`
}

// artifactUpdate03 is a 0.3 artifact-update event as read back from its
// JSON.
type artifactUpdate03 struct {
	Append    bool           `json:"append"`
	Artifact  *artifact03    `json:"artifact"`
	ContextID string         `json:"contextId"`
	LastChunk bool           `json:"lastChunk"`
	TaskID    string         `json:"taskId"`
	Metadata  map[string]any `json:"metadata"`
}

// parts03 are a message's or an artifact's parts, read from 0.3 JSON and
// held converted.
type parts03 []*v1.Part

// UnmarshalJSON reads 0.3 parts by their kind, refusing an unknown kind,
// a file part with neither or both of bytes and uri, and fields of the
// wrong kind of value; a null list is an empty one.
func (ps *parts03) UnmarshalJSON(b []byte) error {
	var arr []json.RawMessage
	if err := json.Unmarshal(b, &arr); err != nil {
		return err
	}
	out := make(parts03, len(arr))
	for i, raw := range arr {
		var kind struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(raw, &kind); err != nil {
			return err
		}
		var err error
		switch kind.Kind {
		case PartText:
			out[i], err = textPart03(raw)
		case PartData:
			out[i], err = dataPart03(raw)
		case PartFile:
			out[i], err = filePart03(raw)
		default:
			err = fmt.Errorf("unknown part kind %s", kind.Kind)
		}
		if err != nil {
			return err
		}
	}
	*ps = out
	return nil
}

func textPart03(raw []byte) (*v1.Part, error) {
	var p struct {
		Text     string         `json:"text"`
		Metadata map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	return &v1.Part{Content: v1.Text(p.Text), Metadata: p.Metadata}, nil
}

// dataPart03 converts a data part; one that wraps a value which is not an
// object (see fromV1Part) is unwrapped.
func dataPart03(raw []byte) (*v1.Part, error) {
	var p struct {
		Data     map[string]any `json:"data"`
		Metadata map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	// val holds the map even when it is nil, as a2av0's part does.
	var val any = p.Data
	meta := maps.Clone(p.Metadata)
	if compat, _ := meta[dataPartCompat].(bool); compat {
		val = p.Data["value"]
		delete(meta, dataPartCompat)
	}
	return &v1.Part{Content: v1.Data{Value: val}, Metadata: meta}, nil
}

// filePart03 converts a file part: bytes that are not base64 are passed
// as they are.
func filePart03(raw []byte) (*v1.Part, error) {
	var p struct {
		File struct {
			MimeType string `json:"mimeType"`
			Name     string `json:"name"`
			URI      string `json:"uri"`
			Bytes    string `json:"bytes"`
		} `json:"file"`
		Metadata map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	f := p.File
	switch {
	case f.Bytes == "" && f.URI == "":
		return nil, errors.New("invalid file part: either Bytes or URI must be set")
	case f.Bytes != "" && f.URI != "":
		return nil, errors.New("invalid file part: Bytes and URI cannot be set at the same time")
	case f.Bytes != "":
		b, err := base64.StdEncoding.DecodeString(f.Bytes)
		if err != nil {
			b = []byte(f.Bytes)
		}
		return &v1.Part{Content: v1.Raw(b), Filename: f.Name, MediaType: f.MimeType, Metadata: p.Metadata}, nil
	}
	return &v1.Part{Content: v1.URL(f.URI), Filename: f.Name, MediaType: f.MimeType, Metadata: p.Metadata}, nil
}

// toV1 converts one of our 0.3 events (a *Task, *Message,
// *StatusUpdateEvent or *ArtifactUpdateEvent, or the JSON of one, as a
// replica relays it) to its 1.0 form, through its JSON.
func toV1(ev any) (v1.Event, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	return decodeV1Event(b)
}

// decodeV1Event reads the JSON of a 0.3 event by its kind and converts
// it to its 1.0 form.
func decodeV1Event(b []byte) (v1.Event, error) {
	var kind struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &kind); err != nil {
		return nil, fmt.Errorf("failed to unmarshal event: %w", err)
	}
	switch kind.Kind {
	case "message":
		var m message03
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("failed to unmarshal Message event: %w", err)
		}
		return toV1Message(&m), nil
	case "task":
		var t task03
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, fmt.Errorf("failed to unmarshal Task event: %w", err)
		}
		return toV1TaskOf(&t), nil
	case "status-update":
		var e statusUpdate03
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("failed to unmarshal TaskStatusUpdateEvent: %w", err)
		}
		return &v1.TaskStatusUpdateEvent{TaskID: v1.TaskID(e.TaskID), ContextID: e.ContextID, Status: toV1Status(e.Status), Metadata: e.Metadata}, nil
	case "artifact-update":
		var e artifactUpdate03
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("failed to unmarshal TaskArtifactUpdateEvent: %w", err)
		}
		return &v1.TaskArtifactUpdateEvent{
			TaskID:    v1.TaskID(e.TaskID),
			ContextID: e.ContextID,
			Artifact:  toV1Artifact(e.Artifact),
			Append:    e.Append,
			LastChunk: e.LastChunk,
			Metadata:  e.Metadata,
		}, nil
	}
	return nil, fmt.Errorf("unknown event kind: %s", kind.Kind)
}

func toV1TaskOf(t *task03) *v1.Task {
	out := &v1.Task{
		ID:        v1.TaskID(t.ID),
		ContextID: t.ContextID,
		Status:    toV1Status(t.Status),
		Metadata:  t.Metadata,
	}
	if len(t.Artifacts) > 0 {
		out.Artifacts = make([]*v1.Artifact, len(t.Artifacts))
		for i, a := range t.Artifacts {
			out.Artifacts[i] = toV1Artifact(a)
		}
	}
	if len(t.History) > 0 {
		out.History = make([]*v1.Message, len(t.History))
		for i, m := range t.History {
			out.History[i] = toV1Message(m)
		}
	}
	return out
}

func toV1Status(s status03) v1.TaskStatus {
	return v1.TaskStatus{State: toV1State(s.State), Message: toV1Message(s.Message), Timestamp: s.Timestamp}
}

func toV1Message(m *message03) *v1.Message {
	if m == nil {
		return nil
	}
	out := &v1.Message{
		ID:         m.ID,
		ContextID:  m.ContextID,
		TaskID:     v1.TaskID(m.TaskID),
		Role:       rename[string, v1.MessageRole](roles[:], m.Role, 0),
		Parts:      toV1Parts(m.Parts),
		Extensions: m.Extensions,
		Metadata:   m.Metadata,
	}
	if m.ReferenceTasks != nil {
		out.ReferenceTasks = make([]v1.TaskID, len(m.ReferenceTasks))
		for i, id := range m.ReferenceTasks {
			out.ReferenceTasks[i] = v1.TaskID(id)
		}
	}
	return out
}

func toV1Artifact(a *artifact03) *v1.Artifact {
	if a == nil {
		return nil
	}
	return &v1.Artifact{
		ID:          v1.ArtifactID(a.ID),
		Name:        a.Name,
		Description: a.Description,
		Parts:       toV1Parts(a.Parts),
		Extensions:  a.Extensions,
		Metadata:    a.Metadata,
	}
}

// toV1Parts answers nil for no parts, as a2av0 does.
func toV1Parts(parts parts03) v1.ContentParts {
	if len(parts) == 0 {
		return nil
	}
	return v1.ContentParts(parts)
}

// fromV1SendRequest converts a 1.0 message/send request to 0.3's params:
// blocking unless it asks to return immediately, its push config without
// the task id (the message carries it). Its JSON is what a2av0's params
// wrote, which decodeSendParams then reads and checks.
func fromV1SendRequest(req *v1.SendMessageRequest) (*MessageSendParams, error) {
	if req == nil {
		return nil, nil
	}
	msg, err := fromV1Message(req.Message)
	if err != nil {
		return nil, err
	}
	out := &MessageSendParams{Message: msg, Metadata: req.Metadata}
	if c := req.Config; c != nil {
		blocking := !c.ReturnImmediately
		out.Configuration = &MessageSendConfiguration{
			AcceptedOutputModes: c.AcceptedOutputModes,
			Blocking:            &blocking,
			HistoryLength:       c.HistoryLength,
		}
		if pc := c.PushConfig; pc != nil {
			out.Configuration.PushNotificationConfig = &PushNotificationConfig{ID: pc.ID, URL: pc.URL, Token: pc.Token}
			if pc.Auth != nil {
				out.Configuration.PushNotificationConfig.Authentication = &PushNotificationAuthenticationInfo{Schemes: []string{pc.Auth.Scheme}, Credentials: pc.Auth.Credentials}
			}
		}
	}
	return out, nil
}

func fromV1Message(m *v1.Message) (*Message, error) {
	if m == nil {
		return nil, nil
	}
	out := &Message{
		Kind:       "message",
		MessageID:  m.ID,
		ContextID:  m.ContextID,
		TaskID:     string(m.TaskID),
		Role:       rename[v1.MessageRole, string](roles[:], m.Role, 1),
		Extensions: m.Extensions,
		Metadata:   m.Metadata,
	}
	if len(m.Parts) > 0 {
		out.Parts = make([]Part, len(m.Parts))
		for i, p := range m.Parts {
			if p == nil {
				return nil, fmt.Errorf("message part %d is null", i)
			}
			out.Parts[i] = fromV1Part(p)
		}
	}
	if m.ReferenceTasks != nil {
		out.ReferenceTaskIDs = make([]string, len(m.ReferenceTasks))
		for i, id := range m.ReferenceTasks {
			out.ReferenceTaskIDs[i] = string(id)
		}
	}
	return out, nil
}

// nullData is the data of a part converted from a 1.0 data part whose
// value is a nil object: a2av0 wrote it as null (which decodeSendParams
// refuses), where a Part with no data writes {}.
var nullData = json.RawMessage("null")

// fromV1Part converts a 1.0 part. 0.3's data part holds an object: any
// other data value is wrapped under "value" and marked so that toV1Part
// unwraps it.
func fromV1Part(p *v1.Part) Part {
	switch c := p.Content.(type) {
	case v1.Text:
		return Part{Kind: PartText, Text: string(c), Metadata: p.Metadata}
	case v1.Data:
		m := maps.Clone(p.Metadata)
		obj, ok := c.Value.(map[string]any)
		if !ok {
			obj = map[string]any{"value": c.Value}
			if m == nil {
				m = map[string]any{}
			}
			m[dataPartCompat] = true
		}
		if obj == nil {
			return Part{Kind: PartData, Data: nullData, Metadata: m}
		}
		return Part{Kind: PartData, Data: obj, Metadata: m}
	case v1.Raw:
		return Part{Kind: PartFile, File: &FileContent{Bytes: base64.StdEncoding.EncodeToString(c), Name: p.Filename, MimeType: p.MediaType}, Metadata: p.Metadata}
	case v1.URL:
		return Part{Kind: PartFile, File: &FileContent{URI: string(c), Name: p.Filename, MimeType: p.MediaType}, Metadata: p.Metadata}
	}
	return Part{Kind: PartData, Data: map[string]any{"value": p}, Metadata: p.Metadata}
}
