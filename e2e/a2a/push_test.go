package a2a_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// rpcError posts one JSON-RPC request that must fail and returns its
// error object.
func (s *a2aServer) rpcError(method string, params any) map[string]any {
	s.t.Helper()
	resp := s.post(method, params)
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		s.t.Fatal(err)
	}
	e, _ := m["error"].(map[string]any)
	if e == nil {
		s.t.Fatalf("%s succeeded: %v", method, m)
	}
	return e
}

// TestA2APushNotifications: the built server refuses a webhook on
// loopback unless started with --allow-private-push, and with it delivers
// the task's final state to the webhook with the client's token.
func TestA2APushNotifications(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	type delivery struct {
		token string
		task  map[string]any
	}
	got := make(chan delivery, 16)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var task map[string]any
		json.Unmarshal(b, &task)
		select {
		case got <- delivery{r.Header.Get("X-A2A-Notification-Token"), task}:
		default: // the test has what it needs
		}
	}))
	defer hook.Close()

	e.Srv.Enqueue(fakegemini.Text("first"))
	srv := startA2A(e, filepath.Join(t.TempDir(), "tasks"))
	id, _ := srv.call("message/send", a2aMessage("", map[string]any{"kind": "text", "text": "hi"}))[0]["id"].(string)
	for _, tt := range []struct{ url, msg string }{
		{hook.URL + "/hook", "push notification target is a loopback, private or link-local address"},
		{"http://[::ffff:127.0.0.1]/hook", "push notification target is a loopback, private or link-local address"},
		{"http://[64:ff9b::7f00:1]/hook", "push notification target is a loopback, private or link-local address"}, // NAT64
		{"http://[2002:7f00:1::1]/hook", "push notification target is a loopback, private or link-local address"},  // 6to4
		{"ftp://example.com/hook", "pushNotificationConfig.url must be an absolute http(s) URL without credentials"},
	} {
		e := srv.rpcError("tasks/pushNotificationConfig/set", map[string]any{"taskId": id, "pushNotificationConfig": map[string]any{"url": tt.url}})
		if e["code"] != float64(-32602) || e["message"] != tt.msg {
			t.Errorf("set %s: %v", tt.url, e)
		}
	}
	srv.stop(syscall.SIGTERM)

	e.Srv.Enqueue(fakegemini.Text("second"))
	srv = startA2A(e, filepath.Join(t.TempDir(), "tasks"), "--allow-private-push")
	p := a2aMessage("", map[string]any{"kind": "text", "text": "hi"})
	p["configuration"] = map[string]any{"pushNotificationConfig": map[string]any{"url": hook.URL + "/hook", "token": "tok-1"}}
	id, _ = srv.call("message/send", p)[0]["id"].(string)
	deadline := time.After(time.Minute) // a hang, not a timing
	for {
		select {
		case d := <-got:
			if d.token != "tok-1" || d.task["id"] != id {
				t.Fatalf("delivery with token %q of task %v", d.token, d.task["id"])
			}
			if a2aDig(d.task, "status", "state") == "input-required" {
				srv.stop(syscall.SIGTERM)
				return
			}
		case <-deadline:
			t.Fatal("no push notification of the final state")
		}
	}
}
