package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

func TestTUIStartupAndQuit(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	tm.Golden("startup", tm.WaitFor("context left"))
	if n := len(e.Srv.Requests()); n != 0 {
		t.Errorf("start-up made %d model calls", n)
	}
	tm.Keys("C-d")
	s := tm.WaitFor("[exited]")
	// Nothing was said, so nothing was recorded: a --resume hint would
	// point at a session that does not exist (TestTUIExitClearsLiveArea
	// sees the hint after a prompt).
	if strings.Contains(s, "To resume it") {
		t.Errorf("a resume hint for a session never recorded:\n%s", s)
	}
}

const markdownAnswer = "# Plan\n\nThree steps:\n\n1. **Read** the code\n2. Write the `fix`\n3. Run the tests\n\n" +
	"```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```\n\n| tool | use |\n| --- | --- |\n| go | build |\n\nDone.\n"

func TestTUIStreamedMarkdown(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	// The answer arrives in small pieces, cut in the middle of blocks.
	var pieces []string
	for i := 0; i < len(markdownAnswer); i += 7 {
		pieces = append(pieces, markdownAnswer[i:min(i+7, len(markdownAnswer))])
	}
	e.Srv.Enqueue(fakegemini.Text(pieces...))
	tm := e.StartTUI("Make a plan")
	tm.Golden("markdown", tm.WaitFor("Done."))
	if n := len(e.Srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
}

func TestTUIToolCall(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write("README.md", e2etest.Readme)
	e.Srv.Enqueue(
		fakegemini.Parts(fakegemini.ThoughtPart("**Reading the README**\n\nFirst look."), fakegemini.CallPart("read_file", map[string]any{"absolute_path": filepath.Join(e.WS, "README.md")})),
		fakegemini.Text("The README describes a demo project."),
	)
	tm := e.StartTUI("-i", "What is this project?")
	tm.Golden("tool_call", tm.WaitFor("describes a demo project"))
}

func TestTUIEditAcceptedWithEnter(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write("notes.txt", "one\ntwo\nthree\n")
	e.Srv.Enqueue(
		fakegemini.Call("replace", map[string]any{"file_path": filepath.Join(e.WS, "notes.txt"), "old_string": "two", "new_string": "TWO", "instruction": "shout two"}),
		fakegemini.Text("Changed it."),
	)
	tm := e.StartTUI()
	tm.Submit("Shout the second line")
	tm.Golden("edit_dialog", tm.WaitFor("Apply this change?"))
	tm.Keys("Enter")
	tm.Golden("edit_accepted", tm.WaitFor("Changed it."))
	if got, _ := os.ReadFile(filepath.Join(e.WS, "notes.txt")); string(got) != "one\nTWO\nthree\n" {
		t.Errorf("notes.txt = %q", got)
	}
}

func TestTUIShellRejected(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Call("run_shell_command", map[string]any{"command": "touch pwned"}))
	tm := e.StartTUI()
	tm.Submit("Create a file")
	tm.WaitFor("Allow execution of: touch?")
	tm.Keys("Escape")
	tm.WaitFor("What should the model do instead?")
	tm.Keys("Enter") // no note: just reject
	tm.Golden("shell_rejected", tm.WaitFor("Rejected."))
	if _, err := os.Stat(filepath.Join(e.WS, "pwned")); err == nil {
		t.Error("the rejected command ran")
	}
	// The next prompt carries the cancelled response to the model.
	e.Srv.Enqueue(fakegemini.Text("Understood, no file."))
	tm.Submit("Never mind")
	tm.WaitFor("Understood, no file.")
	reqs := e.Srv.Requests()
	last := reqs[len(reqs)-1].Contents
	if !strings.Contains(e2etest.MustJSON(last), "User denied execution") {
		t.Errorf("the cancelled response is not in the next request: %s", e2etest.MustJSON(last))
	}
}

func TestTUIHelp(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	tm.TypeText("/he")
	tm.WaitFor("/help  Show the commands") // the completion list
	tm.Keys("Tab")                         // completes the command
	tm.WaitFor("> /help")
	tm.Keys("Enter")
	tm.Golden("help", tm.WaitFor("Ctrl-D"))
}

func TestTUIEscCancelsTurn(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Hang())
	tm := e.StartTUI()
	tm.Submit("Take your time")
	tm.WaitFor("esc to cancel")
	tm.Keys("Escape")
	tm.Golden("cancelled", tm.WaitFor("Request cancelled."))
	// The session goes on: history stays valid for the next prompt.
	e.Srv.Enqueue(fakegemini.Text("Back again."))
	tm.Submit("Hello?")
	tm.WaitFor("Back again.")
}

func TestTUIResize(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Text("A line long enough to be wrapped once the terminal gets narrower than it is now, which it will."))
	tm := e.StartTUI("Say something long")
	tm.WaitFor("will.")
	tm.Tmux("resize-window", "-t", "main", "-x", "60", "-y", "20")
	// The terminal reflows what was printed, and the live area is drawn
	// again at the new width. Bubble Tea's inline renderer may leave rows
	// of the old, wider live area (reflowed by the terminal) between the
	// two; that is cosmetic, so the conversation on top and the live area
	// at the bottom are compared, not the rows between them.
	want, err := os.ReadFile(filepath.Join("testdata", "tui", "resized.txt"))
	if err != nil {
		t.Fatal(err)
	}
	wantLines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	top, live := wantLines[:len(wantLines)-4], wantLines[len(wantLines)-4:]
	resized := func(s string) bool {
		gotLines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		return len(gotLines) >= len(wantLines) &&
			strings.Join(gotLines[:len(top)], "\n") == strings.Join(top, "\n") &&
			strings.Join(gotLines[len(gotLines)-len(live):], "\n") == strings.Join(live, "\n")
	}
	// The redraw at the new width may come a while after the resize on a
	// loaded machine: wait for it.
	if s, ok := tm.Poll(resized); !ok {
		t.Errorf("screen after resize:\n%s\n--- want (top and bottom of)\n%s", s, want)
	}
}

func TestTUIResume(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Text("The **first** answer."))
	r := e.Run("-p", "First question")
	if r.Code != 0 {
		t.Fatalf("headless run: exit %d: %s", r.Code, r.Stderr)
	}
	tm := e.StartTUI("--resume")
	tm.Golden("resumed", tm.WaitFor("Resumed session"))
}

func TestTUIPromptInteractiveNeedsTerminal(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	r := e.Run("-i", "hello")
	if r.Code != 42 || !strings.Contains(r.Stderr, "--prompt-interactive flag cannot be used when input is piped") {
		t.Errorf("exit %d, stderr %q", r.Code, r.Stderr)
	}
}

func TestTUIShellMode(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write("hello.txt", "hi\n")
	tm := e.StartTUI()
	tm.Submit("!ls")
	tm.WaitFor("(exit 0)")
	// "!" turned shell mode on, as in Gemini CLI 0.61; Esc leaves it.
	tm.Keys("Escape")
	tm.WaitFor("Type your message")
	// The command and its output reach the model with the next prompt.
	e.Srv.Enqueue(fakegemini.Text("I saw hello.txt."))
	tm.Submit("What did you see?")
	s := tm.WaitFor("I saw hello.txt.")
	if !strings.Contains(s, "hello.txt") {
		t.Errorf("no ls output on screen:\n%s", s)
	}
	reqs := e.Srv.Requests()
	if got := e2etest.MustJSON(reqs[len(reqs)-1].Contents); !strings.Contains(got, "I ran the following shell command") || !strings.Contains(got, "hello.txt") {
		t.Errorf("the shell command is not in the conversation: %s", got)
	}
}
