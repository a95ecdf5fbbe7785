package a2a_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/npmtest"
)

// sdkDir finds a directory whose node_modules holds the npm package pkg
// (@a2a-js/sdk for 0.3; a2a-js-sdk-v1, the npm alias of 1.x):
// $A2A_JS_SDK_DIR, or testdata/interop (npm ci there installs both
// pinned clients).
func sdkDir(pkg string) string {
	cands := []string{os.Getenv("A2A_JS_SDK_DIR")}
	if wd, err := os.Getwd(); err == nil {
		cands = append(cands, filepath.Join(wd, "testdata", "interop"))
	}
	for _, d := range cands {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "node_modules", pkg, "package.json")); err == nil {
			return d
		}
	}
	return ""
}

// TestInteropA2AJS drives the server with @a2a-js/sdk 0.3.x: send,
// stream, get, cancel, resubscribe, push configs and both confirmation
// formats.
func TestInteropA2AJS(t *testing.T) {
	node := npmtest.LookPath(t, "node")
	dir := sdkDir("@a2a-js/sdk")
	if dir == "" {
		npmtest.Missing(t, "@a2a-js/sdk is not installed (npm ci --ignore-scripts in a2a/testdata/interop, or set A2A_JS_SDK_DIR)")
	}
	for _, target := range targets {
		t.Run(target, func(t *testing.T) { interopA2AJS(t, node, dir, target) })
	}
}

// interopA2AJS runs client.mjs against a target and checks its steps.
func interopA2AJS(t *testing.T, node, dir, target string) {
	h := newTarget(t, target, withPrivatePush())
	hook := newWebhook(t, 0)
	h.fake.Enqueue(
		fakegemini.Text("hello back"),
		fakegemini.Text("streamed"),
		writeCall(filepath.Join(h.ws, "gemini.txt"), "g\n"), fakegemini.Text("wrote gemini.txt"),
		writeCall(filepath.Join(h.ws, "ext.txt"), "e\n"), fakegemini.Text("wrote ext.txt"),
		fakegemini.Hang(),
	)
	script, err := os.ReadFile(filepath.Join("testdata", "interop", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--input-type=module")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(string(script))
	cmd.Env = append(os.Environ(), "INTEROP_URL="+h.ts.URL+"/", "INTEROP_WORKSPACE="+h.ws, "INTEROP_WEBHOOK="+hook.srv.URL+"/hook")
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("client failed: %v\n%s\n%s", err, out, msg)
	}
	steps := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			steps[m["step"].(string)] = m
		}
	}
	check := func(step, key string, want any) {
		t.Helper()
		if got := toJSON(steps[step][key]); got != toJSON(want) {
			t.Errorf("%s.%s = %s, want %s", step, key, got, toJSON(want))
		}
	}
	check("send", "kind", "task")
	check("send", "state", "input-required")
	check("get", "history", 1)
	check("stream", "shape", []string{"status-update:working:state-change", "status-update:working:text-content", "status-update:input-required:state-change:final"})
	check("confirm", "first", []string{"task:submitted:", "status-update:working:state-change", "status-update:working:state-change",
		"status-update:working:tool-call-update", "status-update:working:tool-call-confirmation", "status-update:input-required:state-change:final"})
	check("extension", "first", []string{"task:submitted:", "status-update:working:STATE_CHANGE", "status-update:working:TOOL_CALL_UPDATE", "status-update:input-required:STATE_CHANGE:final"})
	check("extension", "second", []string{"status-update:working:TOOL_CALL_UPDATE", "status-update:working:TOOL_CALL_UPDATE", "status-update:working:TEXT_CONTENT", "status-update:input-required:STATE_CHANGE:final"})
	check("push", "set", "hook")
	check("push", "list", 1)
	check("push-delete", "error", nil)
	check("resubscribe", "first", "task")
	check("resubscribe", "cancel", "canceled")
	check("resubscribe", "last", "status-update:canceled:state-change:final")
	check("cancel-unknown", "code", -32001)
	for _, f := range []string{"gemini.txt", "ext.txt"} {
		if _, err := os.Stat(filepath.Join(h.ws, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}
