package a2a

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	legacy "github.com/a2aproject/a2a-go/a2a"
	v1 "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

// The conversions of v1conv.go against a2a-go's a2av0, which they
// replace: the same 1.0 events and 0.3 requests for every field.

func legacyParts() legacy.ContentParts {
	meta := map[string]any{"k": "v", "n": 1.5}
	return legacy.ContentParts{
		legacy.TextPart{Text: "hello", Metadata: meta},
		legacy.TextPart{},
		legacy.DataPart{Data: map[string]any{"a": []any{1.0, "x"}, "b": nil}, Metadata: meta},
		legacy.DataPart{},
		legacy.DataPart{Data: map[string]any{"value": "wrapped"}, Metadata: map[string]any{"data_part_compat": true, "other": "kept"}},
		legacy.DataPart{Data: map[string]any{"value": 3.0}, Metadata: map[string]any{"data_part_compat": false}},
		legacy.DataPart{Data: map[string]any{"x": 1.0}, Metadata: map[string]any{"data_part_compat": "true"}},
		legacy.DataPart{Data: map[string]any{}, Metadata: map[string]any{"data_part_compat": true}},
		legacy.FilePart{File: legacy.FileBytes{FileMeta: legacy.FileMeta{Name: "a.png", MimeType: "image/png"}, Bytes: "aGVsbG8="}, Metadata: meta},
		legacy.FilePart{File: legacy.FileBytes{Bytes: "not base64!"}},
		legacy.FilePart{File: legacy.FileBytes{}},
		legacy.FilePart{File: legacy.FileURI{FileMeta: legacy.FileMeta{Name: "r.txt", MimeType: "text/plain"}, URI: "https://example.com/r.txt"}, Metadata: meta},
		legacy.FilePart{File: legacy.FileURI{}},
		legacy.FilePart{Metadata: meta},
	}
}

func legacyMessage(role legacy.MessageRole) *legacy.Message {
	return &legacy.Message{
		ID: "m1", ContextID: "c1", TaskID: "t1", Role: role,
		Parts:          legacyParts(),
		ReferenceTasks: []legacy.TaskID{"t0", "t-1"},
		Extensions:     []string{"https://example.com/ext/v1", "urn:x"},
		Metadata:       map[string]any{"coderAgent": map[string]any{"kind": "agent-settings"}},
	}
}

func legacyEvents() []legacy.Event {
	ts := time.Date(2026, 12, 7, 10, 0, 0, 123456789, time.UTC)
	states := []legacy.TaskState{
		legacy.TaskStateSubmitted, legacy.TaskStateWorking, legacy.TaskStateInputRequired,
		legacy.TaskStateAuthRequired, legacy.TaskStateCompleted, legacy.TaskStateCanceled,
		legacy.TaskStateFailed, legacy.TaskStateRejected, legacy.TaskStateUnknown,
		legacy.TaskStateUnspecified, "bogus",
	}
	evs := []legacy.Event{
		nil,
		(*legacy.Message)(nil),
		(*legacy.Task)(nil),
		(*legacy.TaskStatusUpdateEvent)(nil),
		(*legacy.TaskArtifactUpdateEvent)(nil),
		&legacy.Message{},
		&legacy.Message{ReferenceTasks: []legacy.TaskID{}, Parts: legacy.ContentParts{}},
		&legacy.Task{},
		&legacy.Task{Artifacts: []*legacy.Artifact{}, History: []*legacy.Message{}},
		&legacy.TaskStatusUpdateEvent{},
		&legacy.TaskArtifactUpdateEvent{},
		&legacy.TaskArtifactUpdateEvent{Artifact: &legacy.Artifact{}},
	}
	for _, r := range []legacy.MessageRole{legacy.MessageRoleUser, legacy.MessageRoleAgent, legacy.MessageRoleUnspecified, "system"} {
		evs = append(evs, legacyMessage(r))
	}
	for _, st := range states {
		status := legacy.TaskStatus{State: st, Message: legacyMessage(legacy.MessageRoleAgent), Timestamp: &ts}
		evs = append(evs,
			&legacy.Task{
				ID: "t1", ContextID: "c1", Status: status,
				Artifacts: []*legacy.Artifact{
					{ID: "a1", Name: "out", Description: "the output", Parts: legacyParts(), Extensions: []string{"e"}, Metadata: map[string]any{"m": true}},
					nil,
					{},
				},
				History:  []*legacy.Message{legacyMessage(legacy.MessageRoleUser), nil, {}},
				Metadata: map[string]any{"model": "gemini"},
			},
			&legacy.TaskStatusUpdateEvent{TaskID: "t1", ContextID: "c1", Status: status, Final: true, Metadata: map[string]any{"coderAgent": map[string]any{"kind": "state-change"}}},
			&legacy.TaskStatusUpdateEvent{TaskID: "t1", Status: legacy.TaskStatus{State: st}},
		)
	}
	for _, b := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		evs = append(evs, &legacy.TaskArtifactUpdateEvent{
			TaskID: "t1", ContextID: "c1", Append: b[0], LastChunk: b[1],
			Artifact: &legacy.Artifact{ID: "a1", Name: "n", Description: "d", Parts: legacyParts(), Extensions: []string{"e"}, Metadata: map[string]any{"x": 1.0}},
			Metadata: map[string]any{"y": "z"},
		})
	}
	return evs
}

// sameEvent fails t unless toV1Event and a2av0 convert ev alike.
func sameEvent(t *testing.T, ev legacy.Event) {
	t.Helper()
	got, gotErr := toV1Event(ev)
	want, wantErr := a2av0.ToV1Event(ev)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%#v: error %v, a2av0's %v", ev, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%#v:\n got %#v\nwant %#v", ev, got, want)
	}
}

func TestToV1EventMatchesA2av0(t *testing.T) {
	for i, ev := range legacyEvents() {
		t.Run(fmt.Sprint(i), func(t *testing.T) { sameEvent(t, ev) })
	}
}

// A part type of our own, which neither conversion knows.
type otherPart struct{ legacy.TextPart }

func TestToV1EventUnknownKinds(t *testing.T) {
	sameEvent(t, &legacy.Message{Parts: legacy.ContentParts{otherPart{legacy.TextPart{Text: "x", Metadata: map[string]any{"a": "b"}}}}})
	if _, err := toV1Event(&otherEvent{}); err == nil {
		t.Fatal("an unknown event kind converted")
	}
}

type otherEvent struct{ legacy.Message }

func v1Parts() v1.ContentParts {
	meta := map[string]any{"k": "v"}
	return v1.ContentParts{
		{Content: v1.Text("hello"), Metadata: meta},
		{Content: v1.Text("")},
		{Content: v1.Raw("hello"), Filename: "a.bin", MediaType: "application/octet-stream", Metadata: meta},
		{Content: v1.Raw(nil)},
		{Content: v1.Raw{}},
		{Content: v1.URL("https://example.com/f"), Filename: "f", MediaType: "text/plain", Metadata: meta},
		{Content: v1.URL("")},
		{Content: v1.Data{Value: map[string]any{"a": 1.0}}, Metadata: meta},
		{Content: v1.Data{Value: map[string]any(nil)}},
		{Content: v1.Data{Value: "s"}, Metadata: meta},
		{Content: v1.Data{Value: 2.0}},
		{Content: v1.Data{Value: []any{1.0, "x"}}},
		{Content: v1.Data{}},
		{Metadata: meta, Filename: "no content"},
	}
}

func v1Requests() []*v1.SendMessageRequest {
	msg := func(role v1.MessageRole) *v1.Message {
		return &v1.Message{
			ID: "m1", ContextID: "c1", TaskID: "t1", Role: role, Parts: v1Parts(),
			ReferenceTasks: []v1.TaskID{"t0"}, Extensions: []string{"https://example.com/ext/v1"},
			Metadata: map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": "/w"}},
		}
	}
	n := 3
	reqs := []*v1.SendMessageRequest{
		nil,
		{},
		{Message: &v1.Message{}},
		{Message: &v1.Message{Parts: v1.ContentParts{}, ReferenceTasks: []v1.TaskID{}}},
		{Message: msg(v1.MessageRoleUser), Metadata: map[string]any{"m": "d"}, Tenant: "tenant"},
		{Message: msg(v1.MessageRoleAgent), Config: &v1.SendMessageConfig{}},
		{Message: msg(v1.MessageRoleUnspecified), Config: &v1.SendMessageConfig{ReturnImmediately: true}},
		{Message: msg("ROLE_SYSTEM"), Config: &v1.SendMessageConfig{
			AcceptedOutputModes: []string{"text/plain", "application/json"}, HistoryLength: &n,
			PushConfig: &v1.PushConfig{TaskID: "t1", ID: "p1", URL: "http://127.0.0.1/hook", Token: "tok", Tenant: "x"},
		}},
		{Message: msg(v1.MessageRoleUser), Config: &v1.SendMessageConfig{
			AcceptedOutputModes: []string{}, PushConfig: &v1.PushConfig{URL: "http://127.0.0.1/hook", Auth: &v1.PushAuthInfo{Scheme: "Bearer", Credentials: "secret"}},
		}},
		{Message: msg(v1.MessageRoleUser), Config: &v1.SendMessageConfig{PushConfig: &v1.PushConfig{Auth: &v1.PushAuthInfo{}}}},
	}
	return reqs
}

func TestFromV1SendRequestMatchesA2av0(t *testing.T) {
	for i, req := range v1Requests() {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			got, err := fromV1SendRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			if want := a2av0.FromV1SendMessageRequest(req); !reflect.DeepEqual(got, want) {
				t.Fatalf("\n got %#v\nwant %#v", got, want)
			}
		})
	}
}

// A null part, which makes a2av0 panic, is an error.
func TestFromV1SendRequestNullPart(t *testing.T) {
	var req v1.SendMessageRequest
	if err := json.Unmarshal([]byte(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"},null]}}`), &req); err != nil {
		t.Fatal(err)
	}
	if _, err := fromV1SendRequest(&req); err == nil || !strings.Contains(err.Error(), "part 1 is null") {
		t.Fatalf("got %v, want an error naming part 1", err)
	}
}

func TestTaskStatesMatchA2av0(t *testing.T) {
	for _, s := range []legacy.TaskState{
		legacy.TaskStateSubmitted, legacy.TaskStateWorking, legacy.TaskStateInputRequired,
		legacy.TaskStateAuthRequired, legacy.TaskStateCompleted, legacy.TaskStateCanceled,
		legacy.TaskStateFailed, legacy.TaskStateRejected, legacy.TaskStateUnknown,
		legacy.TaskStateUnspecified, "bogus", "TASK_STATE_WORKING",
	} {
		if got, want := toV1State(s), a2av0.ToV1TaskState(s); got != want {
			t.Errorf("toV1State(%q) = %q, a2av0 %q", s, got, want)
		}
	}
	for _, s := range []v1.TaskState{
		v1.TaskStateSubmitted, v1.TaskStateWorking, v1.TaskStateInputRequired,
		v1.TaskStateAuthRequired, v1.TaskStateCompleted, v1.TaskStateCanceled,
		v1.TaskStateFailed, v1.TaskStateRejected, v1.TaskStateUnspecified,
		"TASK_STATE_UNKNOWN", "working", "bogus",
	} {
		if got, want := fromV1State(s), a2av0.FromV1TaskState(s); got != want {
			t.Errorf("fromV1State(%q) = %q, a2av0 %q", s, got, want)
		}
	}
}

// FuzzV1Conv reads JSON as a 0.3 event and as a 1.0 message/send request
// and converts both ways, ours and a2av0's.
func FuzzV1Conv(f *testing.F) {
	for _, ev := range legacyEvents() {
		if ev == nil || reflect.ValueOf(ev).IsNil() {
			continue
		}
		b, err := json.Marshal(ev)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, req := range v1Requests()[1:] {
		b, err := json.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if ev, err := legacy.UnmarshalEventJSON(b); err == nil {
			sameEvent(t, ev)
		}
		var req v1.SendMessageRequest
		if json.Unmarshal(b, &req) != nil {
			return
		}
		got, err := fromV1SendRequest(&req)
		if err != nil {
			return // a null part, where a2av0 panics
		}
		if want := a2av0.FromV1SendMessageRequest(&req); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %#v\nwant %#v", b, got, want)
		}
	})
}
