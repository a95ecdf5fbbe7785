package ide_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// editor is `castor ide serve` run as a test's editor: it reads the
// companion's messages and writes the editor's events.
type editor struct {
	*e2etest.Process
	t *testing.T
}

// startEditor runs castor ide serve for workspace ws in environ, and
// waits for it to be ready. It ends as an editor closes, with its input.
func startEditor(t *testing.T, ws string, environ []string) *editor {
	t.Helper()
	ed := &editor{e2etest.Start(t, e2etest.Options{Env: environ, Stdin: true},
		"ide", "serve", "--workspace", ws, "--pid", strconv.Itoa(os.Getpid()), "--ide-name", "testeditor"), t}
	t.Cleanup(func() { ed.CloseStdin(); _ = ed.Wait() })
	ed.await("ready")
	return ed
}

// await returns the companion's next message of type typ.
func (ed *editor) await(typ string) map[string]any {
	ed.t.Helper()
	var m map[string]any
	ed.LineWhere(typ+" from castor ide serve", func(line string) bool {
		m = nil
		return json.Unmarshal([]byte(line), &m) == nil && m["type"] == typ
	})
	return m
}

// send writes one editor event.
func (ed *editor) send(event map[string]any) {
	ed.t.Helper()
	line, _ := json.Marshal(event)
	ed.Send(string(line))
}

// ideShown says the footer, the screen's last row, shows the IDE
// connection (the workspace path before it may hold "IDE" too).
func ideShown(s string) bool {
	return strings.Contains(s[strings.LastIndex(strings.TrimSuffix(s, "\n"), "\n")+1:], " IDE")
}

// TestTUIIDEEnableMidSession: a session started without IDE mode connects
// to the editor on /ide enable, as Gemini CLI's does: the footer says
// IDE, the next prompt carries the editor's context, and an edit opens as
// a diff in the editor, whose accept applies it. /ide disable
// disconnects: the footer drops IDE and the next edit is asked about in
// the terminal.
func TestTUIIDEEnableMidSession(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tmp := t.TempDir()
	ideEnv := []string{"TMPDIR=" + tmp, "GEMINI_CLI_IDE_PID=" + strconv.Itoa(os.Getpid())}
	ed := startEditor(t, e.WS, append(e.Environ(), ideEnv...))
	focused := filepath.Join(e.WS, "main.go")
	e.Write("main.go", "package main\n")
	ed.send(map[string]any{"type": "focused", "path": focused, "cursor": map[string]any{"line": 1, "character": 1}})

	e.TUIEnv = ideEnv
	tm := e.StartTUI()
	if s := tm.Screen(); ideShown(s) {
		t.Fatalf("connected before /ide enable:\n%s", s)
	}
	tm.Submit("/ide status")
	tm.WaitFor("IDE: not connected")

	tm.Submit("/ide enable")
	tm.WaitFor("Connected to testeditor.")
	tm.WaitUntil("IDE in the footer", func(s string) bool { return ideShown(s) })
	tm.Submit("/ide status")
	tm.WaitFor("Connected to testeditor")

	target := filepath.Join(e.WS, "hello.txt")
	e.Srv.Enqueue(
		fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "hello\n"}),
		fakegemini.Text("Wrote it."),
	)
	tm.Submit("write hello.txt")
	diff := ed.await("openDiff")
	if diff["path"] != target {
		t.Fatalf("openDiff %v, want %s", diff, target)
	}
	ed.send(map[string]any{"type": "diffAccepted", "path": target})
	tm.WaitFor("Wrote it.")
	if got, _ := os.ReadFile(target); string(got) != "hello\n" {
		t.Errorf("hello.txt = %q after the diff was accepted", got)
	}
	if reqs := e.Srv.Requests(); len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "editor context") || !strings.Contains(string(reqs[0].Body), "main.go") {
		t.Errorf("the first prompt after /ide enable carried no editor context")
	}

	tm.Submit("/ide disable")
	tm.WaitFor("disconnected from the IDE")
	tm.WaitUntil("no IDE in the footer", func(s string) bool { return !ideShown(s) })
	second := filepath.Join(e.WS, "second.txt")
	e.Srv.Enqueue(
		fakegemini.Call("write_file", map[string]any{"file_path": second, "content": "two\n"}),
		fakegemini.Text("Second done."),
	)
	tm.Submit("write second.txt")
	tm.WaitFor("Apply this change?")
	tm.Keys("Enter")
	tm.WaitFor("Second done.")
	if got, _ := os.ReadFile(second); string(got) != "two\n" {
		t.Errorf("second.txt = %q", got)
	}
	for line := range ed.Unread() {
		if m := map[string]any(nil); json.Unmarshal([]byte(line), &m) == nil && m["type"] == "openDiff" {
			t.Errorf("an edit opened a diff after /ide disable: %v", m)
		}
	}
}
