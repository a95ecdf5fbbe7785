package a2a_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// listCommands returns the top-level names GET /listCommands gives for
// query ("" or "?taskId=…").
func (s *a2aServer) listCommands(query string) []string {
	s.t.Helper()
	resp, err := http.Get(s.url + "listCommands" + query)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Commands []struct {
			Name string `json:"name"`
		} `json:"commands"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		s.t.Fatalf("GET /listCommands%s: HTTP %d, %v", query, resp.StatusCode, err)
	}
	var names []string
	for _, c := range body.Commands {
		names = append(names, c.Name)
	}
	return names
}

// executeCommand posts to /executeCommand and returns its body.
func (s *a2aServer) executeCommand(body map[string]any) string {
	s.t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(s.url+"executeCommand", "application/json", bytes.NewReader(b))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return string(out)
}

// TestA2AListsSessionCommands: the built server lists the commands a
// task's session accepts (/compress, /skills, /hooks) before any task,
// lists a task's own with its id, and runs /compress on that task's
// conversation, also after a restart (the session is rebuilt from the
// store).
func TestA2AListsSessionCommands(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("hello"))
	store := filepath.Join(filepath.Dir(e.WS), "tasks")
	srv := startA2A(e, store)
	for _, n := range []string{"compress", "skills", "hooks", "memory", "init"} {
		if got := srv.listCommands(""); !slices.Contains(got, n) {
			t.Errorf("/listCommands lacks %s: %v", n, got)
		}
	}
	evs := srv.call("message/stream", a2aMessage("", map[string]any{"kind": "text", "text": "hi"}))
	id, _ := evs[0]["id"].(string)
	if id == "" {
		t.Fatalf("no task in %v", evs)
	}
	if got := srv.listCommands("?taskId=" + id); !slices.Contains(got, "compress") || !slices.Contains(got, "skills") {
		t.Errorf("/listCommands?taskId= = %v", got)
	}
	if out := srv.executeCommand(map[string]any{"command": "compress"}); !strings.Contains(out, "acts on a task's session") {
		t.Errorf("compress without a task: %s", out)
	}
	if out := srv.executeCommand(map[string]any{"command": "compress", "taskId": id}); !strings.Contains(out, "Nothing to compress") {
		t.Errorf("compress on the task: %s", out)
	}
	srv.stop(syscall.SIGTERM)

	srv = startA2A(e, store)
	if out := srv.executeCommand(map[string]any{"command": "compress", "taskId": id}); !strings.Contains(out, "Nothing to compress") {
		t.Errorf("compress on the task after a restart: %s", out)
	}
	srv.stop(syscall.SIGTERM)
}

// TestA2ARewindAfterRestart: a task's prompts from before a server
// restart (its conversation restored from the store) are listed by
// /rewind, and "/rewind 2" takes the conversation back before the second.
func TestA2ARewindAfterRestart(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("One."), fakegemini.Text("Two."), fakegemini.Text("Three."))
	store := filepath.Join(filepath.Dir(e.WS), "tasks")
	srv := startA2A(e, store)
	evs := srv.call("message/stream", a2aMessage("", map[string]any{"kind": "text", "text": "first question"}))
	id, _ := evs[0]["id"].(string)
	if id == "" {
		t.Fatalf("no task in %v", evs)
	}
	srv.call("message/stream", a2aMessage(id, map[string]any{"kind": "text", "text": "second question"}))
	srv.stop(syscall.SIGTERM)

	srv = startA2A(e, store)
	defer srv.stop(syscall.SIGTERM)
	if out := srv.executeCommand(map[string]any{"command": "rewind", "taskId": id}); !strings.Contains(out, `1. first question\n2. second question`) {
		t.Errorf("/rewind after the restart: %s", out)
	}
	if out := srv.executeCommand(map[string]any{"command": "rewind", "args": []string{"2"}, "taskId": id}); !strings.Contains(out, "Rewound the conversation to before: second question") {
		t.Errorf("/rewind 2 after the restart: %s", out)
	}
	srv.call("message/stream", a2aMessage(id, map[string]any{"kind": "text", "text": "third question"}))
	last := e2etest.ContentsText(e.Srv.LastRequest())
	if !strings.Contains(last, "first question") || !strings.Contains(last, "One.") || strings.Contains(last, "second question") || strings.Contains(last, "Two.") {
		t.Errorf("after the rewind the model was sent:\n%s", last)
	}
}
