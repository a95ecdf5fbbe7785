package a2a

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/castor-dev/castor/internal/golden"
)

// The conversions of v1conv.go against what a2a-go's a2av0, which they
// replace, answered: testdata/v1conv-events.golden and
// testdata/v1conv-send.golden were written by a2av0 (a2a-go v2.4.0, over
// a2a-go v0.3.15's 0.3 types) and have been kept since. Each holds, per
// case, the Go value the conversion answers as dump writes it, which
// tells nil from empty and names every dynamic type, as reflect.DeepEqual
// would compare them.

// dump writes v deterministically: maps by sorted key, pointers by what
// they point at, interfaces with their dynamic type, times as RFC 3339
// with their location's name.
func dump(v any) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(v))
	return b.String()
}

func dumpValue(b *strings.Builder, v reflect.Value) {
	if !v.IsValid() {
		b.WriteString("nil")
		return
	}
	if v.Type() == reflect.TypeFor[time.Time]() {
		t := v.Interface().(time.Time)
		fmt.Fprintf(b, "time(%s %s)", t.Format(time.RFC3339Nano), t.Location())
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			fmt.Fprintf(b, "(%s)nil", v.Type())
			return
		}
		b.WriteString("&")
		dumpValue(b, v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			fmt.Fprintf(b, "(%s)nil", v.Type())
			return
		}
		fmt.Fprintf(b, "(%s)", v.Elem().Type())
		dumpValue(b, v.Elem())
	case reflect.Struct:
		fmt.Fprintf(b, "%s{", v.Type())
		for i := range v.NumField() {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(v.Type().Field(i).Name + ":")
			dumpValue(b, v.Field(i))
		}
		b.WriteString("}")
	case reflect.Map:
		if v.IsNil() {
			fmt.Fprintf(b, "%s(nil)", v.Type())
			return
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(x.String(), y.String()) })
		fmt.Fprintf(b, "%s{", v.Type())
		for i, k := range keys {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(b, "%q:", k.String())
			dumpValue(b, v.MapIndex(k))
		}
		b.WriteString("}")
	case reflect.Slice:
		if v.IsNil() {
			fmt.Fprintf(b, "%s(nil)", v.Type())
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			fmt.Fprintf(b, "%s(%q)", v.Type(), v.Bytes())
			return
		}
		fmt.Fprintf(b, "%s[", v.Type())
		for i := range v.Len() {
			if i > 0 {
				b.WriteString(" ")
			}
			dumpValue(b, v.Index(i))
		}
		b.WriteString("]")
	case reflect.String:
		fmt.Fprintf(b, "%s(%q)", v.Type(), v.String())
	default:
		fmt.Fprintf(b, "%s(%v)", v.Type(), v)
	}
}

// eventCases are the JSON events of testdata/v1conv-events.jsonl, one a
// line: tasks, messages and updates with every kind of part, state and
// role, as a2a-go's 0.3 types wrote them, and ill-formed ones.
func eventCases(t testing.TB) [][]byte {
	t.Helper()
	b, err := os.ReadFile("testdata/v1conv-events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := sc.Bytes(); len(line) > 0 {
			out = append(out, slices.Clone(line))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// convertedEvent is what decodeV1Event answers for b, as the golden file
// has it: the event, or that it failed.
func convertedEvent(b []byte) string {
	ev, err := decodeV1Event(b)
	if err != nil {
		return "error"
	}
	return dump(ev)
}

func TestDecodeV1EventMatchesA2av0(t *testing.T) {
	var got strings.Builder
	for _, b := range eventCases(t) {
		fmt.Fprintf(&got, "%s\n=> %s\n", b, convertedEvent(b))
	}
	golden.Check(t, "v1conv-events.golden", got.String())
}

// TestToV1OurEvents converts the events Castor renders (their JSON, as
// a2av0 read it) and a relayed event, which is JSON already.
func TestToV1OurEvents(t *testing.T) {
	ts := "2026-12-07T10:00:00.123456789Z"
	msg := &Message{Kind: "message", Role: "agent", MessageID: "m1", TaskID: "t1", ContextID: "c1",
		Parts: []Part{TextPart("hi"), DataPart(nil), {Kind: PartFile, File: &FileContent{Bytes: "aGk=", Name: "f"}}}}
	for _, ev := range []any{
		&Task{Kind: "task", ID: "t1", ContextID: "c1", Status: TaskStatus{State: StateInputRequired, Message: msg, Timestamp: ts}, History: []Message{*msg}},
		&StatusUpdateEvent{Kind: "status-update", TaskID: "t1", ContextID: "c1", Status: TaskStatus{State: StateWorking, Timestamp: ts}, Final: true, Metadata: map[string]any{"coderAgent": map[string]any{"kind": "state-change"}}},
		&ArtifactUpdateEvent{Kind: "artifact-update", TaskID: "t1", ContextID: "c1", Artifact: Artifact{ArtifactID: "a1", Parts: []Part{TextPart("out")}}, Append: true},
		msg,
	} {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		want, err := decodeV1Event(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		for _, in := range []any{ev, json.RawMessage(b)} {
			got, err := toV1(in)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("toV1(%T) = %s, %v; want %s", in, dump(got), err, dump(want))
			}
		}
	}
	if _, err := toV1(map[string]any{"kind": "other"}); err == nil {
		t.Error("an unknown event kind converted")
	}
	if got, err := toV1Task(&Task{Kind: "task", ID: "t1", Status: TaskStatus{State: StateCompleted}}); err != nil || got.ID != "t1" || got.Status.State != v1.TaskStateCompleted {
		t.Errorf("toV1Task = %s, %v", dump(got), err)
	}
}

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
	msg := func(role v1.MessageRole, parts v1.ContentParts) *v1.Message {
		return &v1.Message{
			ID: "m1", ContextID: "c1", TaskID: "t1", Role: role, Parts: parts,
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
		{Message: msg(v1.MessageRoleUser, v1Parts()), Metadata: map[string]any{"m": "d"}, Tenant: "tenant"},
		{Message: msg(v1.MessageRoleAgent, v1Parts()), Config: &v1.SendMessageConfig{}},
		{Message: msg(v1.MessageRoleUnspecified, v1Parts()), Config: &v1.SendMessageConfig{ReturnImmediately: true}},
		{Message: msg("ROLE_SYSTEM", v1Parts()), Config: &v1.SendMessageConfig{
			AcceptedOutputModes: []string{"text/plain", "application/json"}, HistoryLength: &n,
			PushConfig: &v1.PushConfig{TaskID: "t1", ID: "p1", URL: "http://127.0.0.1/hook", Token: "tok", Tenant: "x"},
		}},
		{Message: msg(v1.MessageRoleUser, v1Parts()), Config: &v1.SendMessageConfig{
			AcceptedOutputModes: []string{}, PushConfig: &v1.PushConfig{URL: "http://127.0.0.1/hook", Auth: &v1.PushAuthInfo{Scheme: "Bearer", Credentials: "secret"}},
		}},
		{Message: msg(v1.MessageRoleUser, v1Parts()), Config: &v1.SendMessageConfig{PushConfig: &v1.PushConfig{Auth: &v1.PushAuthInfo{}}}},
	}
	// Each part alone in a user's message, which decodeSendParams then
	// takes or refuses by that part.
	for _, p := range v1Parts() {
		reqs = append(reqs, &v1.SendMessageRequest{Message: msg(v1.MessageRoleUser, v1.ContentParts{p})})
	}
	return reqs
}

// sentParams is what message/send gets of a 1.0 request, as sendParams
// reads it: fromV1SendRequest's params through their JSON and
// decodeSendParams, or the error on the way.
func sentParams(req *v1.SendMessageRequest) string {
	lp, err := fromV1SendRequest(req)
	if err != nil {
		return "error: " + err.Error()
	}
	raw, err := json.Marshal(lp)
	if err != nil {
		return "error: " + err.Error()
	}
	p, e := decodeSendParams(raw)
	if e != nil {
		return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message)
	}
	return dump(p)
}

func TestFromV1SendRequestMatchesA2av0(t *testing.T) {
	var got strings.Builder
	for i, req := range v1Requests() {
		fmt.Fprintf(&got, "%d => %s\n", i, sentParams(req))
	}
	golden.Check(t, "v1conv-send.golden", got.String())
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

// TestTaskStatesMatchA2av0 holds a2av0's answers for the states of both
// versions, the unknown ones among them.
func TestTaskStatesMatchA2av0(t *testing.T) {
	for _, c := range []struct {
		v03 TaskState
		v10 v1.TaskState
	}{
		{StateSubmitted, v1.TaskStateSubmitted}, {StateWorking, v1.TaskStateWorking},
		{StateInputRequired, v1.TaskStateInputRequired}, {StateAuthRequired, v1.TaskStateAuthRequired},
		{StateCompleted, v1.TaskStateCompleted}, {StateCanceled, v1.TaskStateCanceled},
		{StateFailed, v1.TaskStateFailed}, {StateRejected, v1.TaskStateRejected},
		{StateUnknown, ""}, {"", ""}, {"bogus", ""}, {"TASK_STATE_WORKING", ""},
	} {
		if got := toV1State(c.v03); got != c.v10 {
			t.Errorf("toV1State(%q) = %q, want %q", c.v03, got, c.v10)
		}
	}
	for _, c := range []struct {
		v10 v1.TaskState
		v03 TaskState
	}{
		{v1.TaskStateSubmitted, StateSubmitted}, {v1.TaskStateWorking, StateWorking},
		{v1.TaskStateInputRequired, StateInputRequired}, {v1.TaskStateAuthRequired, StateAuthRequired},
		{v1.TaskStateCompleted, StateCompleted}, {v1.TaskStateCanceled, StateCanceled},
		{v1.TaskStateFailed, StateFailed}, {v1.TaskStateRejected, StateRejected},
		{v1.TaskStateUnspecified, ""}, {"TASK_STATE_UNKNOWN", ""}, {"working", ""}, {"bogus", ""},
	} {
		if got := fromV1State(c.v10); got != c.v03 {
			t.Errorf("fromV1State(%q) = %q, want %q", c.v10, got, c.v03)
		}
	}
}

// TestTerminalStates: the states no message continues, as A2A 0.3 says.
func TestTerminalStates(t *testing.T) {
	for _, c := range []struct {
		s    TaskState
		want bool
	}{
		{StateSubmitted, false}, {StateWorking, false}, {StateInputRequired, false},
		{StateAuthRequired, false}, {StateUnknown, false}, {"", false},
		{StateCompleted, true}, {StateCanceled, true}, {StateFailed, true}, {StateRejected, true},
	} {
		if got := c.s.Terminal(); got != c.want {
			t.Errorf("%q.Terminal() = %v, want %v", c.s, got, c.want)
		}
	}
}

// FuzzV1Conv reads JSON as a 0.3 event and as a 1.0 message/send request
// and converts both. A conversion must not panic, and an event that
// converts must convert alike from its own conversion's input again
// (decoding is a function of the JSON alone).
func FuzzV1Conv(f *testing.F) {
	for _, b := range eventCases(f) {
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
		if ev, err := decodeV1Event(b); err == nil {
			again, err := decodeV1Event(b)
			if err != nil || dump(again) != dump(ev) {
				t.Fatalf("%s converts otherwise the second time", b)
			}
		}
		var req v1.SendMessageRequest
		if json.Unmarshal(b, &req) != nil {
			return
		}
		sentParams(&req)
	})
}
