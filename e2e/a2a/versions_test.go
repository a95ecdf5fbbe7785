package a2a_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// post1 sends a request to the binary as an A2A 1.0 client would, with
// the A2A-Version header and 1.0's media type, and decodes the answer.
func (s *a2aServer) post1(path string, body any) map[string]any {
	s.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(s.url, "/")+path, bytes.NewReader(b))
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Content-Type", "application/a2a+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		s.t.Fatalf("POST %s: %v", path, err)
	}
	return m
}

// TestA2AServerSpeaksBothVersions: the built server starts a task for a
// 0.3 client, continues it for a 1.0 client over JSON-RPC, and after a
// restart shows the whole history over 1.0's HTTP+JSON binding.
func TestA2AServerSpeaksBothVersions(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	store := filepath.Join(filepath.Dir(e.WS), "tasks")
	e.Srv.Enqueue(fakegemini.Text("Hello from 0.3."), fakegemini.Text("Hello from 1.0."))
	srv := startA2A(e, store)
	evs := srv.call("message/stream", a2aMessage("", map[string]any{"kind": "text", "text": "first"}))
	id, _ := evs[0]["id"].(string)

	got := srv.post1("/", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": map[string]any{
		"message": map[string]any{"role": "ROLE_USER", "messageId": "m2", "taskId": id, "parts": []any{map[string]any{"text": "second"}}}}})
	if a2aDig(got, "result", "task", "status", "state") != "TASK_STATE_INPUT_REQUIRED" {
		t.Fatalf("SendMessage = %v", got)
	}
	srv.stop(syscall.SIGTERM)

	srv = startA2A(e, store)
	resp, err := http.Get(strings.TrimSuffix(srv.url, "/") + "/a2a/tasks/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var task map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&task); err != nil {
		t.Fatal(err)
	}
	hist, _ := json.Marshal(task["history"])
	for _, w := range []string{"first", "Hello from 0.3.", "second", "Hello from 1.0."} {
		if !bytes.Contains(hist, []byte(w)) {
			t.Errorf("history after the restart lacks %q: %s", w, hist)
		}
	}
	if s := srv.call("tasks/get", map[string]any{"id": id})[0]; a2aDig(s, "status", "state") != "input-required" {
		t.Errorf("tasks/get after the restart: %v", s["status"])
	}
	srv.stop(syscall.SIGTERM)
}
