package a2a_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/setup"
)

// withSessionCommands configures the server as `castor a2a-server` does.
func withSessionCommands() option {
	return func(c *a2a.Config) {
		c.Commands = setup.WithSessionCommands(command.DefaultRegistry())
	}
}

func listedNames(t *testing.T, cmds []any) []string {
	t.Helper()
	var names []string
	for _, c := range cmds {
		names = append(names, dig(c, "name").(string))
	}
	return names
}

func executeCommand(t *testing.T, h *harness, body string) (int, string) {
	t.Helper()
	resp := h.post("/executeCommand", body)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestSessionCommandsListed: /listCommands and commands/get list the
// commands a task's session accepts (/compress, /skills, /hooks beside
// the built-ins) without any task; with a task id they list that task's
// session's registry, and /executeCommand with it runs there.
func TestSessionCommandsListed(t *testing.T) {
	h := newHarness(t, withSessionCommands())
	want := []string{"compress", "extensions", "hooks", "init", "memory", "restore", "skills"}
	for name, cmds := range map[string][]any{
		"/listCommands": asSlice(dig(decode(t, h.get("/listCommands")), "commands")),
		"commands/get":  asSlice(dig(h.rpc("commands/get", map[string]any{}, extHeader()...), "result", "commands")),
	} {
		got := listedNames(t, cmds)
		for _, n := range want {
			if !slices.Contains(got, n) {
				t.Errorf("%s lacks %s: %v", name, n, got)
			}
		}
	}
	// Listed without a task, a session command says what it needs.
	if code, body := executeCommand(t, h, `{"command":"compress"}`); code != http.StatusOK || !strings.Contains(body, "acts on a task's session") {
		t.Errorf("compress without a task: HTTP %d %s", code, body)
	}

	h.fake.Enqueue(fakegemini.Text("hello"))
	id := taskID(h.stream(userMessage("hi", geminiSettings(h.ws), "")))
	if id == "" {
		t.Fatal("no task")
	}
	got := listedNames(t, asSlice(dig(decode(t, h.get("/listCommands?taskId="+id)), "commands")))
	for _, n := range want {
		if !slices.Contains(got, n) {
			t.Errorf("/listCommands?taskId lacks %s: %v", n, got)
		}
	}
	got = listedNames(t, asSlice(dig(h.rpc("commands/get", map[string]any{"taskId": id}, extHeader()...), "result", "commands")))
	if !slices.Contains(got, "compress") || !slices.Contains(got, "skills") {
		t.Errorf("commands/get {taskId} = %v", got)
	}
	// Run on the task's session: its conversation is too short to compress.
	if code, body := executeCommand(t, h, `{"command":"compress","taskId":"`+id+`"}`); code != http.StatusOK || !strings.Contains(body, "Nothing to compress") {
		t.Errorf("compress on the task: HTTP %d %s", code, body)
	}
	if code, body := executeCommand(t, h, `{"command":"skills","taskId":"`+id+`"}`); code != http.StatusOK || !strings.Contains(body, "No skills discovered.") {
		t.Errorf("skills on the task: HTTP %d %s", code, body)
	}
	res := h.rpc("command/execute", map[string]any{"command_path": []string{"compress"}, "taskId": id}, extHeader()...)
	exec, _ := dig(res, "result", "execution_id").(string)
	text, _ := dig(asSlice(dig(h.rpc("tasks/get", map[string]any{"id": exec}), "result", "status", "message", "parts"))[0], "text").(string)
	if !strings.Contains(text, "Nothing to compress") {
		t.Errorf("command/execute compress on the task: %v", res)
	}

	// A task's commands run in its workspace, not the server's (trusted,
	// so that its GEMINI.md is read).
	settings := filepath.Join(h.home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"security": {"folderTrust": {"enabled": false}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(filepath.Dir(h.ws), "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "GEMINI.md"), []byte("Other workspace rules.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.fake.Enqueue(fakegemini.Text("hello"))
	otherID := taskID(h.stream(userMessage("hi", geminiSettings(other), "")))
	if code, body := executeCommand(t, h, `{"command":"memory show","taskId":"`+otherID+`"}`); code != http.StatusOK || !strings.Contains(body, "Other workspace rules.") {
		t.Errorf("memory show on a task in another workspace: HTTP %d %s", code, body)
	}
	if _, body := executeCommand(t, h, `{"command":"memory show"}`); strings.Contains(body, "Other workspace rules.") {
		t.Errorf("memory show without a task reads the task's workspace: %s", body)
	}

	if resp := h.get("/listCommands?taskId=nope"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("list for an unknown task: HTTP %d", resp.StatusCode)
	}
	if code, _ := executeCommand(t, h, `{"command":"compress","taskId":"nope"}`); code != http.StatusNotFound {
		t.Errorf("execute on an unknown task: HTTP %d", code)
	}
	if code, _ := executeCommand(t, h, `{"command":"compress","taskId":3}`); code != http.StatusBadRequest {
		t.Errorf("taskId not a string: HTTP %d", code)
	}
	if res := h.rpc("commands/get", map[string]any{"taskId": "nope"}, extHeader()...); dig(res, "error", "code") != float64(a2a.CodeTaskNotFound) {
		t.Errorf("commands/get unknown task = %v", res)
	}
}

// TestCLIServerListsSessionCommands: `castor a2a-server` lists the
// session commands.
func TestCLIServerListsSessionCommands(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GEMINI_CLI_HOME", filepath.Join(root, "home"))
	srv := startCLIServer(t, fakegemini.Start(t).URL, ws, root)
	defer srv.stop()
	resp, err := http.Get(srv.url + "listCommands")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := listedNames(t, asSlice(dig(decode(t, resp), "commands")))
	for _, n := range []string{"compress", "skills", "hooks", "memory"} {
		if !slices.Contains(got, n) {
			t.Errorf("castor a2a-server /listCommands lacks %s: %v", n, got)
		}
	}
}

// TestTerminalCommandsNotServed: a command only the terminal offers is
// neither listed nor run by the A2A server, though its registry holds it.
func TestTerminalCommandsNotServed(t *testing.T) {
	reg := command.DefaultRegistry()
	reg.Register(&command.Command{Name: "clear", Description: "Clear the screen.", Faces: command.FaceTerminal,
		Execute: func(context.Context, *command.Invocation) (*command.Result, error) {
			return command.Info("cleared"), nil
		}})
	h := newHarness(t, func(c *a2a.Config) { c.Commands = reg })
	for name, cmds := range map[string][]any{
		"/listCommands": asSlice(dig(decode(t, h.get("/listCommands")), "commands")),
		"commands/get":  asSlice(dig(h.rpc("commands/get", map[string]any{}, extHeader()...), "result", "commands")),
	} {
		got := listedNames(t, cmds)
		if slices.Contains(got, "clear") || !slices.Contains(got, "memory") {
			t.Errorf("%s lists %v", name, got)
		}
	}
	if code, body := executeCommand(t, h, `{"command":"clear"}`); code != http.StatusNotFound || strings.Contains(body, "cleared") {
		t.Errorf("/executeCommand clear: HTTP %d %s", code, body)
	}
}
