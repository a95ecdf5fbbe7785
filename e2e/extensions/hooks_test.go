package extensions_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// hookScript writes an executable hook that appends its stdin (one JSON
// line) and its environment to <logs>/<name>.log, then prints stdout and
// stderr and exits with code.
func hookScript(t *testing.T, dir, logs, name, stdout, stderr string, code int) string {
	t.Helper()
	path := filepath.Join(dir, name+".sh")
	script := fmt.Sprintf(`#!/bin/sh
{ cat; echo; } >> %[1]q
echo "ENV $GEMINI_PROJECT_DIR|$CLAUDE_PROJECT_DIR|$GEMINI_SESSION_ID" >> %[2]q
printf '%%s' %[3]q
printf '%%s' %[4]q >&2
exit %[5]d
`, filepath.Join(logs, name+".log"), filepath.Join(logs, name+".env"), stdout, stderr, code)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// hookLog returns the inputs a hook logged, one per run.
func hookLog(t *testing.T, logs, name string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(logs, name+".log"))
	if err != nil {
		t.Errorf("hook %s never ran: %v", name, err)
		return nil
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("hook %s got stdin that is not JSON: %v\n%s", name, err, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// TestHooksAllEvents configures command hooks for every event in the
// user's settings and checks what each received, what reached the model
// and that a BeforeTool exit 2 stops a shell command.
func TestHooksAllEvents(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t,
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch created.txt"}),
		fakegemini.Call("read_file", map[string]any{"absolute_path": "README.md"}),
		fakegemini.Text("done"),
	)
	e.Write("README.md", e2etest.Readme)
	logs := filepath.Join(e.Home, "hooklogs")
	scripts := filepath.Join(e.Home, "hooks")
	for _, d := range []string{logs, scripts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := func(s string) string {
		return e2etest.MustJSON(map[string]any{"hookSpecificOutput": map[string]any{"additionalContext": s}})
	}
	def := func(matcher, cmd string) []any {
		d := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 20000}}}
		if matcher != "" {
			d["matcher"] = matcher
		}
		return []any{d}
	}
	cfg := map[string]any{
		"SessionStart":        def("startup", hookScript(t, scripts, logs, "SessionStart", ctx("ctx-from-session-start"), "", 0)),
		"SessionEnd":          def("", hookScript(t, scripts, logs, "SessionEnd", "", "", 0)),
		"BeforeAgent":         def("", hookScript(t, scripts, logs, "BeforeAgent", ctx("ctx-from-before-agent"), "", 0)),
		"AfterAgent":          def("", hookScript(t, scripts, logs, "AfterAgent", "", "", 0)),
		"BeforeModel":         def("", hookScript(t, scripts, logs, "BeforeModel", "", "", 0)),
		"AfterModel":          def("", hookScript(t, scripts, logs, "AfterModel", "", "", 0)),
		"BeforeToolSelection": def("", hookScript(t, scripts, logs, "BeforeToolSelection", "", "", 0)),
		"BeforeTool": append(
			def("run_shell_command", hookScript(t, scripts, logs, "BeforeToolShell", "", "shell is not allowed here", 2)),
			def("read_.*", hookScript(t, scripts, logs, "BeforeTool", "", "", 0))...),
		"AfterTool":    def("*", hookScript(t, scripts, logs, "AfterTool", ctx("ctx-from-after-tool"), "", 0)),
		"PreCompress":  def("auto", hookScript(t, scripts, logs, "PreCompress", `{"systemMessage":"compressing soon"}`, "", 0)),
		"Notification": def("ToolPermission", hookScript(t, scripts, logs, "Notification", "", "", 0)),
	}
	settings := map[string]any{"hooks": cfg, "model": map[string]any{"compressionThreshold": 0.0000001}}
	if err := os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), []byte(e2etest.MustJSON(settings)), 0o644); err != nil {
		t.Fatal(err)
	}

	start := time.Now().Add(-time.Minute)
	r := e.Run("-y", "-o", "json", "-p", "Look at the project")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var out struct {
		SessionID string `json:"session_id"`
		Response  string `json:"response"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("stdout: %v\n%s", err, r.Stdout)
	}
	if out.Response != "done" {
		t.Errorf("response %q", out.Response)
	}

	// Every hook ran with the common fields.
	events := map[string]string{
		"SessionStart": "SessionStart", "SessionEnd": "SessionEnd", "BeforeAgent": "BeforeAgent",
		"AfterAgent": "AfterAgent", "BeforeModel": "BeforeModel", "AfterModel": "AfterModel",
		"BeforeToolSelection": "BeforeToolSelection", "BeforeToolShell": "BeforeTool", "BeforeTool": "BeforeTool",
		"AfterTool": "AfterTool", "PreCompress": "PreCompress",
	}
	inputs := map[string][]map[string]any{}
	for name, ev := range events {
		in := hookLog(t, logs, name)
		inputs[name] = in
		for _, m := range in {
			if m["hook_event_name"] != ev || m["session_id"] != out.SessionID || m["cwd"] != e.WS {
				t.Errorf("%s: common fields wrong: %s", name, e2etest.MustJSON(m))
			}
			if ts, err := time.Parse(time.RFC3339, fmt.Sprint(m["timestamp"])); err != nil || ts.Before(start) {
				t.Errorf("%s: timestamp %v", name, m["timestamp"])
			}
			if tp, _ := m["transcript_path"].(string); tp == "" || !strings.HasPrefix(tp, e.Home) {
				t.Errorf("%s: transcript_path %q", name, tp)
			}
		}
		env, err := os.ReadFile(filepath.Join(logs, name+".env"))
		if want := fmt.Sprintf("ENV %s|%s|%s", e.WS, e.WS, out.SessionID); err != nil || !strings.Contains(string(env), want) {
			t.Errorf("%s: environment %q, want %q", name, env, want)
		}
	}
	if _, err := os.Stat(filepath.Join(logs, "Notification.log")); err == nil {
		t.Error("Notification fired in a headless run, which asks nobody")
	}
	one := func(name string) map[string]any {
		if len(inputs[name]) == 0 {
			return map[string]any{}
		}
		return inputs[name][0]
	}
	if one("SessionStart")["source"] != "startup" || one("SessionEnd")["reason"] != "exit" || one("PreCompress")["trigger"] != "auto" {
		t.Errorf("lifecycle fields: %s %s %s", e2etest.MustJSON(one("SessionStart")), e2etest.MustJSON(one("SessionEnd")), e2etest.MustJSON(one("PreCompress")))
	}
	// SessionStart's context opens the prompt, as Gemini CLI 0.61
	// prepends it to the input.
	prompt := "<hook_context>ctx-from-session-start</hook_context>\n\nLook at the project"
	if one("BeforeAgent")["prompt"] != prompt {
		t.Errorf("BeforeAgent input %s", e2etest.MustJSON(one("BeforeAgent")))
	}
	if a := one("AfterAgent"); a["prompt"] != prompt || a["prompt_response"] != "done" || a["stop_hook_active"] != false {
		t.Errorf("AfterAgent input %s", e2etest.MustJSON(a))
	}
	if sh := one("BeforeToolShell"); sh["tool_name"] != "run_shell_command" || e2etest.MustJSON(sh["tool_input"]) != `{"command":"touch created.txt"}` {
		t.Errorf("BeforeTool (shell) input %s", e2etest.MustJSON(sh))
	}
	if len(inputs["BeforeToolShell"]) != 1 || len(inputs["BeforeTool"]) != 1 || one("BeforeTool")["tool_name"] != "read_file" {
		t.Errorf("matchers: shell hook ran %d times, read hook %d times", len(inputs["BeforeToolShell"]), len(inputs["BeforeTool"]))
	}
	if at := one("AfterTool"); at["tool_name"] != "read_file" || !strings.Contains(e2etest.MustJSON(at["tool_response"]), "Demo project") {
		t.Errorf("AfterTool input %s", e2etest.MustJSON(at))
	}
	if len(inputs["AfterTool"]) != 1 {
		t.Errorf("AfterTool ran %d times; a blocked call is never executed", len(inputs["AfterTool"]))
	}
	for _, name := range []string{"BeforeModel", "BeforeToolSelection", "AfterModel"} {
		if len(inputs[name]) < 3 {
			t.Errorf("%s ran %d times for 3 model calls", name, len(inputs[name]))
		}
		if req, _ := one(name)["llm_request"].(map[string]any); req == nil || !strings.Contains(e2etest.MustJSON(req["messages"]), "Look at the project") {
			t.Errorf("%s llm_request %s", name, e2etest.MustJSON(one(name)["llm_request"]))
		}
	}
	if resp := e2etest.MustJSON(inputs["AfterModel"][len(inputs["AfterModel"])-1]["llm_response"]); !strings.Contains(resp, "done") {
		t.Errorf("AfterModel llm_response %s", resp)
	}

	// What reached the model.
	reqs := e.Srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var first string
	for _, c := range reqs[0].Contents {
		for _, p := range c.Parts {
			first += p.Text + "\n"
		}
	}
	for _, want := range []string{"<hook_context>ctx-from-session-start</hook_context>", "<hook_context>ctx-from-before-agent</hook_context>"} {
		if !strings.Contains(first, want) {
			t.Errorf("first request lacks %s:\n%s", want, first)
		}
	}
	_, resp := e2etest.FunctionResponse(t, reqs[1].LastContent(), 0)
	if resp["error"] != "Tool execution blocked: shell is not allowed here" {
		t.Errorf("shell response %s", e2etest.MustJSON(resp))
	}
	if _, err := os.Stat(filepath.Join(e.WS, "created.txt")); err == nil {
		t.Error("the blocked shell command ran")
	}
	_, resp = e2etest.FunctionResponse(t, reqs[2].LastContent(), 0)
	if o, _ := resp["output"].(string); !strings.Contains(o, "Demo project") || !strings.HasSuffix(o, "<hook_context>ctx-from-after-tool</hook_context>") {
		t.Errorf("read_file response %s", e2etest.MustJSON(resp))
	}
}

// TestHookCommandNotFound: a hook whose command does not exist is an
// error on stderr naming the settings file and key, not a silent skip;
// a definition of an unknown event is reported the same way.
func TestHookCommandNotFound(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("fine"))
	settings := `{"hooks": {
		"BeforeAgent": [{"hooks": [{"type": "command", "command": "no-such-hook-command-xyz"}]}],
		"SessionStart": [{"hooks": [{"type": "command", "command": "echo '{\"systemMessage\": \"hello from a hook\"}'"}]}],
		"BeforeEverything": []}}`
	if err := os.MkdirAll(filepath.Join(e.WS, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.Write(".gemini/settings.json", settings)
	r := e.Run("-p", "hi")
	t.Logf("stderr:\n%s", r.Stderr)
	path := filepath.Join(e.WS, ".gemini", "settings.json")
	for _, want := range []string{
		path + ": hooks.BeforeAgent[0].hooks[0]",
		"no-such-hook-command-xyz",
		path + ": hooks.BeforeEverything: unknown hook event",
		"hello from a hook",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
}

// TestHookHaltsHeadless: a BeforeAgent hook answering continue: false
// stops the run before the model is called, and says why.
func TestHookHaltsHeadless(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("never"))
	if err := os.MkdirAll(filepath.Join(e.WS, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.Write(".gemini/settings.json", `{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": "echo '{\"continue\": false, \"stopReason\": \"maintenance window\"}'"}]}]}}`)
	r := e.Run("-p", "hi")
	if r.Code != 0 || !strings.Contains(r.Stderr, "Agent execution stopped: maintenance window") {
		t.Errorf("exit %d\nstderr: %s", r.Code, r.Stderr)
	}
	if n := len(e.Srv.Requests()); n != 0 {
		t.Errorf("%d model requests after a halt", n)
	}
}

// TestBeforeModelRedactsSubagentCall: a BeforeModel command hook that
// redacts a secret from every model request it sees is not bypassed by
// delegating to a subagent: Gemini CLI 0.61 fires the model hooks on a
// subagent's model calls too, so the subagent's request reaches the
// model redacted.
func TestBeforeModelRedactsSubagentCall(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WithReviewer(t, e)
	e.Srv.Enqueue(
		fakegemini.Call("invoke_agent", map[string]any{"agent_name": "reviewer", "prompt": "Check the key SECRET-123"}),
		fakegemini.Call("complete_task", map[string]any{"result": "Checked."}),
		fakegemini.Text("Reviewed."),
	)
	// The hook answers a request carrying the secret with the request
	// itself, redacted, as its llm_request (the other input fields are
	// ignored there); other requests pass unchanged.
	redact := `in=$(cat); case "$in" in *SECRET-123*) printf '{"hookSpecificOutput":%s}' "$(printf '%s' "$in" | sed 's/SECRET-123/[REDACTED]/g')";; esac`
	e2etest.WriteSettings(t, e, map[string]any{"hooks": map[string]any{
		"BeforeModel": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": redact}}}},
	}})
	r := e.Run("-m", "gemini-2.5-flash", "-p", "Review my code")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3\nstderr: %s", len(reqs), r.Stderr)
	}
	sub, _ := json.Marshal(reqs[1].Contents)
	if strings.Contains(string(sub), "SECRET-123") || !strings.Contains(string(sub), "Check the key [REDACTED]") {
		t.Errorf("the subagent's model request is not redacted: %s", sub)
	}
}
