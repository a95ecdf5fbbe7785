// Package storetest checks that an a2a.TaskStore behaves as the A2A
// server expects: what is saved loads back equal, lists, is replaced by
// the next save, bad ids are refused, and, for an a2a.TaskPruner, old
// tasks are deleted and nothing else. Every store Castor ships runs it.
package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/agent"
)

// Task returns a task with something in every field, in the shapes a JSON
// round trip preserves (strings in maps, UTC times without monotonic
// readings), last active at ts.
func Task(id string, ts time.Time, artifacts int) *a2a.StoredTask {
	ts = ts.UTC().Round(0)
	msg := func(role, mid, text string) a2a.Message {
		return a2a.Message{Kind: "message", Role: role, MessageID: mid, TaskID: id, ContextID: "ctx-" + id, Parts: []a2a.Part{a2a.TextPart(text)}}
	}
	reply := msg("agent", "m2", "Paris.")
	t := &a2a.StoredTask{
		ID: id, ContextID: "ctx-" + id, State: a2a.StateInputRequired, Timestamp: ts,
		Status:   a2a.TaskStatus{State: a2a.StateInputRequired, Message: &reply, Timestamp: ts.Format(time.RFC3339Nano)},
		Settings: a2a.AgentSettings{Kind: "agent-settings", WorkspacePath: "/ws", AutoExecute: true},
		Metadata: map[string]any{
			"__persistedState": map[string]any{"_taskState": "input-required"},
			"_contextId":       "ctx-" + id,
		},
		History: []a2a.Message{msg("user", "m1", "Capital of France?"), reply},
		Conversation: []*genai.Content{
			genai.NewContentFromText("Capital of France?", genai.RoleUser),
			genai.NewContentFromText("Paris.", genai.RoleModel),
		},
		PushConfigs: []a2a.PushNotificationConfig{{ID: "p1", URL: "https://hooks.example/x", Token: "secret"}},
		Pending: []agent.PendingCall{
			{ID: "c1", Name: "write_file", PromptID: id + "########1", Status: agent.StatusAwaitingApproval},
			{ID: "c2", Name: "nope", PromptID: id + "########1", Status: agent.StatusError, Error: &agent.PendingError{Type: "tool_not_registered", Message: "Tool \"nope\" not found."}},
		},
	}
	for i := range artifacts {
		t.Artifacts = append(t.Artifacts, a2a.Artifact{ArtifactID: fmt.Sprintf("a%d", i), Parts: []a2a.Part{a2a.TextPart(fmt.Sprintf("out %d", i))}})
	}
	return t
}

// Run checks the store open returns; open is called once per subtest and
// must return an empty store.
func Run(t *testing.T, open func(t *testing.T) a2a.TaskStore) {
	now := time.Now()
	t.Run("save and load", func(t *testing.T) {
		saveLoad(t, open(t), Task("t1", now, 3), "")
	})

	t.Run("a save replaces the last", func(t *testing.T) {
		s := open(t)
		if err := s.Save(t.Context(), Task("t1", now, 3)); err != nil {
			t.Fatal(err)
		}
		want := Task("t1", now.Add(time.Minute), 1)
		want.History = want.History[:1]
		if err := s.Save(t.Context(), want); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(t.Context(), "t1")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("loaded task differs (-saved +loaded):\n%s", d)
		}
	})

	t.Run("grows turn by turn", func(t *testing.T) {
		// A task saved after every turn, as the server saves it: the
		// lists grow, the last agent message grows while it streams, and
		// compression replaces the conversation's start.
		s := open(t)
		want := Task("t1", now, 1)
		check := func(step string) {
			t.Helper()
			if err := s.Save(t.Context(), want); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load(t.Context(), "t1")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%s: loaded task differs (-saved +loaded):\n%s", step, d)
			}
		}
		check("first save")
		for i := range 80 {
			turn := fmt.Sprint(i)
			want.History = append(want.History, a2a.Message{Kind: "message", Role: "user", MessageID: "u" + turn, Parts: []a2a.Part{a2a.TextPart("question " + turn)}})
			check("turn " + turn + " starts")
			want.History = append(want.History, a2a.Message{Kind: "message", Role: "agent", MessageID: "a" + turn, Parts: []a2a.Part{a2a.TextPart("answer")}})
			check("turn " + turn + " streams")
			want.History[len(want.History)-1].Parts = []a2a.Part{a2a.TextPart("answer " + turn)}
			want.Conversation = append(want.Conversation, genai.NewContentFromText("question "+turn, genai.RoleUser), genai.NewContentFromText("answer "+turn, genai.RoleModel))
			if i == 50 {
				want.Conversation = append([]*genai.Content{genai.NewContentFromText("summary", genai.RoleUser)}, want.Conversation[len(want.Conversation)-4:]...)
			}
			check("turn " + turn + " ends")
		}
	})

	t.Run("streamed text", func(t *testing.T) {
		// A store that saves chunks (a2a.TextSaver) loads the history
		// with every chunk saved, whether the chunk starts a message or
		// continues it, and a chunk saved twice changes nothing.
		s := open(t)
		ts, ok := s.(a2a.TextSaver)
		if !ok {
			t.Skip("the store does not save chunks")
		}
		want := Task("t1", now, 0)
		if err := s.Save(t.Context(), want); err != nil {
			t.Fatal(err)
		}
		var version int64
		if sh, ok := s.(a2a.SharedStore); ok {
			var err error
			if version, err = sh.Version(t.Context(), "t1"); err != nil {
				t.Fatal(err)
			}
		}
		msg := a2a.Message{Kind: "message", Role: "agent", MessageID: "m3", TaskID: "t1", ContextID: "ctx-t1"}
		text := ""
		for _, chunk := range []string{"The ", "answer ", "is ", "42.", "42."} {
			at := len(text)
			if chunk == "42." && strings.HasSuffix(text, chunk) {
				at -= len(chunk) // the same chunk again
			} else {
				text += chunk
			}
			m := msg
			m.Parts = []a2a.Part{a2a.TextPart(text)}
			if err := ts.SaveText(t.Context(), "t1", version, a2a.TextChunk{Index: 2, Message: &m, At: at}); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load(t.Context(), "t1")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(append(want.History[:2:2], m), got.History); d != "" {
				t.Fatalf("after the chunk %q, the history differs (-streamed +loaded):\n%s", chunk, d)
			}
		}
		// The turn's end saves the task whole; the chunks are in it.
		msg.Parts = []a2a.Part{a2a.TextPart(text)}
		want.History = append(want.History, msg)
		saveLoad(t, s, want, "after the turn's save")
	})

	t.Run("list", func(t *testing.T) {
		s := open(t)
		if ids, err := s.List(t.Context()); err != nil || len(ids) != 0 {
			t.Fatalf("empty store lists %v, %v", ids, err)
		}
		for _, id := range []string{"b", "a", "c-1"} {
			if err := s.Save(t.Context(), Task(id, now, 0)); err != nil {
				t.Fatal(err)
			}
		}
		ids, err := s.List(t.Context())
		if want := []string{"a", "b", "c-1"}; err != nil || !slices.Equal(ids, want) {
			t.Errorf("List = %v, %v; want %v", ids, err, want)
		}
	})

	t.Run("unknown and bad ids", func(t *testing.T) {
		s := open(t)
		if _, err := s.Load(t.Context(), "nope"); !errors.Is(err, a2a.ErrNotFound) {
			t.Errorf("Load(unknown) = %v, want ErrNotFound", err)
		}
		for _, id := range []string{"../x", "a/b", "", "a b", strings.Repeat("x", 200)} {
			if err := s.Save(t.Context(), Task(id, now, 0)); err == nil {
				t.Errorf("saved %q", id)
			}
			if _, err := s.Load(t.Context(), id); !errors.Is(err, a2a.ErrNotFound) {
				t.Errorf("Load(%q) = %v, want ErrNotFound", id, err)
			}
		}
		if ids, err := s.List(t.Context()); err != nil || len(ids) != 0 {
			t.Errorf("List = %v, %v after refused saves", ids, err)
		}
	})

	t.Run("prune", func(t *testing.T) {
		s := open(t)
		p, ok := s.(a2a.TaskPruner)
		if !ok {
			t.Skipf("%T does not implement a2a.TaskPruner", s)
		}
		// The clock is a month ahead, as on a server whose tasks have sat
		// for that long: cutoff is a day from now. "old" and "kept" were
		// last active before it; "young" after it, though it was written
		// (by the real clock) before.
		cutoff := now.Add(24 * time.Hour)
		tasks := map[string]time.Time{"old": now, "old-2": now.Add(-time.Hour), "kept": now, "young": now.Add(48 * time.Hour)}
		for id, ts := range tasks {
			if err := s.Save(t.Context(), Task(id, ts, 2)); err != nil {
				t.Fatal(err)
			}
		}
		var asked []string
		deleted, err := p.Prune(t.Context(), cutoff, func(id string) bool {
			asked = append(asked, id)
			return id == "kept"
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(deleted)
		if want := []string{"old", "old-2"}; !slices.Equal(deleted, want) {
			t.Errorf("Prune deleted %v, want %v", deleted, want)
		}
		if slices.Contains(asked, "young") {
			t.Errorf("keep was asked about a young task: %v", asked)
		}
		ids, err := s.List(t.Context())
		if want := []string{"kept", "young"}; err != nil || !slices.Equal(ids, want) {
			t.Errorf("List = %v, %v after Prune; want %v", ids, err, want)
		}
		for _, id := range []string{"old", "old-2"} {
			if _, err := s.Load(t.Context(), id); !errors.Is(err, a2a.ErrNotFound) {
				t.Errorf("Load(%s) = %v after Prune, want ErrNotFound", id, err)
			}
		}
		// A pruned id can be used again.
		if err := s.Save(t.Context(), Task("old", now, 1)); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Load(t.Context(), "old"); err != nil || len(got.Artifacts) != 1 {
			t.Errorf("reused id loads %v, %v", got, err)
		}
		// Nothing old left: a second pass deletes nothing, and nil keep is
		// allowed.
		if deleted, err := p.Prune(t.Context(), now.Add(-time.Hour), nil); err != nil || len(deleted) != 0 {
			t.Errorf("second Prune = %v, %v", deleted, err)
		}
	})
}

// saveLoad saves want and checks that it loads back equal; what says
// when, in the error.
func saveLoad(t *testing.T, s a2a.TaskStore, want *a2a.StoredTask, what string) {
	t.Helper()
	if err := s.Save(t.Context(), want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(t.Context(), want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s: loaded task differs (-saved +loaded):\n%s", what, d)
	}
}
