package a2a_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestProgressSavedMidTurn: once a batch of tool calls has its results,
// the stored conversation holds them, before the turn ends: a process
// that dies later in the turn loses neither the call nor its result (the
// conversation used to be kept only at the turn's end).
func TestProgressSavedMidTurn(t *testing.T) {
	store := a2a.NewMemoryStore()
	h := newHarness(t, withStore(store), withYOLO())
	h.fake.Enqueue(fakegemini.Call("list_directory", map[string]any{"dir_path": h.ws}), fakegemini.Hang())
	s := h.open("message/stream", userMessage("list", geminiSettings(h.ws), ""))
	id := s.next()["id"].(string)
	h.waitModelCalls(2)
	st, err := store.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var call, result bool
	for _, c := range st.Conversation {
		for _, p := range c.Parts {
			call = call || p.FunctionCall != nil && p.FunctionCall.Name == "list_directory"
			result = result || p.FunctionResponse != nil && p.FunctionResponse.Name == "list_directory"
		}
	}
	if !call || !result || st.State != a2a.StateWorking {
		t.Errorf("stored mid-turn: state %s, call %v, result %v", st.State, call, result)
	}
	h.rpc("tasks/cancel", map[string]any{"id": id})
}

// TestMetadataCountsAsSessionUse: listing a task's tools uses its session,
// which the idle-session trimmer then keeps over a session idle longer
// (it used to release the one just used, rebuilt at the next request).
func TestMetadataCountsAsSessionUse(t *testing.T) {
	var builds atomic.Int32
	h := newHarness(t, withLimits(limitsWith(func(l *a2a.Limits) { l.MaxIdleSessions = 2 })), func(c *a2a.Config) {
		next := c.NewSession
		c.NewSession = func(ctx context.Context, spec a2a.SessionSpec) (*a2a.TaskSession, error) {
			builds.Add(1)
			return next(ctx, spec)
		}
	})
	var ids []string
	for _, q := range []string{"a", "b"} {
		h.fake.Enqueue(fakegemini.Text(q))
		ids = append(ids, taskID(h.stream(userMessage(q, geminiSettings(h.ws), ""))))
	}
	metadata := func() {
		t.Helper()
		resp := h.get("/tasks/" + ids[0] + "/metadata")
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("metadata: %s", resp.Status)
		}
	}
	metadata()
	// A third task's turn ends: three sessions, two kept.
	h.fake.Enqueue(fakegemini.Text("c"))
	h.stream(userMessage("c", geminiSettings(h.ws), ""))
	metadata()
	if n := builds.Load(); n != 3 {
		t.Errorf("%d sessions built, want 3: the session the metadata request used was released", n)
	}
	if !strings.Contains(toJSON(h.rpc("tasks/get", map[string]any{"id": ids[0]})), "input-required") {
		t.Error("the first task is not input-required")
	}
}
