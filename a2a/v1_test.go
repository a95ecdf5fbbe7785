package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// A2A 1.0 beside 0.3: the same server, tasks and store answer a2a-go's
// own 1.0 client over JSON-RPC and over the HTTP+JSON binding.

func v1Client(t *testing.T, h *harness, binding v1.TransportProtocol) *a2aclient.Client {
	t.Helper()
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), h.ts.URL)
	if err != nil {
		t.Fatalf("resolving the card: %v", err)
	}
	var iface *v1.AgentInterface
	for _, i := range card.SupportedInterfaces {
		if i.ProtocolBinding == binding && i.ProtocolVersion == "1.0" {
			iface = i
		}
	}
	if iface == nil {
		t.Fatalf("the card has no 1.0 %s interface: %+v", binding, card.SupportedInterfaces)
	}
	c, err := a2aclient.NewFromEndpoints(t.Context(), []*v1.AgentInterface{iface})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func v1Text(text, taskID string, meta map[string]any, parts ...*v1.Part) *v1.SendMessageRequest {
	m := v1.NewMessage(v1.MessageRoleUser, append([]*v1.Part{v1.NewTextPart(text)}, parts...)...)
	if text == "" {
		m.Parts = parts
	}
	m.TaskID = v1.TaskID(taskID)
	m.Metadata = meta
	return &v1.SendMessageRequest{Message: m}
}

func collect(t *testing.T, seq iter.Seq2[v1.Event, error]) []v1.Event {
	t.Helper()
	var out []v1.Event
	for ev, err := range seq {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		out = append(out, ev)
	}
	return out
}

func lastState(evs []v1.Event) v1.TaskState {
	for i := len(evs) - 1; i >= 0; i-- {
		switch ev := evs[i].(type) {
		case *v1.TaskStatusUpdateEvent:
			return ev.Status.State
		case *v1.Task:
			return ev.Status.State
		}
	}
	return ""
}

// v1Targets are the targets × the 1.0 bindings.
func v1Targets() []struct {
	target  string
	binding v1.TransportProtocol
} {
	var out []struct {
		target  string
		binding v1.TransportProtocol
	}
	for _, target := range targets {
		for _, b := range []v1.TransportProtocol{v1.TransportProtocolJSONRPC, v1.TransportProtocolHTTPJSON} {
			out = append(out, struct {
				target  string
				binding v1.TransportProtocol
			}{target, b})
		}
	}
	return out
}

func TestV1Methods(t *testing.T) {
	for _, tt := range v1Targets() {
		target, binding := tt.target, tt.binding
		t.Run(target+"/"+string(binding), func(t *testing.T) {
			h := newTarget(t, target, withPrivatePush())
			h.fake.Enqueue(fakegemini.Text("Hello there"), fakegemini.Text("Again"))
			c := v1Client(t, h, binding)
			ctx := t.Context()

			res, err := c.SendMessage(ctx, v1Text("hi", "", geminiSettings(h.ws)))
			if err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
			task, ok := res.(*v1.Task)
			if !ok || task.Status.State != v1.TaskStateInputRequired {
				t.Fatalf("SendMessage = %#v, want an input-required task", res)
			}
			if len(task.History) != 2 || task.History[1].Parts[0].Text() != "Hello there" {
				t.Errorf("history = %+v", task.History)
			}

			got, err := c.GetTask(ctx, &v1.GetTaskRequest{ID: task.ID, HistoryLength: new(1)})
			if err != nil || got.ID != task.ID || len(got.History) != 1 {
				t.Fatalf("GetTask = %+v, %v", got, err)
			}
			if _, err := c.GetTask(ctx, &v1.GetTaskRequest{ID: "no-such-task"}); err == nil || !strings.Contains(err.Error(), "no-such-task") {
				t.Errorf("GetTask(unknown) err = %v", err)
			}

			evs := collect(t, c.SendStreamingMessage(ctx, v1Text("more", string(task.ID), nil)))
			if lastState(evs) != v1.TaskStateInputRequired {
				t.Errorf("stream ends in %s", lastState(evs))
			}
			sawText := false
			for _, ev := range evs {
				if su, ok := ev.(*v1.TaskStatusUpdateEvent); ok && dig(su.Metadata, "coderAgent", "kind") == "text-content" {
					sawText = su.Status.Message.Parts[0].Text() == "Again"
				}
			}
			if !sawText {
				t.Errorf("no text-content event with coderAgent metadata in %d events", len(evs))
			}

			list, err := c.ListTasks(ctx, &v1.ListTasksRequest{ContextID: task.ContextID})
			if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID {
				t.Fatalf("ListTasks = %+v, %v", list, err)
			}
			if list, _ := c.ListTasks(ctx, &v1.ListTasksRequest{Status: v1.TaskStateCompleted}); len(list.Tasks) != 0 {
				t.Errorf("ListTasks(completed) = %d tasks", len(list.Tasks))
			}

			pc, err := c.CreateTaskPushConfig(ctx, &v1.PushConfig{TaskID: task.ID, ID: "p1", URL: "http://127.0.0.1:9/hook", Token: "tok"})
			if err != nil || pc.ID != "p1" || pc.Token != "tok" {
				t.Fatalf("CreateTaskPushConfig = %+v, %v", pc, err)
			}
			if pc, err := c.GetTaskPushConfig(ctx, &v1.GetTaskPushConfigRequest{TaskID: task.ID, ID: "p1"}); err != nil || pc.URL != "http://127.0.0.1:9/hook" {
				t.Errorf("GetTaskPushConfig = %+v, %v", pc, err)
			}
			if cfgs, err := c.ListTaskPushConfigs(ctx, &v1.ListTaskPushConfigRequest{TaskID: task.ID}); err != nil || len(cfgs) != 1 {
				t.Errorf("ListTaskPushConfigs = %+v, %v", cfgs, err)
			}
			if err := c.DeleteTaskPushConfig(ctx, &v1.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "p1"}); err != nil {
				t.Errorf("DeleteTaskPushConfig: %v", err)
			}
			if cfgs, _ := c.ListTaskPushConfigs(ctx, &v1.ListTaskPushConfigRequest{TaskID: task.ID}); len(cfgs) != 0 {
				t.Errorf("configs after delete = %+v", cfgs)
			}

			canceled, err := c.CancelTask(ctx, &v1.CancelTaskRequest{ID: task.ID})
			if err != nil || canceled.Status.State != v1.TaskStateCanceled {
				t.Fatalf("CancelTask = %+v, %v", canceled, err)
			}
			if _, err := c.CancelTask(ctx, &v1.CancelTaskRequest{ID: task.ID}); err == nil {
				t.Error("cancelling a canceled task succeeded")
			}
			for _, err := range c.SubscribeToTask(ctx, &v1.SubscribeToTaskRequest{ID: task.ID}) {
				if !errors.Is(err, v1.ErrUnsupportedOperation) {
					t.Errorf("SubscribeToTask on an ended task: %v, want UnsupportedOperation", err)
				}
				break
			}
			if _, err := c.SendMessage(ctx, v1Text("more", string(task.ID), nil)); !errors.Is(err, v1.ErrUnsupportedOperation) {
				t.Errorf("SendMessage to an ended task: %v, want UnsupportedOperation", err)
			}
			if _, err := c.ListTasks(ctx, &v1.ListTasksRequest{PageSize: 101}); !errors.Is(err, v1.ErrInvalidParams) {
				t.Errorf("ListTasks(pageSize 101) err = %v", err)
			}
		})
	}
}

// rawV1 posts a JSON-RPC request with the given headers and returns the
// response and its body.
func rawV1(t *testing.T, h *harness, method string, params any, headers ...string) (*http.Response, string) {
	t.Helper()
	resp := h.post("/", map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params}, headers...)
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp, b.String()
}

func TestV1Wire(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Text("Hi"))
	msg := map[string]any{"message": map[string]any{"role": "ROLE_USER", "messageId": "m1", "parts": []any{map[string]any{"text": "hello"}},
		"metadata": geminiSettings(h.ws)}}
	for _, tt := range []struct {
		name, method string
		params       any
		headers      []string
		// want are substrings of the body, in order.
		want []string
		// contentType is the answer's media type ("" skips the check).
		contentType string
	}{
		{"stream wrappers and states", "SendStreamingMessage", msg, nil,
			[]string{`"task":{`, `"TASK_STATE_SUBMITTED"`, `"statusUpdate":{`, `"TASK_STATE_WORKING"`, `"coderAgent":{"kind":"text-content"}`, `"TASK_STATE_INPUT_REQUIRED"`}, "text/event-stream"},
		{"unsupported version", "GetTask", map[string]any{"id": "x"}, []string{"A2A-Version", "2.0"},
			[]string{`"code":-32009`}, ""},
		{"0.3 method over 1.0", "tasks/get", map[string]any{"id": "x"}, []string{"A2A-Version", "1.0"},
			[]string{`"code":-32601`}, ""},
		{"1.0 method without header", "GetTask", map[string]any{"id": "nope"}, nil,
			[]string{`"code":-32001`, `nope`}, "application/json"},
		{"a2a+json media type", "GetTask", map[string]any{"id": "nope"}, []string{"Content-Type", "application/a2a+json", "A2A-Version", "1.0"},
			[]string{`"code":-32001`}, "application/a2a+json"},
		{"0.3 method name with 0.3 header", "tasks/get", map[string]any{"id": "nope"}, []string{"A2A-Version", "0.3"},
			[]string{`"code":-32001`, `Task not found: nope`}, "application/json"},
		{"1.0 request as text/plain", "GetTask", map[string]any{"id": "nope"}, []string{"Content-Type", "text/plain", "A2A-Version", "1.0"},
			[]string{`"code":-32005`}, ""},
		{"0.3 request as text/plain", "tasks/get", map[string]any{"id": "nope"}, []string{"Content-Type", "text/plain"},
			[]string{`"code":-32005`, `text/plain`}, ""},
		// a2av0's conversion panicked here: an internal error, id null.
		{"null part", "SendMessage", map[string]any{"message": map[string]any{"role": "ROLE_USER", "messageId": "m2", "parts": []any{map[string]any{"text": "a"}, nil}}}, nil,
			[]string{`"id":7`, `"code":-32602`, `part 1 is null`}, "application/json"},
		{"ListTasks page size 0", "ListTasks", map[string]any{"pageSize": 0}, nil, []string{`"code":-32602`}, ""},
		{"ListTasks bad timestamp", "ListTasks", map[string]any{"statusTimestampAfter": "-1"}, nil, []string{`"code":-32602`}, ""},
		{"ListTasks bad status", "ListTasks", map[string]any{"status": "TASK_STATE_BORED"}, nil, []string{`"code":-32602`}, ""},
		{"ListTasks", "ListTasks", map[string]any{"pageSize": 10}, nil, []string{`"tasks":[`, `"pageSize":10`}, "application/json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawV1(t, h, tt.method, tt.params, tt.headers...)
			rest := body
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%q missing (in order) from:\n%s", w, body)
				}
				rest = rest[i+len(w):]
			}
			if ct := resp.Header.Get("Content-Type"); tt.contentType != "" && !strings.HasPrefix(ct, tt.contentType) {
				t.Errorf("Content-Type = %q, want %s", ct, tt.contentType)
			}
		})
	}
}

// TestV1MediaType: a 1.0 request in another media type is refused as
// such (-32005) before its body is read as JSON, as the 1.0 TCK sends it.
func TestV1MediaType(t *testing.T) {
	h := newHarness(t)
	resp := h.post("/", "{'jsonrpc': '2.0', 'method': 'SendMessage'}", "Content-Type", "text/plain", "A2A-Version", "1.0")
	defer resp.Body.Close()
	var body struct {
		Error struct{ Code int } `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Error.Code != a2a.CodeContentTypeNotSupported {
		t.Fatalf("error = %+v, %v; want code %d", body.Error, err, a2a.CodeContentTypeNotSupported)
	}
}

// TestOneTaskTwoVersions: a task created over one version is read and
// continued over the other.
func TestOneTaskTwoVersions(t *testing.T) {
	h := newHarness(t)
	c := v1Client(t, h, v1.TransportProtocolJSONRPC)
	ctx := t.Context()

	t.Run("0.3 then 1.0", func(t *testing.T) {
		h.fake.Enqueue(fakegemini.Text("first"), fakegemini.Text("second"))
		evs := h.stream(userMessage("one", geminiSettings(h.ws), ""))
		id := taskID(evs)
		task, err := c.GetTask(ctx, &v1.GetTaskRequest{ID: v1.TaskID(id)})
		if err != nil || task.Status.State != v1.TaskStateInputRequired || len(task.History) != 2 {
			t.Fatalf("GetTask = %+v, %v", task, err)
		}
		res, err := c.SendMessage(ctx, v1Text("two", id, nil))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.(*v1.Task); len(got.History) != 4 || got.History[3].Parts[0].Text() != "second" {
			t.Errorf("history after the 1.0 turn = %+v", got.History)
		}
	})
	t.Run("1.0 then 0.3", func(t *testing.T) {
		h.fake.Enqueue(fakegemini.Text("third"), fakegemini.Text("fourth"))
		evs := collect(t, c.SendStreamingMessage(ctx, v1Text("three", "", geminiSettings(h.ws))))
		id := string(evs[0].(*v1.Task).ID)
		got := h.rpc("tasks/get", map[string]any{"id": id})
		if dig(got, "result", "status", "state") != "input-required" || len(asSlice(dig(got, "result", "history"))) != 2 {
			t.Fatalf("tasks/get = %v", got)
		}
		evs2 := h.stream(userMessage("four", nil, id))
		assertUniqueFinalIsLast(t, evs2)
		if !strings.Contains(summary(evs2), `text="fourth"`) {
			t.Errorf("0.3 continuation:\n%s", summary(evs2))
		}
	})
}

// TestV1Confirmation: a tool confirmation asked and answered over 1.0,
// in the development-tool extension's format and in Gemini CLI's.
func TestV1Confirmation(t *testing.T) {
	for _, tt := range []struct {
		target, name string
		ext          bool
	}{{"one", "extension", true}, {"one", "coderAgent", false}, {"replicas", "extension", true}, {"replicas", "coderAgent", false}} {
		t.Run(tt.target+"/"+tt.name, func(t *testing.T) {
			h := newTarget(t, tt.target)
			target := filepath.Join(h.ws, "hello.txt")
			h.fake.Enqueue(writeCall(target, "hi\n"), fakegemini.Text("written"))
			c := v1Client(t, h, v1.TransportProtocolJSONRPC)
			ctx := t.Context()
			if tt.ext {
				ctx = a2aclientExt(t)
			}
			meta := geminiSettings(h.ws)
			if tt.ext {
				meta = map[string]any{a2a.ExtensionURI: map[string]any{"workspace_path": h.ws}}
			}
			evs := collect(t, c.SendStreamingMessage(ctx, v1Text("write it", "", meta)))
			if lastState(evs) != v1.TaskStateInputRequired {
				t.Fatalf("first turn ends in %s", lastState(evs))
			}
			var callID string
			for _, ev := range evs {
				su, ok := ev.(*v1.TaskStatusUpdateEvent)
				if !ok || su.Status.Message == nil {
					continue
				}
				d, _ := su.Status.Message.Parts[0].Data().(map[string]any)
				if tt.ext && dig(su.Metadata, a2a.ExtensionURI, "kind") == "TOOL_CALL_UPDATE" && d["confirmation_request"] != nil {
					callID, _ = d["tool_call_id"].(string)
				}
				if !tt.ext && dig(su.Metadata, "coderAgent", "kind") == "tool-call-confirmation" {
					callID, _ = dig(d, "request", "callId").(string)
				}
			}
			if callID == "" {
				t.Fatalf("no confirmation among %d events", len(evs))
			}
			answer := map[string]any{"callId": callID, "outcome": "proceed_once"}
			if tt.ext {
				answer = map[string]any{"tool_call_id": callID, "selected_option_id": "proceed_once"}
			}
			id := string(evs[0].(*v1.Task).ID)
			evs2 := collect(t, c.SendStreamingMessage(ctx, v1Text("", id, nil, v1.NewDataPart(answer))))
			if lastState(evs2) != v1.TaskStateInputRequired {
				t.Errorf("second turn ends in %s", lastState(evs2))
			}
			if b, err := os.ReadFile(target); err != nil || string(b) != "hi\n" {
				t.Errorf("file = %q, %v", b, err)
			}
		})
	}
}

// TestV1REST drives the HTTP+JSON binding by hand: its paths live under
// /a2a, away from Gemini CLI's own /tasks routes.
func TestV1REST(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Text("rest reply"))
	resp := h.post("/a2a/message:send", map[string]any{"message": map[string]any{"role": "ROLE_USER", "messageId": "r1", "parts": []any{map[string]any{"text": "hello"}}}},
		"A2A-Version", "1.0", "Content-Type", "application/a2a+json")
	defer resp.Body.Close()
	var sent map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&sent); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("message:send = %d, %v", resp.StatusCode, err)
	}
	id, _ := dig(sent, "task", "id").(string)
	if id == "" || dig(sent, "task", "status", "state") != "TASK_STATE_INPUT_REQUIRED" {
		t.Fatalf("message:send = %v", sent)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/a2a+json" {
		t.Errorf("Content-Type = %q", ct)
	}
	get := h.get("/a2a/tasks/" + id)
	defer get.Body.Close()
	var task map[string]any
	if err := json.NewDecoder(get.Body).Decode(&task); err != nil || task["id"] != id {
		t.Fatalf("GET /a2a/tasks/%s = %v, %v", id, task, err)
	}
	// A subscription to an ended task is refused at once, not in a stream.
	h.rpc("tasks/cancel", map[string]any{"id": id})
	sub := h.post("/a2a/tasks/"+id+":subscribe", "", "A2A-Version", "1.0")
	sub.Body.Close()
	if sub.StatusCode != http.StatusBadRequest || !strings.HasPrefix(sub.Header.Get("Content-Type"), "application/json") {
		t.Errorf("subscribe to an ended task: %d %s", sub.StatusCode, sub.Header.Get("Content-Type"))
	}
	// Gemini CLI's own route still answers in its shape.
	legacy := h.get("/tasks/" + id)
	defer legacy.Body.Close()
	var row map[string]any
	if err := json.NewDecoder(legacy.Body).Decode(&row); err != nil || row["state"] != "canceled" {
		t.Errorf("GET /tasks/%s = %v, %v", id, row, err)
	}
}

// TestV1Auth: the bearer token guards the 1.0 routes too, and a 1.0
// client reads the card that says so.
func TestV1Auth(t *testing.T) {
	h := newHarness(t, withToken("s3cret"))
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), h.ts.URL)
	if err != nil {
		t.Fatalf("a2a-go cannot read the card: %v", err)
	}
	if s, ok := card.SecuritySchemes["bearerAuth"].(v1.HTTPAuthSecurityScheme); !ok || s.Scheme != "bearer" || len(card.SecurityRequirements) != 1 {
		t.Errorf("card security = %+v, %+v", card.SecuritySchemes, card.SecurityRequirements)
	}
	h.token = ""
	for _, path := range []string{"/", "/a2a/message:send"} {
		resp := h.post(path, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": map[string]any{"id": "x"}}, "A2A-Version", "1.0")
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("POST %s without token: %d", path, resp.StatusCode)
		}
	}
}

// TestV1SubscribeRunning: a 1.0 client subscribes to a turn a 0.3
// client started, sees the task and then the turn's end when a 1.0
// CancelTask stops it.
func TestV1SubscribeRunning(t *testing.T) {
	for _, target := range targets {
		t.Run(target, func(t *testing.T) { v1SubscribeRunning(t, target) })
	}
}

func v1SubscribeRunning(t *testing.T, target string) {
	h := newTarget(t, target)
	h.fake.Enqueue(fakegemini.Hang())
	s := h.open("message/stream", userMessage("think hard", geminiSettings(h.ws), ""))
	first := s.next()
	h.waitModelCalls(1)
	c := v1Client(t, h, v1.TransportProtocolJSONRPC)
	id := v1.TaskID(first["id"].(string))
	var evs []v1.Event
	done := make(chan struct{})
	got := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(done)
		defer once.Do(func() { close(got) })
		for ev, err := range c.SubscribeToTask(t.Context(), &v1.SubscribeToTaskRequest{ID: id}) {
			if err != nil {
				t.Errorf("SubscribeToTask: %v", err)
				return
			}
			evs = append(evs, ev)
			once.Do(func() { close(got) })
		}
	}()
	<-got
	if _, err := c.CancelTask(t.Context(), &v1.CancelTaskRequest{ID: id}); err != nil {
		t.Fatal(err)
	}
	<-done
	s.rest()
	if len(evs) < 2 {
		t.Fatalf("events = %+v", evs)
	}
	if task, ok := evs[0].(*v1.Task); !ok || task.Status.State != v1.TaskStateWorking {
		t.Errorf("first event = %+v", evs[0])
	}
	if lastState(evs) != v1.TaskStateCanceled {
		t.Errorf("subscription ends in %s", lastState(evs))
	}
}

// TestV1Push: a webhook set by a 1.0 client receives 1.0's body (the
// task in a StreamResponse) and token header; one set over 0.3 on the
// same task keeps 0.3's.
func TestV1Push(t *testing.T) {
	for _, target := range targets {
		t.Run(target, func(t *testing.T) { v1PushOn(t, target) })
	}
}

func v1PushOn(t *testing.T, target string) {
	h := newTarget(t, target, withPrivatePush())
	h.fake.Enqueue(fakegemini.Text("one"), fakegemini.Text("two"))
	c := v1Client(t, h, v1.TransportProtocolJSONRPC)
	res, err := c.SendMessage(t.Context(), v1Text("hi", "", geminiSettings(h.ws)))
	if err != nil {
		t.Fatal(err)
	}
	id := res.(*v1.Task).ID
	hook1 := make(chan *http.Request, 10)
	bodies := make(chan map[string]any, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		hook1 <- r
		bodies <- m
	}))
	defer srv.Close()
	if _, err := c.CreateTaskPushConfig(t.Context(), &v1.PushConfig{TaskID: id, ID: "v1", URL: srv.URL + "/v1", Token: "t1"}); err != nil {
		t.Fatal(err)
	}
	h.rpc("tasks/pushNotificationConfig/set", map[string]any{"taskId": string(id), "pushNotificationConfig": map[string]any{"id": "v03", "url": srv.URL + "/v03", "token": "t03"}})
	if _, err := c.SendMessage(t.Context(), v1Text("again", string(id), nil)); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	timeout := time.After(guard)
	for len(seen) < 2 {
		var r *http.Request
		select {
		case r = <-hook1:
		case <-timeout:
			t.Fatalf("webhooks saw %v", seen)
		}
		m := <-bodies
		switch r.URL.Path {
		case "/v1":
			if dig(m, "task", "status", "state") == "TASK_STATE_INPUT_REQUIRED" && r.Header.Get("A2A-Notification-Token") == "t1" {
				seen["v1"] = true
			}
		case "/v03":
			if dig(m, "status", "state") == "input-required" && r.Header.Get("X-A2A-Notification-Token") == "t03" {
				seen["v03"] = true
			}
		}
	}
}

// a2aclientExt is a context under which a2a-go's client activates the
// development-tool extension.
func a2aclientExt(t *testing.T) context.Context {
	return a2aclient.AttachServiceParams(t.Context(), a2aclient.ServiceParams{v1.SvcParamExtensions: {a2a.ExtensionURI}})
}

// TestV1ClientFromCard: a2a-go's client, given only the card, picks a
// 1.0 interface and talks to it.
func TestV1ClientFromCard(t *testing.T) {
	h := newHarness(t)
	h.fake.Enqueue(fakegemini.Text("from the card"))
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), h.ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := a2aclient.NewFromCard(t.Context(), card)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.SendMessage(t.Context(), v1Text("hi", "", geminiSettings(h.ws)))
	if task, ok := res.(*v1.Task); err != nil || !ok || task.Status.State != v1.TaskStateInputRequired {
		t.Fatalf("SendMessage = %#v, %v", res, err)
	}
}
