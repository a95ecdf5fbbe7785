package a2a_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// sendNow sends params with message/send, blocking false, and fails the
// test when the answer does not come while the task's previous turn (or
// every turn slot) is held by a model that never answers.
func (h *harness) sendNow(params map[string]any) map[string]any {
	h.t.Helper()
	params["configuration"] = map[string]any{"blocking": false}
	got := make(chan map[string]any, 1)
	go func() { got <- h.rpcQuiet("message/send", params) }()
	select {
	case res := <-got:
		return res
	case <-time.After(guard):
		h.t.Fatal("a non-blocking message/send waited for the turn before it")
		return nil
	}
}

// rpcQuiet is rpc for a goroutine: failures come back as an error member.
func (h *harness) rpcQuiet(method string, params any) map[string]any {
	resp := h.post("/", map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return map[string]any{"error": err.Error()}
	}
	return out
}

// userTexts lists the texts of a task's user messages, in history order.
func userTexts(task any) []string {
	var out []string
	for _, m := range asSlice(dig(task, "history")) {
		if dig(m, "role") == "user" {
			out = append(out, dig(asSlice(dig(m, "parts"))[0], "text").(string))
		}
	}
	return out
}

// TestNonBlockingSendAnswersAtOnce: a non-blocking message/send answers
// with the task, submitted and its message in the history, while the
// task's previous turn runs (the message queues behind it) or while
// every turn slot is taken (it waits for one); it does not wait for
// either (it used to, 3 s with one slot).
func TestNonBlockingSendAnswersAtOnce(t *testing.T) {
	for _, tt := range []struct {
		name     string
		sameTask bool
	}{
		{"task busy", true},
		{"no free slot", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withLimits(limitsWith(func(l *a2a.Limits) { l.MaxConcurrentTurns = 1 })))
			h.fake.Enqueue(fakegemini.Hang())
			first := h.sendNow(userMessage("hang", geminiSettings(h.ws), ""))
			id := dig(first, "result", "id").(string)
			h.waitModelCalls(1)
			h.fake.Enqueue(fakegemini.Text("second answered"))
			p := userMessage("second", geminiSettings(h.ws), "")
			if tt.sameTask {
				p = userMessage("second", nil, id)
			}
			res := h.sendNow(p)
			if res["error"] != nil {
				t.Fatalf("second send → %v", res)
			}
			// A task running a turn stays working; a new one is submitted.
			if st := dig(res, "result", "status", "state"); st != "submitted" && st != "working" {
				t.Errorf("second send's task is %v, want submitted or working", st)
			}
			if got := userTexts(dig(res, "result")); got[len(got)-1] != "second" {
				t.Errorf("second send's history: %v", got)
			}
			second := dig(res, "result", "id").(string)
			// The queued message waits; cancelling the first task frees its
			// slot (and, for the same task, drops the message).
			h.rpc("tasks/cancel", map[string]any{"id": id})
			if tt.sameTask {
				got := h.rpc("tasks/get", map[string]any{"id": id})
				if dig(got, "result", "status", "state") != "canceled" || !slicesEqual(userTexts(dig(got, "result")), []string{"hang", "second"}) {
					t.Errorf("after cancel: %v", got)
				}
				if n := len(h.fake.Requests()); n != 1 {
					t.Errorf("the dropped message reached the model (%d calls)", n)
				}
				return
			}
			waitState(t, h, second, "input-required")
			if got := h.rpc("tasks/get", map[string]any{"id": second}); !strings.Contains(toJSON(got), "second answered") {
				t.Errorf("the queued turn did not run: %v", got)
			}
		})
	}
}

// TestQueuedMessagesRunInOrder: messages sent while a turn runs run one
// after the other, in the order they came, each in its own turn.
func TestQueuedMessagesRunInOrder(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Text("one").Slow(50*time.Millisecond), fakegemini.Text("two"), fakegemini.Text("three"))
	s := h.open("message/stream", userMessage("first", geminiSettings(h.ws), ""))
	id := s.next()["id"].(string)
	for _, text := range []string{"second", "third"} {
		if res := h.sendNow(userMessage(text, nil, id)); res["error"] != nil {
			t.Fatalf("%s → %v", text, res)
		}
	}
	assertUniqueFinalIsLast(t, s.rest())
	waitModelCallsAndIdle(t, h, id, 3)
	var lasts []string
	for _, r := range h.fake.Requests() {
		parts := r.LastContent().Parts
		lasts = append(lasts, parts[len(parts)-1].Text)
	}
	if !slicesEqual(lasts, []string{"first", "second", "third"}) {
		t.Errorf("the model saw %q", lasts)
	}
	got := h.rpc("tasks/get", map[string]any{"id": id})
	if !slicesEqual(userTexts(dig(got, "result")), []string{"first", "second", "third"}) {
		t.Errorf("history: %s", toJSON(dig(got, "result", "history")))
	}
}

// TestQueueBound: past Limits.MaxQueuedMessages a message to a busy task
// is refused as busy.
func TestQueueBound(t *testing.T) {
	h := newHarness(t, withLimits(limitsWith(func(l *a2a.Limits) { l.MaxQueuedMessages = 1 })))
	h.fake.Enqueue(fakegemini.Hang())
	id := dig(h.sendNow(userMessage("hang", geminiSettings(h.ws), "")), "result", "id").(string)
	h.waitModelCalls(1)
	if res := h.sendNow(userMessage("queued", nil, id)); res["error"] != nil {
		t.Fatalf("first queued → %v", res)
	}
	res := h.sendNow(userMessage("one too many", nil, id))
	if dig(res, "error", "data", "busy") != true {
		t.Errorf("second queued → %v", res)
	}
	h.rpc("tasks/cancel", map[string]any{"id": id})
}

// TestQueuedMessageSurvivesShutdown: a message queued when the server
// stops is in the stored history, and the task is input-required after
// the restart, as a turn cut short is.
func TestQueuedMessageSurvivesShutdown(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, withStore(openFileStore(t, dir)))
	h.fake.Enqueue(fakegemini.Hang())
	id := dig(h.sendNow(userMessage("hang", geminiSettings(h.ws), "")), "result", "id").(string)
	h.waitModelCalls(1)
	if res := h.sendNow(userMessage("queued", nil, id)); res["error"] != nil {
		t.Fatalf("queued → %v", res)
	}
	h.stop()
	h.start(withStore(openFileStore(t, dir)))
	got := h.rpc("tasks/get", map[string]any{"id": id})
	if st := dig(got, "result", "status", "state"); st != "input-required" {
		t.Errorf("after the restart the task is %v", st)
	}
	if texts := userTexts(dig(got, "result")); !slicesEqual(texts, []string{"hang", "queued"}) {
		t.Errorf("after the restart the history holds %q", texts)
	}
	// It goes on with the next message.
	h.fake.Enqueue(fakegemini.Text("back"))
	if res := h.rpc("message/send", userMessage("again", nil, id)); !strings.Contains(toJSON(res), "back") {
		t.Errorf("next message → %v", res)
	}
}

// TestStreamLeavesQueuedMessageUnderCancel: under DisconnectCancel a
// stream whose client leaves while its message waits takes the message
// out of the queue; it is not run.
func TestStreamLeavesQueuedMessageUnderCancel(t *testing.T) {
	h := newHarness(t, func(c *a2a.Config) {
		c.OnDisconnect = a2a.DisconnectCancel
		c.Limits.KeepAlive = 10 * time.Millisecond // the server notices the client left at a write
	})
	h.fake.Enqueue(fakegemini.Hang())
	id := dig(h.sendNow(userMessage("hang", geminiSettings(h.ws), "")), "result", "id").(string)
	h.waitModelCalls(1)
	s := h.open("message/stream", userMessage("waits", nil, id))
	s.resp.Body.Close()
	waitHealth(t, h, func(m map[string]any) bool { return m["streams"] == float64(0) })
	h.fake.Enqueue(fakegemini.Text("unexpected"))
	h.rpc("tasks/cancel", map[string]any{"id": id})
	if n := len(h.fake.Requests()); n != 1 {
		t.Errorf("the abandoned message ran (%d model calls)", n)
	}
}

func slicesEqual(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}

// waitState waits for task id to reach state.
func waitState(t *testing.T, h *harness, id, state string) {
	t.Helper()
	for deadline := time.Now().Add(guard); ; time.Sleep(5 * time.Millisecond) {
		got := h.rpc("tasks/get", map[string]any{"id": id})
		if dig(got, "result", "status", "state") == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s never became %s: %v", id, state, got)
		}
	}
}

// waitModelCallsAndIdle waits for n model calls and the task's last turn
// to end.
func waitModelCallsAndIdle(t *testing.T, h *harness, id string, n int) {
	t.Helper()
	h.waitModelCalls(n)
	waitHealth(t, h, func(m map[string]any) bool { return m["activeTasks"] == float64(0) })
	waitState(t, h, id, "input-required")
}

// waitHealth waits for /health to satisfy ok.
func waitHealth(t *testing.T, h *harness, ok func(map[string]any) bool) {
	t.Helper()
	for deadline := time.Now().Add(guard); ; time.Sleep(5 * time.Millisecond) {
		resp := h.get("/health")
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if ok(m) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("health never matched: %v", m)
		}
	}
}

// TestCancelWaitingTask: cancelling a task whose message waits for a turn
// slot cancels it at once and gives its place in the queue back.
func TestCancelWaitingTask(t *testing.T) {
	h := newHarness(t, withLimits(limitsWith(func(l *a2a.Limits) { l.MaxConcurrentTurns = 1 })))
	h.fake.Enqueue(fakegemini.Hang())
	busy := dig(h.sendNow(userMessage("hang", geminiSettings(h.ws), "")), "result", "id").(string)
	h.waitModelCalls(1)
	waiting := dig(h.sendNow(userMessage("waits", geminiSettings(h.ws), "")), "result", "id").(string)
	waitHealth(t, h, func(m map[string]any) bool { return m["queuedTurns"] == float64(1) })
	res := h.rpc("tasks/cancel", map[string]any{"id": waiting})
	if st := dig(res, "result", "status", "state"); st != "canceled" {
		t.Fatalf("cancel → %v", res)
	}
	waitHealth(t, h, func(m map[string]any) bool { return m["queuedTurns"] == float64(0) })
	h.rpc("tasks/cancel", map[string]any{"id": busy})
	if n := len(h.fake.Requests()); n != 1 {
		t.Errorf("the cancelled task's message reached the model (%d calls)", n)
	}
}

// TestNewTaskLeftWhileWaitingUnderCancel: under DisconnectCancel a stream
// that creates a task and leaves while its message waits for a turn slot
// leaves nothing behind: its client never learned the task's id, so a
// task kept (in memory, in the store, holding its place in the queue of
// turns until a slot freed) would be an orphan, one per such client.
func TestNewTaskLeftWhileWaitingUnderCancel(t *testing.T) {
	h := newHarness(t, withLimits(limitsWith(func(l *a2a.Limits) {
		l.MaxConcurrentTurns = 1
		l.KeepAlive = 10 * time.Millisecond // the server notices the client left at a write
	})), func(c *a2a.Config) {
		c.OnDisconnect = a2a.DisconnectCancel
		c.Store = a2a.NewMemoryStore()
	})
	h.fake.Enqueue(fakegemini.Hang())
	busy := dig(h.sendNow(userMessage("hang", geminiSettings(h.ws), "")), "result", "id").(string)
	h.waitModelCalls(1)
	s := h.open("message/stream", userMessage("waits", geminiSettings(h.ws), ""))
	waitHealth(t, h, func(m map[string]any) bool { return m["queuedTurns"] == float64(1) })
	s.resp.Body.Close()
	waitHealth(t, h, func(m map[string]any) bool {
		return m["streams"] == float64(0) && m["queuedTurns"] == float64(0) && m["liveTasks"] == float64(1)
	})
	ids, err := h.store.List(t.Context())
	if err != nil || len(ids) != 1 || ids[0] != busy {
		t.Errorf("stored tasks %q (%v), want only %s", ids, err, busy)
	}
	h.rpc("tasks/cancel", map[string]any{"id": busy})
}

// TestLeftQueuedMessageGivesTurnBack: under DisconnectCancel a queued
// message dropped because its client left never ran, so it does not count
// toward Limits.MaxTurnsPerTask; the task takes another message in its
// place.
func TestLeftQueuedMessageGivesTurnBack(t *testing.T) {
	h := newHarness(t, withLimits(limitsWith(func(l *a2a.Limits) {
		l.MaxTurnsPerTask = 2
		l.KeepAlive = 10 * time.Millisecond // the server notices the client left at a write
	})), func(c *a2a.Config) { c.OnDisconnect = a2a.DisconnectCancel })
	h.fake.Enqueue(fakegemini.Hang())
	id := dig(h.sendNow(userMessage("hang", geminiSettings(h.ws), "")), "result", "id").(string)
	h.waitModelCalls(1)
	s := h.open("message/stream", userMessage("waits", nil, id))
	s.resp.Body.Close()
	waitHealth(t, h, func(m map[string]any) bool { return m["streams"] == float64(0) })
	if res := h.sendNow(userMessage("in its place", nil, id)); res["error"] != nil {
		t.Errorf("a message after the dropped one → %v", res)
	}
	// The limit still holds for messages that were accepted.
	if res := h.sendNow(userMessage("one too many", nil, id)); !strings.Contains(toJSON(res), "reached its limit of 2 messages") {
		t.Errorf("a third accepted message → %v", res)
	}
	h.rpc("tasks/cancel", map[string]any{"id": id})
}
