package a2a_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestRESTExecuteWaitingForItsTurnStarts: POST /tasks/{id}/execute whose
// message waits for the task's previous turn answers at once with
// keep-alives, as message/stream does, and reports the turn's fate on
// the stream.
func TestRESTExecuteWaitingForItsTurnStarts(t *testing.T) {
	h := newHarness(t, withLimits(limitsWith(func(l *a2a.Limits) { l.KeepAlive = 10 * time.Millisecond })))
	h.fake.Enqueue(fakegemini.Hang())
	p := userMessage("hang", geminiSettings(h.ws), "")
	p["configuration"] = map[string]any{"blocking": false}
	id := dig(h.rpc("message/send", p), "result", "id").(string)
	h.waitModelCalls(1)
	got := make(chan *http.Response, 1)
	go func() { got <- h.post("/tasks/"+id+"/execute", map[string]any{"message": "next"}) }()
	var resp *http.Response
	select {
	case resp = <-got:
	case <-time.After(guard):
		h.rpc("tasks/cancel", map[string]any{"id": id})
		t.Fatal("no answer while the message waits for the previous turn")
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Errorf("status %d, Content-Type %q", resp.StatusCode, ct)
	}
	h.rpc("tasks/cancel", map[string]any{"id": id})
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), ": keep-alive") || !strings.Contains(string(b), "event: error") || !strings.Contains(string(b), "terminal state") {
		t.Errorf("stream: %s", b)
	}
}
