package headless_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// toolLoop is the scripted model of the main scenario: look, read, write,
// answer.
func toolLoop(ws string) []fakegemini.Reply {
	return []fakegemini.Reply{
		fakegemini.Parts(fakegemini.ThoughtPart("**Looking around**\n\nList the files first."), fakegemini.TextPart("Let me look."),
			fakegemini.CallPart("list_directory", map[string]any{"path": ws})).Signed([]byte("sig-1")),
		fakegemini.Call("read_file", map[string]any{"absolute_path": filepath.Join(ws, "README.md")}),
		fakegemini.Call("write_file", map[string]any{"file_path": filepath.Join(ws, "notes.txt"), "content": "hello world\n"}),
		fakegemini.Text("I wrote ", "notes.txt."),
	}
}

func TestHeadlessToolLoopJSONAndResume(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(toolLoop(e.WS)...)
	e.Write("README.md", e2etest.Readme)

	r := e.Run("-y", "-o", "json", "-p", "Write notes about this project")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var out struct {
		SessionID string `json:"session_id"`
		Response  string `json:"response"`
		Stats     struct {
			Models map[string]struct {
				API struct {
					TotalRequests int `json:"totalRequests"`
				} `json:"api"`
			} `json:"models"`
			Tools struct {
				TotalCalls   int `json:"totalCalls"`
				TotalSuccess int `json:"totalSuccess"`
			} `json:"tools"`
			Files struct {
				TotalLinesAdded int `json:"totalLinesAdded"`
			} `json:"files"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.Stdout)
	}
	if out.SessionID == "" || out.Response != "I wrote notes.txt." {
		t.Errorf("session_id %q response %q", out.SessionID, out.Response)
	}
	if out.Stats.Tools.TotalCalls != 3 || out.Stats.Tools.TotalSuccess != 3 || out.Stats.Models["gemini-fake"].API.TotalRequests != 5 {
		t.Errorf("stats = %s", r.Stdout)
	}
	if out.Stats.Files.TotalLinesAdded != 1 {
		t.Errorf("files stats = %+v", out.Stats.Files)
	}
	if got, _ := os.ReadFile(filepath.Join(e.WS, "notes.txt")); string(got) != "hello world\n" {
		t.Errorf("notes.txt = %q", got)
	}

	reqs := e.Srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	first := reqs[0]
	if !strings.HasSuffix(first.Path, "/models/gemini-3.1-pro-preview-customtools:streamGenerateContent") || first.Query.Get("alt") != "sse" {
		t.Errorf("first request %s?%s", first.Path, first.Query.Encode())
	}
	if ua := first.Header.Get("User-Agent"); !strings.HasPrefix(ua, "Castor/") {
		t.Errorf("User-Agent %q", ua)
	}
	names := map[string]bool{}
	for _, d := range first.FunctionDeclarations() {
		names[d.Name] = true
		if d.ParametersJsonSchema == nil || d.Parameters != nil {
			t.Errorf("%s must be declared with parametersJsonSchema only", d.Name)
		}
	}
	for _, n := range []string{"list_directory", "read_file", "write_file", "run_shell_command"} {
		if !names[n] {
			t.Errorf("declarations lack %s: %v", n, names)
		}
	}
	if first.SystemInstruction == nil || !strings.Contains(first.SystemInstruction.Parts[0].Text, "YOLO") {
		t.Error("system instruction missing or lacks the YOLO note")
	}
	c0 := first.Contents[0]
	if len(first.Contents) != 1 || len(c0.Parts) != 2 || !strings.HasPrefix(c0.Parts[0].Text, "<session_context>") ||
		!strings.Contains(c0.Parts[0].Text, "└───README.md") || c0.Parts[1].Text != "Write notes about this project" {
		t.Errorf("first user content = %s", e2etest.MustJSON(first.Contents))
	}

	// Turn 2 carries the model turn without its thought, the signature on
	// the call, and the list_directory response text.
	second := reqs[1].Contents
	modelTurn := second[1]
	for _, p := range modelTurn.Parts {
		if p.Thought {
			t.Errorf("thought part in history: %s", e2etest.MustJSON(modelTurn))
		}
	}
	if fc := modelTurn.Parts[len(modelTurn.Parts)-1]; fc.FunctionCall == nil || string(fc.ThoughtSignature) != "sig-1" {
		t.Errorf("call part = %s", e2etest.MustJSON(fc))
	}
	name, resp := e2etest.FunctionResponse(t, second[2], 0)
	wantList := "Directory listing for " + e.WS + ":\nREADME.md (" + itoa(len(e2etest.Readme)) + " bytes)"
	if name != "list_directory" || resp["output"] != wantList {
		t.Errorf("list_directory response = %s, want %q", e2etest.MustJSON(resp), wantList)
	}
	name, resp = e2etest.FunctionResponse(t, reqs[2].Contents[4], 0)
	if name != "read_file" || resp["output"] != e2etest.Readme {
		t.Errorf("read_file response = %s", e2etest.MustJSON(resp))
	}
	name, resp = e2etest.FunctionResponse(t, reqs[3].Contents[6], 0)
	if out, _ := resp["output"].(string); name != "write_file" || !strings.HasPrefix(out, "Successfully created and wrote to new file: "+filepath.Join(e.WS, "notes.txt")+".") {
		t.Errorf("write_file response = %s", e2etest.MustJSON(resp))
	}

	// The session file holds the conversation.
	conv, err := chats.LoadFile(e.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	if conv.SessionID != out.SessionID {
		t.Errorf("session file id %q, output id %q", conv.SessionID, out.SessionID)
	}
	hist := conv.History()
	if len(hist) != 8 {
		t.Fatalf("recorded history has %d contents: %s", len(hist), e2etest.MustJSON(hist))
	}

	// --resume latest continues it: the old turns go back to the model.
	e.Srv.Enqueue(fakegemini.Text("Resumed."))
	r = e.Run("--resume", "latest", "-o", "json", "-p", "What did you write?")
	if r.Code != 0 {
		t.Fatalf("resume exit %d: %s", r.Code, r.Stderr)
	}
	var out2 struct {
		SessionID string `json:"session_id"`
		Response  string `json:"response"`
	}
	json.Unmarshal([]byte(r.Stdout), &out2)
	if out2.SessionID != out.SessionID || out2.Response != "Resumed." {
		t.Errorf("resumed output = %s", r.Stdout)
	}
	// The session context joins the first recorded prompt, so roles
	// alternate as in the live session (agent.New joins user contents).
	last := e.Srv.LastRequest().Contents
	if n := len(last); n != 9 || last[n-1].Parts[0].Text != "What did you write?" || !strings.HasPrefix(last[0].Parts[0].Text, "<session_context>") {
		t.Errorf("resumed request contents (%d) = %s", n, e2etest.MustJSON(last))
	}
	if _, resp := e2etest.FunctionResponse(t, last[6], 0); resp["output"] == nil {
		t.Errorf("resumed history lost the write_file response")
	}
	conv, err = chats.LoadFile(e.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	if len(conv.History()) != 10 {
		t.Errorf("session file after resume has %d contents", len(conv.History()))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestStreamJSON(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(toolLoop(e.WS)...)
	e.Write("README.md", e2etest.Readme)
	r := e.Run("--approval-mode", "auto_edit", "-o", "stream-json", "-p", "notes please")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var types []string
	var events []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line is not JSON: %q", line)
		}
		if ev["timestamp"] == nil {
			t.Errorf("event without timestamp: %s", line)
		}
		types = append(types, ev["type"].(string))
		events = append(events, ev)
	}
	want := "init message message tool_use tool_result tool_use tool_result tool_use tool_result message message result"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	if ev := events[0]; ev["model"] != "auto" || ev["session_id"] == "" {
		t.Errorf("init = %v", ev)
	}
	if ev := events[1]; ev["role"] != "user" || ev["content"] != "notes please" {
		t.Errorf("user message = %v", ev)
	}
	if ev := events[2]; ev["role"] != "assistant" || ev["content"] != "Let me look." || ev["delta"] != true {
		t.Errorf("assistant message = %v", ev)
	}
	if ev := events[3]; ev["tool_name"] != "list_directory" || !strings.HasPrefix(ev["tool_id"].(string), "list_directory__") {
		t.Errorf("tool_use = %v", ev)
	}
	if ev := events[4]; ev["status"] != "success" || ev["tool_id"] != events[3]["tool_id"] {
		t.Errorf("tool_result = %v", ev)
	}
	res := events[len(events)-1]
	stats := res["stats"].(map[string]any)
	if res["status"] != "success" || stats["tool_calls"] != float64(3) {
		t.Errorf("result = %v", res)
	}
}

func TestTextOutputAndHeadlessDenial(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t,
		fakegemini.Parts(fakegemini.TextPart("First."), fakegemini.CallPart("write_file", map[string]any{"file_path": "x.txt", "content": "x"})),
		fakegemini.Text("Second."))
	r := e.Run("-p", "try to write")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if r.Stdout != "First.\nSecond.\n" {
		t.Errorf("stdout = %q", r.Stdout)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "x.txt")); err == nil {
		t.Error("write_file ran without approval in a headless run")
	}
	reqs := e.Srv.Requests()
	for _, d := range reqs[0].FunctionDeclarations() {
		if d.Name == "write_file" || d.Name == "run_shell_command" {
			t.Errorf("%s declared in a headless default-mode run", d.Name)
		}
	}
	_, resp := e2etest.FunctionResponse(t, reqs[1].LastContent(), 0)
	if msg, _ := resp["error"].(string); !strings.HasPrefix(msg, `Tool "write_file" not found.`) {
		t.Errorf("response = %s", e2etest.MustJSON(resp))
	}
}

func TestAllowedToolsWorkHeadless(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t,
		fakegemini.Call("write_file", map[string]any{"file_path": "x.txt", "content": "x"}),
		fakegemini.Call("run_shell_command", map[string]any{"command": "echo hi"}),
		fakegemini.Text("done"))
	r := e.Run("--allowed-tools", "write_file,run_shell_command(git status)", "-p", "write")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(e.WS, "x.txt")); string(got) != "x" {
		t.Errorf("x.txt = %q", got)
	}
	_, resp := e2etest.FunctionResponse(t, e.Srv.LastRequest().LastContent(), 0)
	if resp["error"] != "Tool execution denied by policy." {
		t.Errorf("echo hi must be refused, got %s", e2etest.MustJSON(resp))
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	t.Run("503 then success", func(t *testing.T) {
		e := e2etest.New(t, fakegemini.Error(503, "overloaded"), fakegemini.Text("ok"))
		r := e.Run("-p", "hi")
		if r.Code != 0 || r.Stdout != "ok\n" {
			t.Fatalf("exit %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
		}
		if len(e.Srv.Requests()) != 2 {
			t.Errorf("%d requests", len(e.Srv.Requests()))
		}
	})
	t.Run("429 with Retry-After", func(t *testing.T) {
		e := e2etest.New(t, fakegemini.Error(429, "slow down").WithRetryAfter("1"), fakegemini.Text("ok"))
		r := e.Run("-p", "hi")
		if r.Code != 0 || r.Stdout != "ok\n" {
			t.Fatalf("exit %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
		}
	})
	t.Run("stream cut mid-way", func(t *testing.T) {
		e := e2etest.New(t, fakegemini.Text("partial ", "answer ", "never finished").CutAfter(1))
		r := e.Run("-o", "json", "-p", "hi")
		if r.Code != 1 {
			t.Fatalf("exit %d, want 1; stderr %q", r.Code, r.Stderr)
		}
		if lines := strings.Split(strings.TrimSpace(r.Stderr), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "Error: ") {
			t.Errorf("stderr must be one error line, got %q", r.Stderr)
		}
		var out struct {
			SessionID string `json:"session_id"`
			Error     struct {
				Type    string `json:"type"`
				Message string `json:"message"`
				Code    int    `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || out.Error.Message == "" || out.Error.Code != 1 {
			t.Errorf("json error output = %s", r.Stdout)
		}
		conv, err := chats.LoadFile(e.SessionFile())
		if err != nil {
			t.Fatalf("session file unreadable after a cut stream: %v", err)
		}
		// The part of the answer that arrived is kept as the model's
		// turn, so a resumed session's roles alternate.
		if h := conv.History(); len(h) != 2 || h[0].Parts[0].Text != "hi" || h[1].Role != "model" || h[1].Parts[0].Text != "partial " {
			t.Errorf("session history = %s", e2etest.MustJSON(h))
		}
	})
	t.Run("no credentials", func(t *testing.T) {
		e := e2etest.New(t)
		cmd := e2etest.Command(t, "-p", "hi")
		cmd.Dir = e.WS
		cmd.Env = []string{"HOME=" + e.Home, "PATH=" + os.Getenv("PATH"), "GEMINI_CLI_TRUST_WORKSPACE=true"}
		out, _ := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != 41 {
			t.Errorf("exit %d, want 41: %s", cmd.ProcessState.ExitCode(), out)
		}
	})
	t.Run("malformed settings", func(t *testing.T) {
		e := e2etest.New(t)
		os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755)
		os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), []byte(`{"model": {`), 0o644)
		r := e.Run("-p", "hi")
		if r.Code != 52 || !strings.Contains(r.Stderr, "settings.json") {
			t.Errorf("exit %d stderr %q", r.Code, r.Stderr)
		}
	})
	t.Run("turn limit", func(t *testing.T) {
		e := e2etest.New(t, fakegemini.Call("list_directory", map[string]any{"path": "."}), fakegemini.Text("x"))
		os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755)
		os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), []byte(`{"model": {"maxSessionTurns": 1}}`), 0o644)
		r := e.Run("-p", "hi")
		if r.Code != 53 {
			t.Errorf("exit %d stderr %q", r.Code, r.Stderr)
		}
	})
	t.Run("no prompt", func(t *testing.T) {
		e := e2etest.New(t)
		r := e.Run()
		if r.Code != 42 {
			t.Errorf("exit %d stderr %q", r.Code, r.Stderr)
		}
	})
}

func TestVersionAndSessions(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("one"))
	r := e.Run("--version")
	if r.Code != 0 || strings.TrimSpace(r.Stdout) == "" {
		t.Fatalf("--version: %d %q", r.Code, r.Stdout)
	}
	if r := e.Run("--list-sessions"); r.Code != 0 || !strings.Contains(r.Stdout, "No previous sessions") {
		t.Errorf("empty list: %d %q", r.Code, r.Stdout)
	}
	e.Run("-p", "first prompt")
	r = e.Run("--list-sessions")
	if r.Code != 0 || !strings.Contains(r.Stdout, "1. first prompt") {
		t.Errorf("list: %d %q", r.Code, r.Stdout)
	}
	r = e.Run("--delete-session", "1")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Deleted session 1") {
		t.Errorf("delete: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	e.Srv.Enqueue(fakegemini.Text("fresh"))
	if r := e.Run("--resume", "latest", "-p", "x"); r.Code != 0 || r.Stdout != "fresh\n" || !strings.Contains(r.Stderr, "Starting a new session") {
		t.Errorf("resume latest with no sessions must start afresh: exit %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := e.Run("--resume", "7", "-p", "x"); r.Code != 42 || !strings.Contains(r.Stderr, "Error resuming session") {
		t.Errorf("resume of a missing index: exit %d %q", r.Code, r.Stderr)
	}
}

func TestMemoryFiles(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("ok"))
	os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(e.Home, ".gemini", "GEMINI.md"), []byte("Always answer in French."), 0o644)
	e.Write("GEMINI.md", "Project rule: use tabs.\n@extra.md\n")
	e.Write("extra.md", "Imported rule: no globals.")
	if r := e.Run("-p", "hi"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	req := e.Srv.LastRequest()
	if si := req.SystemInstruction.Parts[0].Text; !strings.Contains(si, "Always answer in French.") {
		t.Errorf("global memory missing from the system instruction")
	}
	env := req.Contents[0].Parts[0].Text
	for _, want := range []string{"Project rule: use tabs.", "Imported rule: no globals.", "--- Context from: "} {
		if !strings.Contains(env, want) {
			t.Errorf("environment context lacks %q:\n%s", want, env)
		}
	}
	if strings.Contains(req.SystemInstruction.Parts[0].Text, "Project rule") {
		t.Error("project memory must not be in the system instruction")
	}
}

func TestPipedStdinWithPrompt(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("ok"), fakegemini.Text("ok"))
	run := func(stdin string, args ...string) {
		t.Helper()
		cmd := e2etest.Command(t, args...)
		cmd.Dir = e.WS
		cmd.Env = []string{"HOME=" + e.Home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=k",
			"GOOGLE_GEMINI_BASE_URL=" + e.Srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true"}
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	run("diff --git a b\n", "-p", "Review this change")
	parts := e.Srv.LastRequest().Contents[0].Parts
	if got := parts[len(parts)-1].Text; got != "diff --git a b\n\nReview this change" {
		t.Errorf("stdin + -p = %q", got)
	}
	run("just stdin")
	parts = e.Srv.LastRequest().Contents[0].Parts
	if got := parts[len(parts)-1].Text; got != "just stdin" {
		t.Errorf("stdin alone = %q", got)
	}
}

// TestOpenStdinDoesNotHang: started as `sleep 30 | castor -p hi` would be
// (an editor's pipe that is neither written nor closed), castor answers
// the prompt and exits instead of waiting for the end of stdin.
func TestOpenStdinDoesNotHang(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("ok"))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := e2etest.DieWithTest(exec.CommandContext(ctx, e2etest.Binary(t), "-p", "hi"))
	cmd.Dir = e.WS
	cmd.Env = []string{"HOME=" + e.Home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=k",
		"GOOGLE_GEMINI_BASE_URL=" + e.Srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true"}
	cmd.Stdin = r
	out, err := cmd.Output()
	r.Close()
	if ctx.Err() != nil {
		t.Fatal("castor was still waiting for stdin after 20 s")
	}
	if err != nil || string(out) != "ok\n" {
		t.Fatalf("err %v, stdout %q", err, out)
	}
	parts := e.Srv.LastRequest().Contents[0].Parts
	if got := parts[len(parts)-1].Text; got != "hi" {
		t.Errorf("prompt = %q", got)
	}
}

// TestHeadlessCommandShellBlocked: a custom command whose !{...} the
// policy refuses in a headless run ends as Gemini CLI 0.61's does: exit
// 1, the reason on stderr (in -o json the error object too, stdout left
// empty), and no model call.
func TestHeadlessCommandShellBlocked(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e2etest.WriteFiles(t, e.WS, map[string]string{".gemini/commands/st.toml": "prompt = \"Status: !{git status}\"\n"})
	want := `command /st: cannot be run. Blocked command: "git status".`
	r := e.Run("-p", "/st")
	if r.Code != 1 || !strings.Contains(r.Stderr, want) || r.Stdout != "" {
		t.Errorf("text: exit %d\nstdout %q\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	r = e.Run("-o", "json", "-p", "/st")
	if r.Code != 1 || r.Stdout != "" || !strings.Contains(r.Stderr, `"type": "Error"`) || !strings.Contains(r.Stderr, "Blocked command") {
		t.Errorf("json: exit %d\nstdout %q\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if n := len(e.Srv.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}
