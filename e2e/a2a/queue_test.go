package a2a_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestA2AMaxQueuedMessagesFlag: `castor a2a-server --max-queued-messages
// 1` lets one message wait for its task's running turn and answers the
// next busy; a negative bound is refused as a usage error.
func TestA2AMaxQueuedMessagesFlag(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	if r := e.Run("a2a-server", "--port", "0", "--max-queued-messages", "-1"); r.Code == 0 || !strings.Contains(r.Stderr, "--max-queued-messages -1: must not be negative") {
		t.Errorf("a negative bound: exit %d, stderr %q", r.Code, r.Stderr)
	}
	e.Srv.Enqueue(fakegemini.Hang())
	srv := startA2A(e, filepath.Join(filepath.Dir(e.WS), "tasks"), "--max-queued-messages", "1")
	send := func(taskID, text string) map[string]any {
		p := a2aMessage(taskID, map[string]any{"kind": "text", "text": text})
		p["configuration"] = map[string]any{"blocking": false}
		resp := srv.post("message/send", p)
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	id, _ := a2aDig(send("", "hang"), "result", "id").(string)
	if id == "" {
		t.Fatal("no task")
	}
	defer srv.call("tasks/cancel", map[string]any{"id": id})
	e2etest.AwaitModelCall(t, e.Srv)
	if m := send(id, "second"); m["error"] != nil {
		t.Fatalf("the first waiting message was refused: %v", m)
	}
	m := send(id, "third")
	if msg, _ := a2aDig(m, "error", "message").(string); !strings.Contains(msg, "Server busy: the task already has messages waiting") {
		t.Errorf("the second waiting message: %v, want busy", m)
	}
}
