package a2a_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestPushConfigsSurviveRestart: a task's webhooks are stored with it;
// the next process restores them in their order, under their ids (the
// unnamed one under the task's), and delivers the task's next turn to
// each.
func TestPushConfigsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, withStore(openFileStore(t, dir)), withPrivatePush())
	hook := newWebhook(t, 0)
	h.fake.Enqueue(fakegemini.Text("first"))
	p := userMessage("hi", geminiSettings(h.ws), "")
	p["configuration"] = map[string]any{"pushNotificationConfig": map[string]any{"url": hook.srv.URL + "/1", "token": "tok-1"}}
	id := dig(h.rpc("message/send", p), "result", "id").(string)
	hook.waitState(t, "input-required")
	set := h.rpc("tasks/pushNotificationConfig/set", map[string]any{"taskId": id, "pushNotificationConfig": map[string]any{"id": "second", "url": hook.srv.URL + "/2", "token": "tok-2"}})
	if set["error"] != nil {
		t.Fatalf("set → %v", set)
	}
	h.stop()

	h.start(withStore(openFileStore(t, dir)), withPrivatePush())
	list := h.rpc("tasks/pushNotificationConfig/list", map[string]any{"id": id})
	var got []string
	for _, c := range asSlice(list["result"]) {
		got = append(got, fmt.Sprint(dig(c, "pushNotificationConfig", "id"), " ", dig(c, "pushNotificationConfig", "url")))
	}
	want := []string{id + " " + hook.srv.URL + "/1", "second " + hook.srv.URL + "/2"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("restored configs = %q, want %q", got, want)
	}

	h.fake.Enqueue(fakegemini.Text("second"))
	h.rpc("message/send", userMessage("again", nil, id))
	// The second turn's end (four messages of history) reaches both.
	seen := map[string]bool{}
	timeout := time.After(guard)
	for !seen["tok-1"] || !seen["tok-2"] {
		select {
		case p := <-hook.got:
			if dig(p.task, "status", "state") == "input-required" && len(asSlice(p.task["history"])) == 4 {
				seen[p.token] = true
			}
		case <-timeout:
			t.Fatalf("the second turn's end reached only %v", seen)
		}
	}
}
