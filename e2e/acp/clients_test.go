package acp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// acpClientDir is acp/testdata, where npm ci installs the pinned
// @agentclientprotocol/sdk client.
func acpClientDir(t *testing.T) (node, dir string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir = filepath.Join(filepath.Dir(file), "..", "..", "acp", "testdata")
	return e2etest.NodeClient(t, dir, "@agentclientprotocol/sdk"), dir
}

// runACPClient runs acp/testdata/client.mjs against the built binary and
// returns its steps by name.
func runACPClient(t *testing.T, e *e2etest.Env, extra ...string) map[string]map[string]any {
	t.Helper()
	node, dir := acpClientDir(t)
	return e.RunClient(node, dir, append([]string{"ACP_WORKSPACE=" + e.WS}, extra...)...)
}

// TestACPInteropNpmClient drives `castor --acp` with the official ACP
// client: initialize, a new session, a prompt streaming thoughts and text,
// a write_file allowed through session/request_permission and written by
// the client's fs/write_text_file, a shell call rejected, a turn cancelled
// while a permission is pending, then session/load in a new process
// replaying everything with the session file intact.
func TestACPInteropNpmClient(t *testing.T) {
	t.Parallel()
	acpClientDir(t)
	e := e2etest.New(t)
	target := filepath.Join(e.WS, "out.txt")
	e.Srv.Enqueue(
		fakegemini.Parts(fakegemini.ThoughtPart("**Planning** a greeting"), fakegemini.TextPart("hello "), fakegemini.TextPart("world")),
		fakegemini.Text("summary"),
		fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "written by castor\n"}),
		fakegemini.Text("wrote it"),
		fakegemini.Call("run_shell_command", map[string]any{"command": "printf rejected"}),
		fakegemini.Text("as you wish"),
		fakegemini.Call("run_shell_command", map[string]any{"command": "printf cancelled"}),
	)
	steps := runACPClient(t, e, "ACP_STEP=run")
	check := func(step, key string, want any) {
		t.Helper()
		if got := e2etest.MustJSON(steps[step][key]); got != e2etest.MustJSON(want) {
			t.Errorf("%s.%s = %s, want %s", step, key, got, e2etest.MustJSON(want))
		}
	}
	check("initialize", "protocolVersion", 1)
	check("initialize", "loadSession", true)
	check("initialize", "auth", []string{"gemini-api-key", "vertex-ai", "compute-default-credentials"})
	check("new", "modes", []string{"default", "autoEdit", "yolo", "plan"})
	check("new", "current", "default")
	check("new", "updates", []string{"available_commands_update"})
	check("text", "stopReason", "end_turn")
	check("text", "updates", []string{"agent_thought_chunk:**Planning**\na greeting", "agent_message_chunk:hello ", "agent_message_chunk:world"})
	check("context", "updates", []string{"agent_message_chunk:summary"})
	if reqs := e.Srv.Requests(); len(reqs) < 2 {
		t.Errorf("%d model requests", len(reqs))
	} else {
		var text, mime string
		for _, p := range reqs[1].Contents[len(reqs[1].Contents)-1].Parts {
			text += p.Text
			if p.InlineData != nil {
				mime = p.InlineData.MIMEType
			}
		}
		if !strings.Contains(text, "summarise these") || !strings.Contains(text, "Content from @notes.md:\nunsaved notes") || mime != "image/png" {
			t.Errorf("the prompt's context reached the model as %q with %q", text, mime)
		}
	}
	check("write", "stopReason", "end_turn")
	check("write", "permissions", []map[string]any{{"title": "Writing to out.txt", "kind": "edit",
		"options": []string{"proceed_once:allow_once", "proceed_always:allow_always", "cancel:reject_once"}}})
	check("write", "writes", []map[string]any{{"path": target, "content": "written by castor\n"}})
	check("write", "diff", map[string]any{"_meta": map[string]any{"kind": "add"}, "type": "diff", "path": target, "newText": "written by castor\n"})
	check("write", "updates", []string{"tool_call:edit:pending:Writing to out.txt", "tool_call_update:in_progress", "tool_call_update:completed", "agent_message_chunk:wrote it"})
	if b, err := os.ReadFile(target); err != nil || string(b) != "written by castor\n" {
		t.Errorf("out.txt = %q, %v", b, err)
	}
	check("shell", "stopReason", "end_turn")
	// A Reject is told to the model, which answers in the same turn, as
	// Gemini CLI 0.61's ACP agent does.
	check("shell", "updates", []string{"tool_call:execute:pending:printf rejected", "tool_call_update:failed", "agent_message_chunk:as you wish"})
	if reqs := e.Srv.Requests(); len(reqs) < 6 {
		t.Errorf("%d model requests, want the model asked again after the Reject", len(reqs))
	} else {
		last := reqs[5].Contents[len(reqs[5].Contents)-1]
		if got, want := e2etest.MustJSON(last.Parts[0].FunctionResponse.Response), `{"error":"Tool \"run_shell_command\" was canceled by the user."}`; got != want {
			t.Errorf("after the Reject the model got %s, want %s", got, want)
		}
	}
	check("cancel", "stopReason", "cancelled")
	check("exit", "code", 0)
	sessionID, _ := steps["new"]["sessionId"].(string)
	file := e.SessionFile()
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	steps = runACPClient(t, e, "ACP_STEP=load", "ACP_SESSION="+sessionID)
	check("list", "ids", []string{sessionID})
	check("load", "updates", []string{
		"user_message_chunk:say hello", "agent_thought_chunk:**Planning**\na greeting", "agent_message_chunk:hello world",
		"user_message_chunk:summarise these", "user_message_chunk:image",
		"user_message_chunk:\n--- Content from referenced files ---\nContent from @notes.md:\nunsaved notes\n--- End of content ---", "agent_message_chunk:summary",
		"user_message_chunk:write the file", "tool_call:edit:completed:Writing to out.txt", "agent_message_chunk:wrote it",
		"user_message_chunk:run a command", "tool_call:execute:failed:printf rejected", "agent_message_chunk:as you wish",
		"user_message_chunk:run another", "tool_call:execute:failed:printf cancelled",
		"available_commands_update",
	})
	check("unknown", "code", -32602)
	check("exit", "code", 0)
	after, err := os.ReadFile(e.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, before) {
		t.Errorf("session/load rewrote the session file:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestACPRawWire speaks raw JSON lines to `castor --acp`: bad lines and
// unknown methods get JSON-RPC errors, stdout carries nothing else, and a
// client that goes away mid-turn ends the process cleanly with the
// session recorded.
func TestACPRawWire(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Hang())
	w := e.Start(e2etest.Options{Stdin: true, Env: []string{
		"HOME=" + e.Home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=test-key",
		"GOOGLE_GEMINI_BASE_URL=" + e.Srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true",
	}}, "--acp")
	send := w.Send
	// next returns the next message that answers id (a number, or nil for
	// errors without one), skipping notifications.
	next := func(id any) map[string]any {
		t.Helper()
		for {
			var m map[string]any
			if json.Unmarshal([]byte(w.Line(fmt.Sprintf("answer for id %v", id))), &m) != nil {
				continue // reported with the other lines that are not JSON, at the end
			}
			if _, isNote := m["method"]; isNote {
				continue
			}
			if e2etest.MustJSON(m["id"]) == e2etest.MustJSON(id) {
				return m
			}
			t.Fatalf("unexpected message %v", m)
		}
	}
	code := func(m map[string]any) any {
		errObj, _ := m["error"].(map[string]any)
		return errObj["code"]
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	if m := next(1.0); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"initialize",`) // cut short
	if c := code(next(nil)); c != -32700.0 {
		t.Errorf("malformed line: code %v", c)
	}
	send(`[1,2,3]`)
	if c := code(next(nil)); c != -32600.0 {
		t.Errorf("non-object line: code %v", c)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"session/teleport","params":{}}`)
	if c := code(next(3.0)); c != -32601.0 {
		t.Errorf("unknown method: code %v", c)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`)
	if c := code(next(4.0)); c != -32602.0 {
		t.Errorf("unknown session: code %v", c)
	}
	send(`{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":` + e2etest.MustJSON(e.WS) + `,"mcpServers":[]}}`)
	res, _ := next(5.0)["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v", res)
	}
	// The model never answers; the client leaves mid-turn.
	send(`{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"wait for me"}]}}`)
	e2etest.AwaitModelCall(t, e.Srv)
	w.CloseStdin()
	if err := w.Wait(); err != nil {
		t.Errorf("castor --acp exited with %v; stderr:\n%s", err, w.Stderr)
	}
	for _, line := range strings.Split(strings.TrimSuffix(w.Stdout.String(), "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("stdout line is not JSON: %q", line)
		}
	}
	if s := w.Stderr.String(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
		t.Fatalf("stack trace on stderr:\n%s", s)
	}
	b, err := os.ReadFile(e.SessionFile())
	if err != nil || !strings.Contains(string(b), sid) || !strings.Contains(string(b), "wait for me") {
		t.Errorf("session file lost the turn: %v\n%s", err, b)
	}
}

// TestACPStdoutIsProtocolOnly checks that both flags keep stdout to
// protocol messages: the deprecation of --experimental-acp is reported
// on stderr.
func TestACPStdoutIsProtocolOnly(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--acp", "--experimental-acp"} {
		t.Run(flag, func(t *testing.T) {
			e := e2etest.New(t)
			cmd := e2etest.Command(t, flag)
			cmd.Dir = e.WS
			cmd.Env = []string{"HOME=" + e.Home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=k", "GOOGLE_GEMINI_BASE_URL=" + e.Srv.URL}
			cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			if len(lines) != 1 || !json.Valid([]byte(lines[0])) || !strings.Contains(lines[0], `"protocolVersion":1`) {
				t.Errorf("stdout:\n%s", stdout.String())
			}
			if deprecated := strings.Contains(stderr.String(), "deprecated"); deprecated != (flag == "--experimental-acp") {
				t.Errorf("stderr:\n%s", stderr.String())
			}
		})
	}
}

// TestACPClientVanishes closes both of the client's pipes mid-turn: the
// process ends without a signal or a stack trace and the session file
// keeps the turn.
func TestACPClientVanishes(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Hang())
	w := &rawACP{e.Start(e2etest.Options{Stdin: true, Env: []string{"HOME=" + e.Home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=k", "GOOGLE_GEMINI_BASE_URL=" + e.Srv.URL}}, "--acp"), t}
	w.prompt(3, w.session(e.WS), "vanishing")
	e2etest.AwaitModelCall(t, e.Srv)
	w.CloseStdout()
	w.CloseStdin()
	if err := w.Wait(); err != nil {
		t.Errorf("exit: %v; stderr:\n%s", err, w.Stderr)
	}
	assertTurnKept(e, t, w.Stderr.String(), "vanishing")
}

// assertTurnKept fails when castor's stderr holds a stack trace or the
// session file lost the turn whose prompt holds word.
func assertTurnKept(e *e2etest.Env, t *testing.T, stderr, word string) {
	t.Helper()
	if strings.Contains(stderr, "panic:") || strings.Contains(stderr, "goroutine ") {
		t.Fatalf("stack trace:\n%s", stderr)
	}
	if b, err := os.ReadFile(e.SessionFile()); err != nil || !strings.Contains(string(b), word) {
		t.Errorf("session file lost the turn: %v\n%s", err, b)
	}
}

// TestACPGoClient drives the binary with the SDK's Go client (acp.Start).
func TestACPGoClient(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("hello from the binary"))
	var mu sync.Mutex
	var text strings.Builder
	c, sid, stderr := e2etest.StartACPClient(t, e, acp.Handler{Update: func(_ context.Context, n sdk.SessionNotification) {
		if u := n.Update.AgentMessageChunk; u != nil && u.Content.Text != nil {
			mu.Lock()
			text.WriteString(u.Content.Text.Text)
			mu.Unlock()
		}
	}})
	r, err := c.PromptText(context.Background(), sid, "hi")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("close: %v; stderr:\n%s", err, stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if r.StopReason != sdk.StopReasonEndTurn || text.String() != "hello from the binary" {
		t.Errorf("stop %s, text %q", r.StopReason, text.String())
	}
}
