package ide_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// editor is `castor ide serve` run as a test's editor: it reads the
// companion's messages and writes the editor's events.
type editor struct {
	t    *testing.T
	in   io.WriteCloser
	msgs chan map[string]any
}

// startEditor runs castor ide serve for workspace ws in environ, and
// waits for it to be ready.
func startEditor(t *testing.T, ws string, environ []string) *editor {
	t.Helper()
	serve := e2etest.Command(t, "ide", "serve", "--workspace", ws, "--pid", strconv.Itoa(os.Getpid()), "--ide-name", "testeditor")
	serve.Env = environ
	in, _ := serve.StdinPipe()
	out, _ := serve.StdoutPipe()
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); serve.Wait() })
	ed := &editor{t: t, in: in, msgs: make(chan map[string]any, 16)}
	go func() {
		defer close(ed.msgs)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				ed.msgs <- m
			}
		}
	}()
	ed.await("ready")
	return ed
}

// await returns the companion's next message of type typ.
func (ed *editor) await(typ string) map[string]any {
	ed.t.Helper()
	for {
		select {
		case m, ok := <-ed.msgs:
			if !ok {
				ed.t.Fatalf("castor ide serve ended before %s", typ)
			}
			if m["type"] == typ {
				return m
			}
		case <-time.After(time.Minute): // a hang, not a timing assertion
			ed.t.Fatalf("no %s from castor ide serve", typ)
		}
	}
}

// send writes one editor event.
func (ed *editor) send(event map[string]any) {
	ed.t.Helper()
	line, _ := json.Marshal(event)
	if _, err := fmt.Fprintf(ed.in, "%s\n", line); err != nil {
		ed.t.Fatal(err)
	}
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
	select {
	case m, ok := <-ed.msgs:
		if ok && m["type"] == "openDiff" {
			t.Errorf("an edit opened a diff after /ide disable: %v", m)
		}
	default:
	}
}
