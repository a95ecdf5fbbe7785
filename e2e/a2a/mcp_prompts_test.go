package a2a_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestMCPPromptsChangeMidSession drives `castor a2a-server`: a server's
// tool call takes its prompt greet away and offers farewell
// (notifications/prompts/list_changed); the task's slash commands follow
// (GET /listCommands?taskId=), /farewell then expands to the server's
// prompt and /greet is sent as typed.
func TestMCPPromptsChangeMidSession(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteSettings(t, e, map[string]any{"mcpServers": map[string]any{"live": e2etest.HelperMCPServer(t, "swap")}})
	srv := startA2A(e, filepath.Join(filepath.Dir(e.WS), "tasks"), "--yolo")
	e.Srv.Enqueue(fakegemini.Call("swap_prompts", map[string]any{}), fakegemini.Text("swapped"))
	evs := srv.call("message/stream", a2aMessage("", map[string]any{"kind": "text", "text": "swap the prompts"}))
	id, _ := evs[0]["id"].(string)
	if id == "" {
		t.Fatalf("no task in %v", evs)
	}
	if !strings.Contains(string(e.Srv.LastRequest().Body), "swapped") {
		t.Fatal("swap_prompts did not run")
	}
	commands := func() map[string]bool {
		resp, err := http.Get(srv.url + "/listCommands?taskId=" + id)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct{ Commands []struct{ Name string } }
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, c := range body.Commands {
			out[c.Name] = true
		}
		return out
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if c := commands(); c["farewell"] && !c["greet"] {
			break
		}
		if time.Now().After(deadline) { // a hang, not a timing assertion
			t.Fatalf("the task's commands never followed the server's prompts: %v", commands())
		}
	}
	for _, tt := range []struct{ line, want string }{
		{"/farewell", "prompt farewell of server swap"},
		{"/greet", "/greet"}, // no such command any more: sent as typed
	} {
		e.Srv.Enqueue(fakegemini.Text("ok"))
		srv.call("message/stream", a2aMessage(id, map[string]any{"kind": "text", "text": tt.line}))
		if got := e2etest.LastUserText(e.Srv.LastRequest()); !strings.Contains(got, tt.want) || (tt.want[0] == '/' && strings.Contains(got, "prompt ")) {
			t.Errorf("%s reached the model as %q, want %q", tt.line, got, tt.want)
		}
	}
}
