package a2a_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/npmtest"
)

// runScript runs a client script from testdata/interop with node in dir
// and returns its output lines keyed by their "step" field.
func runScript(t *testing.T, node, dir, script string, env ...string) map[string]map[string]any {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "interop", script))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--input-type=module")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(string(src))
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("%s failed: %v\n%s\n%s", script, err, out, msg)
	}
	steps := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			if s, ok := m["step"].(string); ok {
				steps[s] = m
			}
		}
	}
	for s, m := range steps {
		if m["threw"] != nil {
			t.Errorf("step %s threw %v", s, m["threw"])
		}
	}
	return steps
}

// v1Webhook is a push-notification receiver on loopback that keeps the
// A2A 1.0 token header and the whole body.
type v1Webhook struct {
	srv *httptest.Server
	got chan v1Push
}

type v1Push struct {
	token string
	body  map[string]any
}

func newV1Webhook(t *testing.T) *v1Webhook {
	w := &v1Webhook{got: make(chan v1Push, 1000)}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		w.got <- v1Push{token: r.Header.Get("A2A-Notification-Token"), body: m}
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// strings of a JSON array from a step's output.
func stepStrings(v any) []string {
	var s []string
	for _, e := range asSlice(v) {
		str, _ := e.(string)
		s = append(s, str)
	}
	return s
}

// TestInteropA2AJSv1 drives the server over A2A 1.0 with @a2a-js/sdk 1.x,
// as a user of that client would: agent-card discovery through
// ClientFactory, blocking and non-blocking SendMessage, GetTask with
// historyLength, SendStreamingMessage on a new and an existing task,
// ListTasks, write_file confirmations in the coderAgent and the
// development-tool extension formats, push config create/get/list/delete,
// SubscribeToTask twice on a running task, a webhook that hears of its
// cancel, CancelTask and the typed errors; once over each 1.0 transport
// the card offers.
func TestInteropA2AJSv1(t *testing.T) {
	node := npmtest.LookPath(t, "node")
	dir := sdkDir("a2a-js-sdk-v1")
	if dir == "" {
		npmtest.Missing(t, "@a2a-js/sdk 1.x (a2a-js-sdk-v1) is not installed (npm ci --ignore-scripts in a2a/testdata/interop, or set A2A_JS_SDK_DIR)")
	}
	for _, target := range targets {
		for _, transport := range []string{"JSONRPC", "HTTP+JSON"} {
			t.Run(target+"/"+transport, func(t *testing.T) { interopV1(t, node, dir, target, transport) })
		}
	}
}

// interopV1 runs client-v1.mjs against a target over one transport and
// checks its steps.
func interopV1(t *testing.T, node, dir, target, transport string) {
	h := newTarget(t, target, withPrivatePush())
	hook := newV1Webhook(t)
	h.fake.Enqueue(
		fakegemini.Text("hello back"),
		fakegemini.Text("streamed"),
		writeCall(filepath.Join(h.ws, "gemini.txt"), "g\n"), fakegemini.Text("wrote gemini.txt"),
		writeCall(filepath.Join(h.ws, "ext.txt"), "e\n"), fakegemini.Text("wrote ext.txt"),
		fakegemini.Hang(),
	)
	steps := runScript(t, node, dir, "client-v1.mjs",
		"INTEROP_URL="+h.ts.URL+"/", "INTEROP_WORKSPACE="+h.ws, "INTEROP_WEBHOOK="+hook.srv.URL+"/hook", "INTEROP_TRANSPORT="+transport)

	for _, c := range []struct {
		step, key string
		want      any
	}{
		{"card", "protocolVersion", "1.0"},
		{"card", "transport", transport},
		{"card", "streaming", true},
		{"card", "push", true},
		{"card", "extension", true},
		{"send", "kind", "task"},
		{"send", "state", "TASK_STATE_INPUT_REQUIRED"},
		{"get", "state", "TASK_STATE_INPUT_REQUIRED"},
		{"get", "history", 1},
		{"get", "id", true},
		{"stream", "same", true},
		{"stream", "shape", []string{
			"statusUpdate:TASK_STATE_WORKING:state-change",
			"statusUpdate:TASK_STATE_WORKING:text-content",
			"statusUpdate:TASK_STATE_INPUT_REQUIRED:state-change",
		}},
		{"list", "context", []bool{true}},
		{"push", "set", "hook"},
		{"push", "get", true},
		{"push", "token", "interop-token"},
		{"push", "list", 1},
		{"push-delete", "list", 0},
		{"subscribe", "first", "task"},
		{"subscribe", "again", "task"},
		{"subscribe", "cancel", "TASK_STATE_CANCELED"},
		{"subscribe", "last", "statusUpdate:TASK_STATE_CANCELED:state-change"},
		{"subscribe", "after", "TASK_STATE_CANCELED"},
		{"errors", "get", "TaskNotFoundError"},
		{"errors", "cancel", "TaskNotFoundError"},
		{"errors", "cancelDone", "TaskNotCancelableError"},
	} {
		if got := toJSON(steps[c.step][c.key]); got != toJSON(c.want) {
			t.Errorf("%s.%s = %s, want %s", c.step, c.key, got, toJSON(c.want))
		}
	}
	if b := stepStrings(steps["card"]["bindings"]); !slices.Contains(b, transport+"/1.0") {
		t.Errorf("card interfaces %v lack %s/1.0", b, transport)
	}
	if s := steps["subscribe"]["sent"]; s != "TASK_STATE_SUBMITTED" && s != "TASK_STATE_WORKING" {
		t.Errorf("non-blocking send returned state %v, want submitted or working", s)
	}
	if n, _ := steps["list"]["all"].(float64); n < 3 {
		t.Errorf("ListTasks returned %v tasks, want at least 3", steps["list"]["all"])
	}

	// Both confirmation formats: the first stream opens the task, asks for
	// the confirmation and stops for input; the answer runs the tool and
	// the turn ends with the model's text.
	for _, c := range []struct{ step, confirm, update, text string }{
		{"confirm", "tool-call-confirmation", "tool-call-update", "text-content"},
		{"extension", "TOOL_CALL_UPDATE", "TOOL_CALL_UPDATE", "TEXT_CONTENT"},
	} {
		first, second := stepStrings(steps[c.step]["first"]), stepStrings(steps[c.step]["second"])
		if len(first) == 0 || len(second) == 0 {
			t.Errorf("%s: first %v, second %v", c.step, first, second)
			continue
		}
		if first[0] != "task:TASK_STATE_SUBMITTED:" {
			t.Errorf("%s: first stream opens with %s, want the submitted task", c.step, first[0])
		}
		if !slices.Contains(first, "statusUpdate:TASK_STATE_WORKING:"+c.confirm) {
			t.Errorf("%s: first stream %v has no %s", c.step, first, c.confirm)
		}
		if !slices.ContainsFunc(second, func(s string) bool { return strings.HasSuffix(s, ":"+c.update) }) ||
			!slices.Contains(second, "statusUpdate:TASK_STATE_WORKING:"+c.text) {
			t.Errorf("%s: second stream %v lacks %s or %s", c.step, second, c.update, c.text)
		}
		for _, s := range [][]string{first, second} {
			if last := s[len(s)-1]; !strings.HasPrefix(last, "statusUpdate:TASK_STATE_INPUT_REQUIRED:") {
				t.Errorf("%s: stream ends with %s, want input-required", c.step, last)
			}
		}
	}
	for _, f := range []string{"gemini.txt", "ext.txt"} {
		if _, err := os.Stat(filepath.Join(h.ws, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	// The webhook set on the running task over 1.0 hears of its cancel in
	// 1.0's form (§4.3.3): a StreamResponse, the token in
	// A2A-Notification-Token.
	var canceled map[string]any
	deadline := time.After(guard)
	for canceled == nil {
		select {
		case p := <-hook.got:
			if p.token != "bg-token" {
				continue
			}
			if len(p.body) != 1 {
				t.Errorf("push body %.300s is not a StreamResponse (one of task, message, statusUpdate, artifactUpdate)", toJSON(p.body))
			}
			for _, k := range []string{"task", "statusUpdate"} {
				if dig(p.body, k, "status", "state") == "TASK_STATE_CANCELED" {
					canceled = p.body
				}
			}
		case <-deadline:
			t.Errorf("no push notification of the canceled task to the webhook set over A2A 1.0")
			canceled = map[string]any{}
		}
	}
	if t.Failed() || testing.Verbose() {
		for _, s := range []string{"card", "send", "get", "stream", "confirm", "extension", "list", "push", "push-delete", "subscribe", "errors"} {
			t.Logf("%s", toJSON(steps[s]))
		}
		t.Logf("push of the cancel: %.300s", toJSON(canceled))
	}
}
