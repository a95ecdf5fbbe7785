package blobstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/blobstore"
	"github.com/castor-dev/castor/internal/a2asession"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/model/gemini"
)

// replica is an A2A server over the fake model and a store, on loopback.
type replica struct {
	t   *testing.T
	srv *a2a.Server
	ts  *httptest.Server
}

func startReplica(t *testing.T, fake *fakegemini.Server, ws string, store a2a.TaskStore) *replica {
	t.Helper()
	m, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := a2a.NewServer(a2a.Config{
		Workspace:   ws,
		AllowedRoot: filepath.Dir(ws),
		NewSession: a2asession.Factory(setup.Options{Client: m, HomeDir: filepath.Join(filepath.Dir(ws), "home"),
			Env: func(string) (string, bool) { return "", false }}),
		Store: store,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{t: t, srv: srv, ts: httptest.NewServer(srv)}
	t.Cleanup(r.stop)
	return r
}

// stop shuts the server down as SIGTERM does: every task is saved.
func (r *replica) stop() {
	if r.ts == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.srv.Shutdown(ctx)
	r.ts.Close()
	r.ts = nil
}

func (r *replica) rpc(method string, params any) map[string]any {
	r.t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post(r.ts.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result map[string]any `json:"result"`
		Error  any            `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Error != nil {
		r.t.Fatalf("%s: %v %v", method, err, out.Error)
	}
	return out.Result
}

func send(text, taskID string, meta map[string]any) map[string]any {
	m := map[string]any{
		"kind": "message", "role": "user", "messageId": "m-" + text,
		"parts": []any{map[string]any{"kind": "text", "text": text}},
	}
	if taskID != "" {
		m["taskId"] = taskID
	}
	if meta != nil {
		m["metadata"] = meta
	}
	return map[string]any{"message": m}
}

// TestTaskContinuesOnNewServer runs a turn, then continues the task on a
// second server over the same bucket: after a restart (the first server
// stopped) and on another replica (the first still running). The second
// server must answer tasks/get from the store and send the model the
// whole conversation.
func TestTaskContinuesOnNewServer(t *testing.T) {
	for _, be := range backends {
		for _, restart := range []bool{true, false} {
			name := be.name + "/replica"
			if restart {
				name = be.name + "/restart"
			}
			t.Run(name, func(t *testing.T) {
				ws := filepath.Join(t.TempDir(), "ws")
				if err := os.MkdirAll(ws, 0o755); err != nil {
					t.Fatal(err)
				}
				fake := fakegemini.Start(t, fakegemini.Text("The capital is Paris."))
				reopen := be.open(t)
				first := startReplica(t, fake, ws, reopen())
				settings := map[string]any{"coderAgent": map[string]any{"kind": "agent-settings", "workspacePath": ws}}
				task := first.rpc("message/send", send("What is the capital of France?", "", settings))
				id, _ := task["id"].(string)
				if id == "" {
					t.Fatalf("no task id in %v", task)
				}
				if restart {
					first.stop()
				} else {
					// The server saves a turn after publishing its final
					// event, so the response can arrive before the save.
					waitSaved(t, reopen(), id, 2)
				}

				second := startReplica(t, fake, ws, reopen())
				got := second.rpc("tasks/get", map[string]any{"id": id})
				if h, _ := got["history"].([]any); len(h) != 2 {
					t.Errorf("history from the store has %d messages: %v", len(h), got)
				}
				fake.Enqueue(fakegemini.Text("About 2 million."))
				second.rpc("message/send", send("And its population?", id, nil))
				body := string(fake.LastRequest().Body)
				for _, want := range []string{"What is the capital of France?", "The capital is Paris.", "And its population?"} {
					if !strings.Contains(body, want) {
						t.Errorf("the continued conversation lacks %q", want)
					}
				}
			})
		}
	}
}

// waitSaved waits until the store holds the task with n messages.
func waitSaved(t *testing.T, s *blobstore.Store, id string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := s.Load(t.Context(), id)
		if err == nil && len(st.History) == n && st.State == a2a.StateInputRequired {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s not saved with %d messages: %v, %v", id, n, st, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestOpenMem: mem:// opens an empty, working store.
func TestOpenMem(t *testing.T) {
	s := mustOpen(t, "mem://")
	if err := s.Save(t.Context(), sampleTask("m", 1)); err != nil {
		t.Fatal(err)
	}
	if ids, err := s.List(t.Context()); err != nil || len(ids) != 1 {
		t.Errorf("List = %v, %v", ids, err)
	}
}

// TestOpenFileErrors: a directory that cannot be made fails to open, in
// one line naming the URL.
func TestOpenFileErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{file, filepath.Join(file, "sub")} {
		u := mustFileURL(t, dir)
		_, err := blobstore.Open(t.Context(), u)
		if err == nil || !strings.Contains(err.Error(), u) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Open(%s) = %v", u, err)
		}
	}
}
