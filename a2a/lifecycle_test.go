package a2a_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/blobstore"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// guard bounds waits for events that must come; it is never a timing
// assertion, only a way to fail instead of hanging.
const guard = 20 * time.Second

func TestCancelDuringExecution(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Hang())
	s := h.open("message/stream", userMessage("think hard", geminiSettings(h.ws), ""))
	first := s.next()
	if first["kind"] != "task" {
		t.Fatalf("first event = %v", first)
	}
	if ev := s.next(); dig(ev, "status", "state") != "working" {
		t.Fatalf("second event = %v", ev)
	}
	h.waitModelCalls(1)
	res := h.rpc("tasks/cancel", map[string]any{"id": first["id"]})
	if st := dig(res, "result", "status", "state"); st != "canceled" {
		t.Fatalf("tasks/cancel → %v", res)
	}
	evs := s.rest()
	if len(evs) == 0 {
		t.Fatal("stream ended without a final event")
	}
	last := evs[len(evs)-1]
	if last["final"] != true || dig(last, "status", "state") != "canceled" {
		t.Errorf("last event = %v", last)
	}
	// A canceled task takes no more messages.
	res = h.rpc("message/send", userMessage("again", nil, first["id"].(string)))
	if dig(res, "error", "code") != float64(-32600) {
		t.Errorf("message to canceled task → %v", res)
	}
}

func TestCancelIdleTask(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(writeCall(filepath.Join(h.ws, "x"), "x"))
	evs := h.stream(userMessage("write", geminiSettings(h.ws), ""))
	res := h.rpc("tasks/cancel", map[string]any{"id": taskID(evs)})
	if st := dig(res, "result", "status", "state"); st != "canceled" {
		t.Fatalf("cancel → %v", res)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "x")); err == nil {
		t.Error("pending call ran")
	}
}

func TestResubscribe(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Hang())
	p := userMessage("long job", geminiSettings(h.ws), "")
	p["configuration"] = map[string]any{"blocking": false}
	res := h.rpc("message/send", p)
	id, _ := dig(res, "result", "id").(string)
	if id == "" {
		t.Fatalf("non-blocking send → %v", res)
	}
	h.waitModelCalls(1)
	s := h.open("tasks/resubscribe", map[string]any{"id": id})
	snap := s.next()
	if snap["kind"] != "task" || snap["id"] != id {
		t.Fatalf("resubscribe first event = %v", snap)
	}
	h.rpc("tasks/cancel", map[string]any{"id": id})
	evs := s.rest()
	if len(evs) == 0 || evs[len(evs)-1]["final"] != true {
		t.Fatalf("resubscribed stream did not end with a final event: %v", evs)
	}
	// Resubscribing to a finished task yields its snapshot and ends.
	s2 := h.open("tasks/resubscribe", map[string]any{"id": id})
	if ev := s2.next(); dig(ev, "status", "state") != "canceled" {
		t.Errorf("snapshot = %v", ev)
	}
	if ev := s2.next(); ev != nil {
		t.Errorf("extra event %v", ev)
	}
}

func TestStreamClientLeavesTurnContinues(t *testing.T) {
	h := newHarness(t)
	target := filepath.Join(h.ws, "later.txt")
	h.fake.Enqueue(fakegemini.Call("list_directory", map[string]any{"path": h.ws}), fakegemini.Text("listed"))
	s := h.open("message/stream", userMessage("list", geminiSettings(h.ws), ""))
	id := s.next()["id"].(string)
	s.resp.Body.Close()
	_ = target
	// The turn finishes without a reader; its result is in the task.
	deadline := time.Now().Add(guard)
	for time.Now().Before(deadline) {
		res := h.rpc("tasks/get", map[string]any{"id": id})
		if dig(res, "result", "status", "state") == "input-required" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("turn did not finish after its client left")
}

func TestHistoryLength(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Text("one"), fakegemini.Text("two"))
	id := taskID(h.stream(userMessage("first", geminiSettings(h.ws), "")))
	h.stream(userMessage("second", nil, id))
	for _, tt := range []struct {
		hl   any
		want int
	}{{nil, 4}, {0, 0}, {1, 1}, {3, 3}, {100, 4}} {
		params := map[string]any{"id": id}
		if tt.hl != nil {
			params["historyLength"] = tt.hl
		}
		res := h.rpc("tasks/get", params)
		if got := len(asSlice(dig(res, "result", "history"))); got != tt.want {
			t.Errorf("historyLength %v: %d messages, want %d", tt.hl, got, tt.want)
		}
	}
	res := h.rpc("tasks/get", map[string]any{"id": id, "historyLength": 1})
	if txt := dig(asSlice(dig(res, "result", "history"))[0], "parts"); !strings.Contains(toJSON(txt), "two") {
		t.Errorf("last message = %v", txt)
	}
	// message/send applies configuration.historyLength too.
	h.fake.Enqueue(fakegemini.Text("three"))
	p := userMessage("third", nil, id)
	p["configuration"] = map[string]any{"historyLength": 2}
	res = h.rpc("message/send", p)
	if got := len(asSlice(dig(res, "result", "history"))); got != 2 {
		t.Errorf("message/send historyLength 2 → %d", got)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// webhook is a push-notification receiver on loopback.
type webhook struct {
	srv   *httptest.Server
	got   chan pushed
	fails atomic.Int32
}

type pushed struct {
	token, auth string
	task        map[string]any
}

func newWebhook(t *testing.T, failFirst int32) *webhook {
	w := &webhook{got: make(chan pushed, 1000)}
	w.fails.Store(failFirst)
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if w.fails.Add(-1) >= 0 {
			rw.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		w.got <- pushed{token: r.Header.Get("X-A2A-Notification-Token"), auth: r.Header.Get("Authorization"), task: m}
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// waitState waits for a notification of the task in state.
func (w *webhook) waitState(t *testing.T, state string) pushed {
	t.Helper()
	timeout := time.After(guard)
	for {
		select {
		case p := <-w.got:
			if dig(p.task, "status", "state") == state {
				return p
			}
		case <-timeout:
			t.Fatalf("no push notification with state %s", state)
		}
	}
}

func TestPushNotifications(t *testing.T) {
	h := newHarness(t, withPrivatePush(), withLimits(limitsWith(func(l *a2a.Limits) { l.PushBackoff = time.Millisecond })))
	hook := newWebhook(t, 2) // two failures: retries with backoff
	h.fake.Enqueue(fakegemini.Text("done"))
	p := userMessage("hi", geminiSettings(h.ws), "")
	p["configuration"] = map[string]any{"pushNotificationConfig": map[string]any{"url": hook.srv.URL + "/hook", "token": "tok-1",
		"authentication": map[string]any{"schemes": []string{"Bearer"}, "credentials": "cred"}}}
	res := h.rpc("message/send", p)
	id := dig(res, "result", "id").(string)
	got := hook.waitState(t, "input-required")
	if got.token != "tok-1" || got.auth != "Bearer cred" {
		t.Errorf("headers: token %q auth %q", got.token, got.auth)
	}
	if got.task["id"] != id {
		t.Errorf("pushed task %v", got.task["id"])
	}
	// set / get / list / delete.
	set := h.rpc("tasks/pushNotificationConfig/set", map[string]any{"taskId": id, "pushNotificationConfig": map[string]any{"id": "second", "url": hook.srv.URL + "/2"}})
	if dig(set, "result", "pushNotificationConfig", "id") != "second" {
		t.Fatalf("set → %v", set)
	}
	list := h.rpc("tasks/pushNotificationConfig/list", map[string]any{"id": id})
	if n := len(asSlice(list["result"])); n != 2 {
		t.Fatalf("list → %v", list)
	}
	get := h.rpc("tasks/pushNotificationConfig/get", map[string]any{"id": id, "pushNotificationConfigId": "second"})
	if dig(get, "result", "pushNotificationConfig", "url") != hook.srv.URL+"/2" {
		t.Fatalf("get → %v", get)
	}
	del := h.rpc("tasks/pushNotificationConfig/delete", map[string]any{"id": id, "pushNotificationConfigId": "second"})
	if _, ok := del["result"]; !ok || del["error"] != nil {
		t.Fatalf("delete → %v", del)
	}
	if n := len(asSlice(h.rpc("tasks/pushNotificationConfig/list", map[string]any{"id": id})["result"])); n != 1 {
		t.Fatalf("after delete: %d configs", n)
	}
	// The one unnamed config answers to "default".
	if g := h.rpc("tasks/pushNotificationConfig/get", map[string]any{"id": id, "pushNotificationConfigId": "default"}); g["error"] != nil {
		t.Errorf("default config → %v", g)
	}
	// A cancel is pushed too.
	h.rpc("tasks/cancel", map[string]any{"id": id})
	hook.waitState(t, "canceled")
}

func TestAuth(t *testing.T) {
	h := newHarness(t, withToken("s3cret"))
	// The card is public and says how to authenticate.
	resp, err := http.Get(h.ts.URL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	var card map[string]any
	json.NewDecoder(resp.Body).Decode(&card)
	resp.Body.Close()
	if dig(card, "securitySchemes", "bearerAuth", "scheme") != "bearer" {
		t.Errorf("card security = %v", card["securitySchemes"])
	}
	for _, tt := range []struct {
		name, header string
		want         int
	}{
		{"none", "", 401},
		{"wrong token", "Bearer nope", 401},
		{"basic", "Basic YWRtaW46cGFzc3dvcmQ=", 401},
		{"prefix of token", "Bearer s3cre", 401},
		{"right token", "Bearer s3cret", 200},
		{"scheme case", "bearer s3cret", 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, path := range []string{"/", "/health"} {
				method := http.MethodPost
				if path == "/health" {
					method = http.MethodGet
				}
				req, _ := http.NewRequest(method, h.ts.URL+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`))
				req.Header.Set("Content-Type", "application/json")
				if tt.header != "" {
					req.Header.Set("Authorization", tt.header)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tt.want {
					t.Errorf("%s %s: HTTP %d, want %d", method, path, resp.StatusCode, tt.want)
				}
				if tt.want == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("no WWW-Authenticate")
				}
			}
		})
	}
}

func TestCheckListenAddr(t *testing.T) {
	for _, tt := range []struct {
		host, token string
		ok          bool
	}{
		{"127.0.0.1", "", true},
		{"localhost", "", true},
		{"::1", "", true},
		{"[::1]", "", true},
		{"0.0.0.0", "", false},
		{"192.168.1.10", "", false},
		{"example.com", "", false},
		{"0.0.0.0", "t", true},
	} {
		if err := a2a.CheckListenAddr(tt.host, tt.token); (err == nil) != tt.ok {
			t.Errorf("CheckListenAddr(%q, %q) = %v", tt.host, tt.token, err)
		}
	}
}

func TestAgentCard(t *testing.T) {
	h := newHarness(t)
	resp := h.get("/.well-known/agent-card.json")
	var card map[string]any
	json.NewDecoder(resp.Body).Decode(&card)
	resp.Body.Close()
	for k, want := range map[string]any{
		"protocolVersion":    "0.3.0",
		"preferredTransport": "JSONRPC",
		"url":                h.ts.URL + "/",
	} {
		if card[k] != want {
			t.Errorf("%s = %v, want %v", k, card[k], want)
		}
	}
	if dig(card, "capabilities", "streaming") != true || dig(card, "capabilities", "pushNotifications") != true {
		t.Errorf("capabilities = %v", card["capabilities"])
	}
	ext := asSlice(dig(card, "capabilities", "extensions"))
	if len(ext) != 1 || dig(ext[0], "uri") != a2a.ExtensionURI {
		t.Errorf("extensions = %v", ext)
	}
	if card["securitySchemes"] != nil {
		t.Errorf("securitySchemes without auth: %v", card["securitySchemes"])
	}
}

// openFileStore opens the one disk store, the blob store's file://, on dir
// (a new one each time: a restarted process has no memory of the old).
func openFileStore(t testing.TB, dir string) *blobstore.Store {
	t.Helper()
	u, err := blobstore.FileURL(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := blobstore.Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestPersistenceAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	fs := openFileStore(t, dir)
	h := newHarness(t, withStore(fs))
	h.fake.Enqueue(fakegemini.Text("The capital is Paris."))
	id := taskID(h.stream(userMessage("What is the capital of France?", geminiSettings(h.ws), "")))
	h.stop()
	for _, f := range []string{"metadata.json", "history.json", "state.json", "conversation.json"} {
		if _, err := os.Stat(filepath.Join(dir, "tasks", id, f)); err != nil {
			t.Errorf("store lacks %s: %v", f, err)
		}
	}
	var meta map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "tasks", id, "metadata.json"))
	json.Unmarshal(b, &meta)
	if dig(meta, "__persistedState", "_taskState") != "input-required" || meta["_contextId"] == nil {
		t.Errorf("metadata.json = %s", b)
	}
	// A new process over the same store.
	fs2 := openFileStore(t, dir)
	h.start(withStore(fs2))
	res := h.rpc("tasks/get", map[string]any{"id": id})
	if n := len(asSlice(dig(res, "result", "history"))); n != 2 {
		t.Errorf("restored history has %d messages: %v", n, res)
	}
	h.fake.Enqueue(fakegemini.Text("About 2 million."))
	evs := h.stream(userMessage("And its population?", nil, id))
	assertUniqueFinalIsLast(t, evs)
	body := string(h.fake.LastRequest().Body)
	for _, want := range []string{"What is the capital of France?", "The capital is Paris.", "And its population?"} {
		if !strings.Contains(body, want) {
			t.Errorf("the continued conversation lacks %q", want)
		}
	}
}

// TestRestartWithPendingConfirmation: a confirmation pending when the
// server stops survives a new process over the same store: tasks/get shows
// it, the client's approval runs the call and the turn goes on, and the
// history holds everything the client saw.
func TestRestartWithPendingConfirmation(t *testing.T) {
	for _, outcome := range []string{"proceed_once", "cancel"} {
		t.Run(outcome, func(t *testing.T) {
			dir := t.TempDir()
			h := newHarness(t, withStore(openFileStore(t, dir)))
			path := filepath.Join(h.ws, "p.txt")
			h.fake.Enqueue(writeCall(path, "x"))
			evs := h.stream(userMessage("write", geminiSettings(h.ws), ""))
			id, call := taskID(evs), toolCallID(evs)
			h.stop()
			if _, err := os.Stat(filepath.Join(dir, "tasks", id, "pending.json")); err != nil {
				t.Errorf("no pending.json: %v", err)
			}
			h.start(withStore(openFileStore(t, dir)))
			checkPendingShown(t, h.rpc("tasks/get", map[string]any{"id": id}), call)

			h.fake.Enqueue(fakegemini.Text("Done."))
			evs2 := h.stream(userMessage("", nil, id, map[string]any{"kind": "data", "data": map[string]any{"callId": call, "outcome": outcome}}))
			assertUniqueFinalIsLast(t, evs2)
			_, err := os.Stat(path)
			if outcome == "proceed_once" {
				if err != nil {
					t.Errorf("approved after the restart, the file was not written: %v", err)
				}
				if got := summary(evs2); !strings.Contains(got, "Done.") {
					t.Errorf("the turn did not go on:\n%s", got)
				}
				body := string(h.fake.LastRequest().Body)
				if !strings.Contains(body, "Successfully created and wrote") {
					t.Errorf("the model did not get the call's result")
				}
			} else if err == nil {
				t.Errorf("cancelled after the restart, the file was written")
			}
			res := h.rpc("tasks/get", map[string]any{"id": id})
			if m := dig(res, "result", "status", "message"); m != nil && strings.Contains(fmt.Sprint(m), "awaiting_approval") {
				t.Errorf("the answered call is still shown pending: %v", m)
			}
			hist := fmt.Sprint(dig(res, "result", "history"))
			want := []string{"write"}
			if outcome == "proceed_once" {
				want = append(want, "Done.")
			}
			for _, w := range want {
				if !strings.Contains(hist, w) {
					t.Errorf("history lacks %q: %s", w, hist)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "tasks", id, "pending.json")); !os.IsNotExist(err) {
				t.Errorf("pending.json outlived the answer: %v", err)
			}
		})
	}
}

// checkPendingShown checks that a tasks/get result shows the task waiting
// for the confirmation of call.
func checkPendingShown(t *testing.T, res map[string]any, call string) {
	t.Helper()
	if st := dig(res, "result", "status", "state"); st != "input-required" {
		t.Errorf("state %v, want input-required", st)
	}
	parts := asSlice(dig(res, "result", "status", "message", "parts"))
	if len(parts) != 1 || dig(parts[0], "data", "request", "callId") != call || dig(parts[0], "data", "status") != "awaiting_approval" || dig(parts[0], "data", "confirmationDetails") == nil {
		t.Errorf("status message does not show the pending call %s: %v", call, dig(res, "result", "status"))
	}
}

// TestInterruptedTurnKeepsUserMessage: the message of a turn that dies
// with the process stays in the task's history.
func TestInterruptedTurnKeepsUserMessage(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, withStore(openFileStore(t, dir)))
	h.fake.Enqueue(fakegemini.Text("first"))
	id := taskID(h.stream(userMessage("one", geminiSettings(h.ws), "")))
	h.fake.Enqueue(fakegemini.Hang())
	s := h.open("message/stream", userMessage("second question", nil, id))
	s.next()
	h.waitModelCalls(2)
	// What a kill -9 leaves: the store as it is now, read by a new process.
	st, err := openFileStore(t, dir).Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(st.History); !strings.Contains(got, "second question") {
		t.Errorf("stored history lacks the running turn's message: %s", got)
	}
}

func TestShutdownEndsStreams(t *testing.T) {
	h := newHarness(t, withStore(a2a.NewMemoryStore()))
	h.fake.Enqueue(fakegemini.Hang())
	s := h.open("message/stream", userMessage("wait", geminiSettings(h.ws), ""))
	id := s.next()["id"].(string)
	s.next() // working
	h.waitModelCalls(1)
	done := make(chan struct{})
	go func() {
		evs := s.rest()
		last := evs[len(evs)-1]
		if last["final"] != true || dig(last, "status", "state") != "input-required" {
			t.Errorf("last event = %v", last)
		}
		close(done)
	}()
	h.stop()
	select {
	case <-done:
	case <-time.After(guard):
		t.Fatal("stream not closed by shutdown")
	}
	st, err := h.store.Load(t.Context(), id)
	if err != nil || st.State != a2a.StateInputRequired {
		t.Fatalf("stored task = %+v, %v", st, err)
	}
}

func TestConcurrentTurnLimit(t *testing.T) {
	// Without a queue, a turn past the limit fails as busy.
	h := newHarness(t, withLimits(limitsWith(func(l *a2a.Limits) { l.MaxConcurrentTurns = 1; l.MaxQueuedTurns = -1 })))
	h.fake.Enqueue(fakegemini.Hang())
	p := userMessage("hang", geminiSettings(h.ws), "")
	p["configuration"] = map[string]any{"blocking": false}
	first := h.rpc("message/send", p)
	h.waitModelCalls(1)
	res := h.rpc("message/send", userMessage("another", geminiSettings(h.ws), ""))
	if dig(res, "error", "code") != float64(-32603) || dig(res, "error", "data", "busy") != true {
		t.Errorf("second turn → %v", res)
	}
	h.rpc("tasks/cancel", map[string]any{"id": dig(first, "result", "id")})
	h.fake.Enqueue(fakegemini.Text("now"))
	if res := h.rpc("message/send", userMessage("again", geminiSettings(h.ws), "")); res["error"] != nil {
		t.Errorf("after the first ended → %v", res)
	}
}

// TestTurnQueue: past the concurrency limit turns wait their turn, and
// past the queue's bound they fail as busy.
func TestTurnQueue(t *testing.T) {
	h := newHarness(t, withLimits(limitsWith(func(l *a2a.Limits) { l.MaxConcurrentTurns = 1; l.MaxQueuedTurns = 1 })))
	h.fake.Enqueue(fakegemini.Hang())
	p := userMessage("hang", geminiSettings(h.ws), "")
	p["configuration"] = map[string]any{"blocking": false}
	first := h.rpc("message/send", p)
	h.waitModelCalls(1)
	h.fake.Enqueue(fakegemini.Text("waited"))
	queued := make(chan []map[string]any, 1)
	go func() { queued <- h.stream(userMessage("queued", geminiSettings(h.ws), "")) }()
	// The queue holds one: a third turn is refused once the second waits.
	for deadline := time.Now().Add(guard); ; time.Sleep(5 * time.Millisecond) {
		resp := h.get("/health")
		var health map[string]any
		json.NewDecoder(resp.Body).Decode(&health)
		resp.Body.Close()
		if health["queuedTurns"] == float64(1) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second turn never queued: %v", health)
		}
	}
	res := h.rpc("message/send", userMessage("third", geminiSettings(h.ws), ""))
	if dig(res, "error", "data", "busy") != true {
		t.Errorf("third turn → %v", res)
	}
	h.rpc("tasks/cancel", map[string]any{"id": dig(first, "result", "id")})
	select {
	case evs := <-queued:
		assertUniqueFinalIsLast(t, evs)
		if !strings.Contains(summary(evs), "waited") {
			t.Errorf("queued turn:\n%s", summary(evs))
		}
	case <-time.After(guard):
		t.Fatal("the queued turn never ran")
	}
}

func TestTurnsPerTaskLimit(t *testing.T) {
	h := newHarness(t, withLimits(limitsWith(func(l *a2a.Limits) { l.MaxTurnsPerTask = 1 })))
	h.fake.Enqueue(fakegemini.Text("one"))
	id := taskID(h.stream(userMessage("one", geminiSettings(h.ws), "")))
	res := h.rpc("message/send", userMessage("two", nil, id))
	if dig(res, "error", "code") != float64(-32600) {
		t.Errorf("second message → %v", res)
	}
}

func TestParallelTasks(t *testing.T) {
	h := newHarness(t)
	const n = 8
	for i := 0; i < n; i++ {
		h.fake.Enqueue(fakegemini.Text("answer"))
	}
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		go func() {
			resp := h.post("/", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": userMessage("q", geminiSettings(h.ws), "")})
			defer resp.Body.Close()
			evs, err := parseSSE(resp.Body)
			if err != nil || len(evs) != 4 {
				errs <- "bad stream"
				return
			}
			errs <- ""
		}()
	}
	for i := 0; i < n; i++ {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

// TestShutdownCutsHangingWebhook: a webhook that never answers does not
// hold Shutdown for its timeouts and retries (a stopping server waited
// the whole 30 seconds the CLI gives it).
func TestShutdownCutsHangingWebhook(t *testing.T) {
	h := newHarness(t, withPrivatePush(), withLimits(limitsWith(func(l *a2a.Limits) { l.PushTimeout = time.Hour })))
	called := make(chan struct{}, 16)
	release := make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		called <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hook.Close()
	defer close(release)
	h.fake.Enqueue(fakegemini.Text("done"))
	p := userMessage("hi", geminiSettings(h.ws), "")
	p["configuration"] = map[string]any{"pushNotificationConfig": map[string]any{"url": hook.URL + "/hook"}}
	if res := h.rpc("message/send", p); res["error"] != nil {
		t.Fatal(res)
	}
	<-called
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := h.srv.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown waited for the webhook: %v", err)
	}
}

// TestStreamWaitingForItsTurnStarts: a message/stream whose turn waits
// for the task's previous turn answers at once with keep-alives instead
// of no headers at all (Node's fetch gives up after five minutes without
// them, and the waiting turn is then dropped), and reports the turn's
// fate on the stream.
func TestStreamWaitingForItsTurnStarts(t *testing.T) {
	h := newHarness(t, withLimits(limitsWith(func(l *a2a.Limits) { l.KeepAlive = 10 * time.Millisecond })))
	h.fake.Enqueue(fakegemini.Hang())
	p := userMessage("hang", geminiSettings(h.ws), "")
	p["configuration"] = map[string]any{"blocking": false}
	id := dig(h.rpc("message/send", p), "result", "id").(string)
	h.waitModelCalls(1)
	got := make(chan *http.Response, 1)
	go func() {
		got <- h.post("/", map[string]any{"jsonrpc": "2.0", "id": 7, "method": "message/stream", "params": userMessage("next", nil, id)})
	}()
	var resp *http.Response
	select {
	case resp = <-got:
	case <-time.After(guard):
		h.rpc("tasks/cancel", map[string]any{"id": id})
		t.Fatal("no answer while the turn waits for the previous one")
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	h.rpc("tasks/cancel", map[string]any{"id": id})
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), ": keep-alive") || !strings.Contains(string(b), "event: error") || !strings.Contains(string(b), "terminal state") {
		t.Errorf("stream: %s", b)
	}
}
