package a2a_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// fullDiskStore fails every Save once full is set, as a store on a full
// disk does.
type fullDiskStore struct {
	*a2a.MemoryStore
	full atomic.Bool
}

func (s *fullDiskStore) Save(ctx context.Context, t *a2a.StoredTask) error {
	if s.full.Load() {
		return fmt.Errorf("write tasks/%s.json: %w", t.ID, syscall.ENOSPC)
	}
	return s.MemoryStore.Save(ctx, t)
}

// TestSaveFailureReachesTheClient: when the store cannot save a task (a
// full disk), the client is told (the turn's final status carries the
// error, and a call that changes the task answers with a JSON-RPC error)
// instead of the server only logging it while the client believes the
// task saved.
func TestSaveFailureReachesTheClient(t *testing.T) {
	st := &fullDiskStore{MemoryStore: a2a.NewMemoryStore()}
	h := newHarness(t, withStore(st))
	st.full.Store(true)

	h.fake.Enqueue(fakegemini.Text("Hello."))
	evs := h.stream(userMessage("hello", geminiSettings(h.ws), ""))
	final := evs[len(evs)-1]
	b, _ := json.Marshal(final)
	if final["final"] != true || !strings.Contains(string(b), "no space left on device") || !strings.Contains(string(b), "will not survive a restart") {
		t.Fatalf("final event does not say the save failed:\n%s", b)
	}
	id := taskID(evs)

	got := h.rpc("tasks/get", map[string]any{"id": id})
	b, _ = json.Marshal(got["result"])
	if !strings.Contains(string(b), "no space left on device") {
		t.Errorf("tasks/get does not show the failed save:\n%s", b)
	}

	res := h.rpc("tasks/cancel", map[string]any{"id": id})
	e, _ := res["error"].(map[string]any)
	if msg, _ := e["message"].(string); !strings.Contains(msg, "no space left on device") {
		t.Errorf("tasks/cancel answered %v, want an error naming the failed save", res)
	}
}
