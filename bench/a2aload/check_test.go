package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestCheckTask(t *testing.T) {
	agent := func(text string) message {
		var m message
		_ = json.Unmarshal([]byte(fmt.Sprintf(`{"role":"agent","parts":[{"kind":"text","text":%q}]}`, text)), &m)
		return m
	}
	user := message{Role: "user"}
	waiting := taskStatus{State: "input-required"}
	tests := []struct {
		name string
		task storedTask
		want string // "" for no error, else part of it
	}{
		{"two answered turns", storedTask{Status: waiting, History: []message{user, agent(replyText), user, agent(replyText)}}, ""},
		{"a turn without text", storedTask{Status: waiting, History: []message{user, agent(replyText), user}}, "1 of 2 turns"},
		{"no text at all", storedTask{Status: waiting, History: []message{user, user}}, "0 of 2 turns"},
		{"an error message", storedTask{Status: waiting, History: []message{user, agent(replyText), user, agent(replyText), agent("Agent Error: boom")}}, `"Agent Error: boom"`},
		{"another state", storedTask{Status: taskStatus{State: "working"}, History: []message{user, agent(replyText), user, agent(replyText)}}, `"working"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkTask(&tt.task, 2)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("checkTask: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("checkTask = %v, want an error with %s", err, tt.want)
			}
		})
	}
}

// fakeA2A answers message/stream with the given events and tasks/get with
// task.
func fakeA2A(t *testing.T, events []string, task string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		switch req.Method {
		case "message/stream":
			w.Header().Set("Content-Type", "text/event-stream")
			for _, ev := range events {
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":%s}\n\n", ev)
			}
		case "tasks/get":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":%s}`, task)
		default:
			http.Error(w, "unexpected method "+req.Method, http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A turn that ends waiting for input without the model's text fails and
// says what it read.
func TestTurnWithoutText(t *testing.T) {
	events := []string{
		`{"kind":"task","id":"t1","status":{"state":"submitted"}}`,
		`{"kind":"status-update","taskId":"t1","status":{"state":"working"},"metadata":{"coderAgent":{"kind":"state-change"}}}`,
		`{"kind":"status-update","taskId":"t1","final":true,"status":{"state":"input-required","message":{"role":"agent","parts":[{"kind":"text","text":"Execution aborted by client."}]}},"metadata":{"coderAgent":{"kind":"state-change"}}}`,
	}
	srv := fakeA2A(t, events, `{"id":"t1","status":{"state":"input-required"},"history":[{"role":"user","parts":[]}]}`)
	c := newA2AClient(srv.URL, t.TempDir())
	tr := c.turn(context.Background(), "", 10*time.Second)
	if tr.err == nil {
		t.Fatal("a turn without the model's text passed")
	}
	for _, want := range []string{`arrived as ""`, "task/submitted, status-update/state-change/working, status-update/state-change/input-required! \"Execution aborted by client.\""} {
		if !strings.Contains(tr.err.Error(), want) {
			t.Errorf("error %q lacks %s", tr.err, want)
		}
	}
	st, err := c.getTask(context.Background(), "t1", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkTask(st, 1); err == nil || !strings.Contains(err.Error(), "0 of 1 turns") {
		t.Errorf("checkTask = %v", err)
	}
}
