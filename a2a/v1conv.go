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
// gives (a2av0_test.go compares the two), written here because importing
// a2av0 links a2a-go v1's client, server and protobuf packages, and their
// init work, into every start of the binary. Where a2av0 panics (a nil
// 1.0 part) these answer an error instead.

// dataPartCompat is the metadata key marking a 0.3 data part that wraps
// a 1.0 data value which is not an object, under "value".
const dataPartCompat = "data_part_compat"

// toV1State converts a 0.3 task state; unknown and unspecified ones are
// 1.0's unspecified.
func toV1State(s legacy.TaskState) v1.TaskState {
	switch s {
	case legacy.TaskStateAuthRequired:
		return v1.TaskStateAuthRequired
	case legacy.TaskStateCanceled:
		return v1.TaskStateCanceled
	case legacy.TaskStateCompleted:
		return v1.TaskStateCompleted
	case legacy.TaskStateFailed:
		return v1.TaskStateFailed
	case legacy.TaskStateInputRequired:
		return v1.TaskStateInputRequired
	case legacy.TaskStateRejected:
		return v1.TaskStateRejected
	case legacy.TaskStateSubmitted:
		return v1.TaskStateSubmitted
	case legacy.TaskStateWorking:
		return v1.TaskStateWorking
	}
	return v1.TaskStateUnspecified
}

// fromV1State converts a 1.0 task state; one 0.3 does not know is 0.3's
// unspecified.
func fromV1State(s v1.TaskState) legacy.TaskState {
	switch s {
	case v1.TaskStateAuthRequired:
		return legacy.TaskStateAuthRequired
	case v1.TaskStateCanceled:
		return legacy.TaskStateCanceled
	case v1.TaskStateCompleted:
		return legacy.TaskStateCompleted
	case v1.TaskStateFailed:
		return legacy.TaskStateFailed
	case v1.TaskStateInputRequired:
		return legacy.TaskStateInputRequired
	case v1.TaskStateRejected:
		return legacy.TaskStateRejected
	case v1.TaskStateSubmitted:
		return legacy.TaskStateSubmitted
	case v1.TaskStateWorking:
		return legacy.TaskStateWorking
	}
	return legacy.TaskStateUnspecified
}

func toV1Role(r legacy.MessageRole) v1.MessageRole {
	switch r {
	case legacy.MessageRoleAgent:
		return v1.MessageRoleAgent
	case legacy.MessageRoleUser:
		return v1.MessageRoleUser
	}
	return v1.MessageRoleUnspecified
}

func fromV1Role(r v1.MessageRole) legacy.MessageRole {
	switch r {
	case v1.MessageRoleAgent:
		return legacy.MessageRoleAgent
	case v1.MessageRoleUser:
		return legacy.MessageRoleUser
	}
	return legacy.MessageRoleUnspecified
}

// toV1Event converts a 0.3 event (message, task, status or artifact
// update) to its 1.0 form.
func toV1Event(ev legacy.Event) (v1.Event, error) {
	switch e := ev.(type) {
	case nil:
		return nil, nil
	case *legacy.Message:
		if e == nil {
			return (*v1.Message)(nil), nil
		}
		return toV1Message(e), nil
	case *legacy.Task:
		if e == nil {
			return (*v1.Task)(nil), nil
		}
		return toV1TaskValue(e), nil
	case *legacy.TaskStatusUpdateEvent:
		if e == nil {
			return (*v1.TaskStatusUpdateEvent)(nil), nil
		}
		return &v1.TaskStatusUpdateEvent{
			TaskID:    v1.TaskID(e.TaskID),
			ContextID: e.ContextID,
			Status:    toV1Status(e.Status),
			Metadata:  e.Metadata,
		}, nil
	case *legacy.TaskArtifactUpdateEvent:
		if e == nil {
			return (*v1.TaskArtifactUpdateEvent)(nil), nil
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
	return nil, fmt.Errorf("unknown legacy event kind %T", ev)
}

func toV1TaskValue(t *legacy.Task) *v1.Task {
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
		Role:       toV1Role(m.Role),
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
		Role:       fromV1Role(m.Role),
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
