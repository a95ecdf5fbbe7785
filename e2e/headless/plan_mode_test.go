package headless_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/golden"
)

// declarationsOf returns the declarations of the named tools as the
// request body carries them on the wire, in the order given, for a golden
// file.
func declarationsOf(t *testing.T, r *fakegemini.Request, names ...string) []any {
	t.Helper()
	var body struct {
		Tools []struct {
			FunctionDeclarations []map[string]any `json:"functionDeclarations"`
		} `json:"tools"`
		Request *struct {
			Tools []struct {
				FunctionDeclarations []map[string]any `json:"functionDeclarations"`
			} `json:"tools"`
		} `json:"request"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	tools := body.Tools
	if body.Request != nil {
		tools = body.Request.Tools
	}
	byName := map[string]any{}
	for _, tl := range tools {
		for _, d := range tl.FunctionDeclarations {
			byName[d["name"].(string)] = d
		}
	}
	var out []any
	for _, n := range names {
		d, ok := byName[n]
		if !ok {
			t.Errorf("%s is not declared; declared: %v", n, e2etest.DeclaredSet(r))
			continue
		}
		out = append(out, d)
	}
	return out
}

// systemText is the request's system instruction.
func systemText(r *fakegemini.Request) string {
	var sb strings.Builder
	if r.SystemInstruction != nil {
		for _, p := range r.SystemInstruction.Parts {
			sb.WriteString(p.Text)
		}
	}
	return sb.String()
}

// TestPlanModeStreamJSON runs Gemini CLI 0.61's plan mode in a stream-json
// session: the model enters plan mode (asked about), writes its plan into
// the plans directory, asks for approval with exit_plan_mode, and after
// the host approves (in auto_edit) implements it. The declarations of
// enter_plan_mode, ask_user and update_topic, and of exit_plan_mode in
// plan mode, are compared with Gemini CLI's in a golden file.
func TestPlanModeStreamJSON(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	target := filepath.Join(e.WS, "feature.txt")
	e.Srv.Enqueue(
		fakegemini.Call("enter_plan_mode", map[string]any{"reason": "design first"}),
		fakegemini.Call("write_file", map[string]any{"file_path": "feature-x.md", "content": "# Plan\n\n1. Write feature.txt\n"}),
		fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "too early\n"}),
		fakegemini.Call("exit_plan_mode", map[string]any{"plan_filename": "feature-x.md"}),
		fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "done\n"}),
		fakegemini.Text("Implemented."),
	)
	p := e.StartStream("--input-format", "stream-json", "-o", "stream-json")
	p.Send(`{"type":"user","message":"plan feature x, then build it"}`)

	req := p.Until("permission_request")
	if req["tool_name"] != "enter_plan_mode" {
		t.Fatalf("first request = %v", req)
	}
	p.Send(`{"type":"permission_response","tool_id":"` + req["tool_id"].(string) + `","decision":"proceed_once"}`)

	req = p.Until("permission_request")
	if req["tool_name"] != "exit_plan_mode" {
		t.Fatalf("second request = %v (the plan file and the early edit must not ask)", req)
	}
	det, _ := req["details"].(map[string]any)
	planPath, _ := det["planPath"].(string)
	if det["type"] != "exit_plan_mode" || !strings.Contains(det["plan"].(string), "1. Write feature.txt") || filepath.Base(planPath) != "feature-x.md" {
		t.Errorf("plan request details = %v", det)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("feature.txt written in plan mode")
	}
	p.Send(`{"type":"permission_response","tool_id":"` + req["tool_id"].(string) + `","decision":"proceed_once","approved":true,"approval_mode":"auto_edit"}`)
	if res := p.Until("result"); res["status"] != "success" {
		t.Fatalf("result = %v; stderr %s", res, p.Stderr.String())
	}
	if got, _ := os.ReadFile(target); string(got) != "done\n" {
		t.Errorf("feature.txt = %q, want the implementation's", got)
	}
	if code := p.Close(); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, p.Stderr.String())
	}

	reqs := e.Srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 6", len(reqs))
	}
	// What the model was told at each step.
	want := []struct {
		req  int
		name string
		text string
	}{
		{1, "enter_plan_mode", "Switching to Plan mode."},
		{2, "write_file", "Successfully created and wrote to new file: " + planPath},
		{3, "write_file", "You are in Plan Mode and cannot modify source code."},
		{4, "exit_plan_mode", "Plan approved. Switching to Auto-Edit mode (edits will be applied automatically).\n\nThe approved implementation plan is stored at: " + planPath},
		{5, "write_file", "Successfully created and wrote to new file: " + target},
	}
	for _, w := range want {
		name, resp := e2etest.FunctionResponse(t, reqs[w.req].LastContent(), 0)
		text, _ := resp["output"].(string)
		if text == "" {
			text, _ = resp["error"].(string)
		}
		if name != w.name || !strings.Contains(text, w.text) {
			t.Errorf("request %d: %s answered %q, want %s containing %q", w.req, name, text, w.name, w.text)
		}
	}
	// enter_plan_mode offered outside plan mode, exit_plan_mode in it.
	if d := e2etest.DeclaredSet(reqs[0]); !d["enter_plan_mode"] || d["exit_plan_mode"] {
		t.Errorf("default mode declares %v", d)
	}
	if d := e2etest.DeclaredSet(reqs[2]); d["enter_plan_mode"] || !d["exit_plan_mode"] || !d["write_file"] || d["run_shell_command"] {
		t.Errorf("plan mode declares %v", d)
	}
	if !strings.Contains(systemText(reqs[2]), "Active Approval Mode: Plan") {
		t.Error("plan mode's system instruction lacks its section")
	}
	decls := append(declarationsOf(t, reqs[0], "update_topic", "ask_user", "enter_plan_mode"), declarationsOf(t, reqs[2], "exit_plan_mode")...)
	b, _ := json.MarshalIndent(decls, "", "  ")
	golden.Check(t, "plan_tools_declarations.json", append(b, '\n'))
}

// TestAskUserStreamJSON answers ask_user's questions from the host.
func TestAskUserStreamJSON(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	questions := []any{
		map[string]any{"question": "Which database?", "header": "Database", "type": "choice", "options": []any{
			map[string]any{"label": "Postgres", "description": "relational"},
			map[string]any{"label": "SQLite", "description": "embedded"},
		}},
		map[string]any{"question": "Project name?", "header": "Name", "type": "text"},
	}
	e.Srv.Enqueue(fakegemini.Call("ask_user", map[string]any{"questions": questions}), fakegemini.Text("Thanks."))
	p := e.StartStream("--input-format", "stream-json", "-o", "stream-json")
	p.Send(`{"type":"user","message":"set up the project"}`)
	req := p.Until("permission_request")
	det, _ := req["details"].(map[string]any)
	if req["tool_name"] != "ask_user" || det["type"] != "ask_user" || len(det["questions"].([]any)) != 2 {
		t.Fatalf("permission_request = %v", req)
	}
	p.Send(`{"type":"permission_response","tool_id":"` + req["tool_id"].(string) + `","decision":"proceed_once","answers":{"0":"SQLite","1":"acme"}}`)
	if res := p.Until("result"); res["status"] != "success" {
		t.Fatalf("result = %v", res)
	}
	p.Close()
	_, resp := e2etest.FunctionResponse(t, e.Srv.LastRequest().LastContent(), 0)
	if resp["output"] != `{"answers":{"0":"SQLite","1":"acme"}}` {
		t.Errorf("ask_user answered the model %v", resp)
	}
}

// TestAskUserHeadless: a -p run cannot ask, so ask_user is neither
// declared nor run, as in Gemini CLI 0.61.
func TestAskUserHeadless(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Call("ask_user", map[string]any{"questions": []any{map[string]any{"question": "Which?", "header": "Q", "type": "text"}}}), fakegemini.Text("OK."))
	r := e.Run("-p", "go")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	reqs := e.Srv.Requests()
	if d := e2etest.DeclaredSet(reqs[0]); d["ask_user"] || !d["update_topic"] || !d["enter_plan_mode"] {
		t.Errorf("-p declares %v", d)
	}
	_, resp := e2etest.FunctionResponse(t, reqs[1].LastContent(), 0)
	if msg, _ := resp["error"].(string); !strings.HasPrefix(msg, `Tool "ask_user" not found.`) {
		t.Errorf("ask_user in -p answered %v", resp)
	}
}

// TestPlanModeHeadless: a -p run cannot ask, so entering plan mode is
// allowed and the plan approved at once, implemented in yolo mode, as
// Gemini CLI 0.61 does without a user.
func TestPlanModeHeadless(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	target := filepath.Join(e.WS, "out.txt")
	e.Srv.Enqueue(
		fakegemini.Call("enter_plan_mode", map[string]any{}),
		fakegemini.Call("write_file", map[string]any{"file_path": "p.md", "content": "1. write out.txt\n"}),
		fakegemini.Call("exit_plan_mode", map[string]any{"plan_filename": "p.md"}),
		fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "done\n"}),
		fakegemini.Text("Done."),
	)
	if r := e.Run("-p", "plan and do it"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if got, _ := os.ReadFile(target); string(got) != "done\n" {
		t.Errorf("out.txt = %q", got)
	}
	_, resp := e2etest.FunctionResponse(t, e.Srv.Requests()[3].LastContent(), 0)
	if out, _ := resp["output"].(string); !strings.HasPrefix(out, "Plan approved. Switching to YOLO mode") {
		t.Errorf("exit_plan_mode answered %v", resp)
	}
}
