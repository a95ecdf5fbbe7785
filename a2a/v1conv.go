package a2a

import (
	"encoding/base64"
	"fmt"
	"maps"

	legacy "github.com/a2aproject/a2a-go/a2a"
	v1 "github.com/a2aproject/a2a-go/v2/a2a"
)

// The conversions between a2a-go's 0.3 (legacy) types and its 1.0 types
// that the 1.0 handler needs. They give what a2a-go's a2acompat/a2av0
// gives (v1conv_test.go compares the two), written here because importing
// a2av0 links a2a-go v1's client, server and protobuf packages, and their
// init work, into every start of the binary. Where a2av0 panics (a nil
// 1.0 part) these answer an error instead.

// dataPartCompat is the metadata key marking a 0.3 data part that wraps
// a 1.0 data value which is not an object, under "value".
const dataPartCompat = "data_part_compat"

// states and roles pair the names of 0.3 (first) and 1.0 (second):
// constant tables, which need no init work. A state or role the other
// version does not know (0.3's "unknown" state among them) is unspecified,
// "" in both.
var (
	states = [...][2]string{
		{string(legacy.TaskStateAuthRequired), string(v1.TaskStateAuthRequired)},
		{string(legacy.TaskStateCanceled), string(v1.TaskStateCanceled)},
		{string(legacy.TaskStateCompleted), string(v1.TaskStateCompleted)},
		{string(legacy.TaskStateFailed), string(v1.TaskStateFailed)},
		{string(legacy.TaskStateInputRequired), string(v1.TaskStateInputRequired)},
		{string(legacy.TaskStateRejected), string(v1.TaskStateRejected)},
		{string(legacy.TaskStateSubmitted), string(v1.TaskStateSubmitted)},
		{string(legacy.TaskStateWorking), string(v1.TaskStateWorking)},
	}
	roles = [...][2]string{
		{string(legacy.MessageRoleAgent), string(v1.MessageRoleAgent)},
		{string(legacy.MessageRoleUser), string(v1.MessageRoleUser)},
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

func toV1State(s legacy.TaskState) v1.TaskState {
	return rename[legacy.TaskState, v1.TaskState](states[:], s, 0)
}

func fromV1State(s v1.TaskState) legacy.TaskState {
	return rename[v1.TaskState, legacy.TaskState](states[:], s, 1)
}

// toV1Event converts a 0.3 event (message, task, status or artifact
// update) to its 1.0 form; a nil pointer converts to a nil pointer.
func toV1Event(ev legacy.Event) (v1.Event, error) {
	switch e := ev.(type) {
	case nil:
		return nil, nil
	case *legacy.Message:
		return toV1Message(e), nil
	case *legacy.Task:
		return toV1TaskOf(e), nil
	case *legacy.TaskStatusUpdateEvent:
		return toV1StatusUpdate(e), nil
	case *legacy.TaskArtifactUpdateEvent:
		return toV1ArtifactUpdate(e), nil
	}
	return nil, fmt.Errorf("unknown legacy event kind %T", ev)
}

func toV1TaskOf(t *legacy.Task) *v1.Task {
	if t == nil {
		return nil
	}
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

func toV1StatusUpdate(e *legacy.TaskStatusUpdateEvent) *v1.TaskStatusUpdateEvent {
	if e == nil {
		return nil
	}
	return &v1.TaskStatusUpdateEvent{TaskID: v1.TaskID(e.TaskID), ContextID: e.ContextID, Status: toV1Status(e.Status), Metadata: e.Metadata}
}

func toV1ArtifactUpdate(e *legacy.TaskArtifactUpdateEvent) *v1.TaskArtifactUpdateEvent {
	if e == nil {
		return nil
	}
	return &v1.TaskArtifactUpdateEvent{
		TaskID:    v1.TaskID(e.TaskID),
		ContextID: e.ContextID,
		Artifact:  toV1Artifact(e.Artifact),
		Append:    e.Append,
		LastChunk: e.LastChunk,
		Metadata:  e.Metadata,
	}
}

func toV1Status(s legacy.TaskStatus) v1.TaskStatus {
	return v1.TaskStatus{State: toV1State(s.State), Message: toV1Message(s.Message), Timestamp: s.Timestamp}
}

func toV1Message(m *legacy.Message) *v1.Message {
	if m == nil {
		return nil
	}
	out := &v1.Message{
		ID:         m.ID,
		ContextID:  m.ContextID,
		TaskID:     v1.TaskID(m.TaskID),
		Role:       rename[legacy.MessageRole, v1.MessageRole](roles[:], m.Role, 0),
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

func toV1Artifact(a *legacy.Artifact) *v1.Artifact {
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

func toV1Parts(parts legacy.ContentParts) v1.ContentParts {
	if len(parts) == 0 {
		return nil
	}
	out := make(v1.ContentParts, len(parts))
	for i, p := range parts {
		out[i] = toV1Part(p)
	}
	return out
}

// toV1Part converts a 0.3 part. A data part that wraps a value which is
// not an object (see fromV1Part) is unwrapped; file bytes that are not
// base64 are passed as they are.
func toV1Part(p legacy.Part) *v1.Part {
	switch c := p.(type) {
	case nil:
		return nil
	case legacy.TextPart:
		return &v1.Part{Content: v1.Text(c.Text), Metadata: c.Metadata}
	case legacy.DataPart:
		var val any = c.Data
		meta := maps.Clone(c.Metadata)
		if compat, _ := meta[dataPartCompat].(bool); compat {
			val = c.Data["value"]
			delete(meta, dataPartCompat)
		}
		return &v1.Part{Content: v1.Data{Value: val}, Metadata: meta}
	case legacy.FilePart:
		switch f := c.File.(type) {
		case legacy.FileBytes:
			b, err := base64.StdEncoding.DecodeString(f.Bytes)
			if err != nil {
				b = []byte(f.Bytes)
			}
			return &v1.Part{Content: v1.Raw(b), Filename: f.Name, MediaType: f.MimeType, Metadata: c.Metadata}
		case legacy.FileURI:
			return &v1.Part{Content: v1.URL(f.URI), Filename: f.Name, MediaType: f.MimeType, Metadata: c.Metadata}
		default:
			return &v1.Part{Content: v1.Data{Value: f}, Metadata: c.Metadata}
		}
	}
	return &v1.Part{Content: v1.Data{Value: p}, Metadata: p.Meta()}
}

// fromV1SendRequest converts a 1.0 message/send request to 0.3's params:
// blocking unless it asks to return immediately, its push config without
// the task id (the message carries it).
func fromV1SendRequest(req *v1.SendMessageRequest) (*legacy.MessageSendParams, error) {
	if req == nil {
		return nil, nil
	}
	msg, err := fromV1Message(req.Message)
	if err != nil {
		return nil, err
	}
	out := &legacy.MessageSendParams{Message: msg, Metadata: req.Metadata}
	if c := req.Config; c != nil {
		blocking := !c.ReturnImmediately
		out.Config = &legacy.MessageSendConfig{
			AcceptedOutputModes: c.AcceptedOutputModes,
			Blocking:            &blocking,
			HistoryLength:       c.HistoryLength,
		}
		if pc := c.PushConfig; pc != nil {
			out.Config.PushConfig = &legacy.PushConfig{ID: pc.ID, URL: pc.URL, Token: pc.Token}
			if pc.Auth != nil {
				out.Config.PushConfig.Auth = &legacy.PushAuthInfo{Schemes: []string{pc.Auth.Scheme}, Credentials: pc.Auth.Credentials}
			}
		}
	}
	return out, nil
}

func fromV1Message(m *v1.Message) (*legacy.Message, error) {
	if m == nil {
		return nil, nil
	}
	out := &legacy.Message{
		ID:         m.ID,
		ContextID:  m.ContextID,
		TaskID:     legacy.TaskID(m.TaskID),
		Role:       rename[v1.MessageRole, legacy.MessageRole](roles[:], m.Role, 1),
		Extensions: m.Extensions,
		Metadata:   m.Metadata,
	}
	if len(m.Parts) > 0 {
		out.Parts = make(legacy.ContentParts, len(m.Parts))
		for i, p := range m.Parts {
			if p == nil {
				return nil, fmt.Errorf("message part %d is null", i)
			}
			out.Parts[i] = fromV1Part(p)
		}
	}
	if m.ReferenceTasks != nil {
		out.ReferenceTasks = make([]legacy.TaskID, len(m.ReferenceTasks))
		for i, id := range m.ReferenceTasks {
			out.ReferenceTasks[i] = legacy.TaskID(id)
		}
	}
	return out, nil
}

// fromV1Part converts a 1.0 part. 0.3's data part holds an object: any
// other data value is wrapped under "value" and marked so that toV1Part
// unwraps it.
func fromV1Part(p *v1.Part) legacy.Part {
	meta := legacy.FileMeta{Name: p.Filename, MimeType: p.MediaType}
	switch c := p.Content.(type) {
	case v1.Text:
		return legacy.TextPart{Text: string(c), Metadata: p.Metadata}
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
		return legacy.DataPart{Data: obj, Metadata: m}
	case v1.Raw:
		return legacy.FilePart{File: legacy.FileBytes{FileMeta: meta, Bytes: base64.StdEncoding.EncodeToString(c)}, Metadata: p.Metadata}
	case v1.URL:
		return legacy.FilePart{File: legacy.FileURI{FileMeta: meta, URI: string(c)}, Metadata: p.Metadata}
	}
	return legacy.DataPart{Data: map[string]any{"value": p}, Metadata: p.Metadata}
}
