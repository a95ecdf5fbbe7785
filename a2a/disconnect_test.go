package a2a_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestClientDisconnect: a client that closes its stream mid-turn leaves
// the turn running by default, and cancels it under DisconnectCancel.
func TestClientDisconnect(t *testing.T) {
	for _, tt := range []struct {
		mode  a2a.DisconnectMode
		state string
		text  string
	}{
		{"", "working", ""},
		{a2a.DisconnectContinue, "working", ""},
		{a2a.DisconnectCancel, "input-required", "Execution aborted by client."},
	} {
		t.Run(string(tt.mode), func(t *testing.T) {
			h := newHarness(t, func(c *a2a.Config) { c.OnDisconnect = tt.mode })
			h.fake.Enqueue(fakegemini.Hang())
			s := h.open("message/stream", userMessage("wait", geminiSettings(h.ws), ""))
			id := s.next()["id"].(string)
			s.next() // working
			h.waitModelCalls(1)
			s.resp.Body.Close()
			// The server has noticed once the stream is no longer counted.
			for deadline := time.Now().Add(guard); ; time.Sleep(5 * time.Millisecond) {
				resp := h.get("/health")
				var health map[string]any
				json.NewDecoder(resp.Body).Decode(&health)
				resp.Body.Close()
				if health["streams"] == float64(0) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the stream is still open: %v", health)
				}
			}
			var res map[string]any
			for deadline := time.Now().Add(guard); ; time.Sleep(5 * time.Millisecond) {
				res = h.rpc("tasks/get", map[string]any{"id": id})
				if tt.state == "working" || dig(res, "result", "status", "state") == tt.state || time.Now().After(deadline) {
					break
				}
			}
			if st := dig(res, "result", "status", "state"); st != tt.state {
				t.Errorf("state %v after the client left, want %s", st, tt.state)
			}
			if tt.text != "" && !strings.Contains(summaryOf(res), tt.text) {
				t.Errorf("status lacks %q: %v", tt.text, dig(res, "result", "status"))
			}
			h.rpc("tasks/cancel", map[string]any{"id": id})
		})
	}
}

func summaryOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestUnknownDisconnectMode(t *testing.T) {
	newSession := func(context.Context, a2a.SessionSpec) (*a2a.TaskSession, error) { return nil, nil }
	_, err := a2a.NewServer(a2a.Config{NewSession: newSession, AllowedRoot: t.TempDir(), OnDisconnect: "drop"})
	if err == nil || !strings.Contains(err.Error(), `"drop"`) {
		t.Fatalf("NewServer with an unknown mode: %v", err)
	}
}

// TestReleasedSessions: past MaxIdleSessions, idle tasks give their
// sessions up; their next turn rebuilds them, a pending confirmation
// included.
func TestReleasedSessions(t *testing.T) {
	h := newHarness(t, withLimits(limitsWith(func(l *a2a.Limits) { l.MaxIdleSessions = 1 })))
	path := filepath.Join(h.ws, "r.txt")
	h.fake.Enqueue(writeCall(path, "r"))
	evs := h.stream(userMessage("write", geminiSettings(h.ws), ""))
	paused, call := taskID(evs), toolCallID(evs)
	h.fake.Enqueue(fakegemini.Text("Paris."))
	other := taskID(h.stream(userMessage("capital of France?", geminiSettings(h.ws), "")))
	// Two idle tasks, one session kept: the paused task's went.
	h.fake.Enqueue(fakegemini.Text("written"))
	evs = h.stream(userMessage("", nil, paused, map[string]any{"kind": "data", "data": map[string]any{"callId": call, "outcome": "proceed_once"}}))
	assertUniqueFinalIsLast(t, evs)
	if _, err := os.Stat(path); err != nil {
		t.Errorf("approved after its session was released, the file was not written: %v", err)
	}
	h.fake.Enqueue(fakegemini.Text("2 million."))
	h.stream(userMessage("population?", nil, other))
	if body := string(h.fake.LastRequest().Body); !strings.Contains(body, "capital of France?") || !strings.Contains(body, "Paris.") {
		t.Errorf("the rebuilt session lost the conversation")
	}
}
