package tui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestTUIRewind: /rewind's picker takes the conversation back to before
// the prompt that edited a file; the checkpoint taken before the edit
// restores the file, the prompt comes back to the editor, the next
// prompt goes without the rewound exchange, and --resume shows the
// rewound history too.
func TestTUIRewind(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.WriteUserSettings(`{"general":{"checkpointing":{"enabled":true}}}`)
	notes := filepath.Join(e.WS, "notes.txt")
	e.Write("notes.txt", "v1\n")
	e.Srv.Enqueue(
		fakegemini.Text("Answer one."),
		fakegemini.Call("write_file", map[string]any{"file_path": notes, "content": "v2\n"}),
		fakegemini.Text("Wrote v2."),
		fakegemini.Text("Answer three."),
	)
	tm := e.StartTUI("--approval-mode", "auto_edit")
	tm.Submit("first question")
	tm.WaitFor("Answer one.")
	tm.Submit("make notes v2")
	tm.WaitFor("Wrote v2.")
	if got, _ := os.ReadFile(notes); string(got) != "v2\n" {
		t.Fatalf("notes.txt = %q before the rewind", got)
	}
	tm.Submit("/rewind")
	s := tm.WaitFor("Rewind to before which prompt?")
	if !strings.Contains(s, "1. first question") || !strings.Contains(s, "2. make notes v2") {
		t.Fatalf("picker:\n%s", s)
	}
	tm.Keys("Enter") // the newest prompt is chosen first
	tm.WaitFor("File changes reverted.")
	if got, _ := os.ReadFile(notes); string(got) != "v1\n" {
		t.Errorf("notes.txt = %q after the rewind, want v1", got)
	}
	tm.WaitUntil("the prompt back in the editor", func(s string) bool { return strings.Contains(s, "> make notes v2") })
	tm.Keys("C-c") // clears the editor
	tm.Submit("third question")
	tm.WaitFor("Answer three.")
	last := e2etest.ContentsText(e.Srv.LastRequest())
	if !strings.Contains(last, "first question") || strings.Contains(last, "make notes v2") || strings.Contains(last, "Wrote v2.") {
		t.Errorf("after the rewind the model was sent:\n%s", last)
	}
	resumeAfterRewind(e, tm, []string{"first question", "third question"}, []string{"make notes v2"})
}

// resumeAfterRewind quits the terminal, then resumes its session with a
// -p run, whose request must hold every one of kept and none of gone.
func resumeAfterRewind(e *e2etest.Env, tm *e2etest.Term, kept, gone []string) {
	t := e.T
	t.Helper()
	tm.Keys("C-d")
	tm.WaitFor("[exited]")
	e.Srv.Enqueue(fakegemini.Text("Resumed."))
	if r := e.Run("--resume", "latest", "-p", "one more question"); r.Code != 0 {
		t.Fatalf("resume: exit %d: %s", r.Code, r.Stderr)
	}
	resumed := e2etest.ContentsText(e.Srv.LastRequest())
	for _, k := range kept {
		if !strings.Contains(resumed, k) {
			t.Errorf("--resume sent no %q:\n%s", k, resumed)
		}
	}
	for _, g := range gone {
		if strings.Contains(resumed, g) {
			t.Errorf("--resume sent %q:\n%s", g, resumed)
		}
	}
}

// TestTUIRewindPastResumeAndCompression: the picker lists every prompt of
// the session's file, those sent before --resume and before /compress
// too, and rewinding to one rebuilds the conversation from the file, with
// the files back where a checkpoint was taken; --resume then shows the
// rewound history.
func TestTUIRewindPastResumeAndCompression(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.WriteUserSettings(`{"general":{"checkpointing":{"enabled":true}}}`)
	notes := filepath.Join(e.WS, "notes.txt")
	e.Write("notes.txt", "v1\n")
	e.Srv.Enqueue(fakegemini.Call("write_file", map[string]any{"file_path": notes, "content": "v2\n"}), fakegemini.Text("Wrote v2."))
	if r := e.Run("-y", "-p", "make notes v2"); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	long := func(topic string) string {
		var b strings.Builder
		for i := range 60 {
			fmt.Fprintf(&b, "Note %d on %s: item %d weighs %d grams. ", i, topic, i*7, i*i+3)
		}
		return b.String()
	}
	e.Srv.Enqueue(fakegemini.Text(long("apples")), fakegemini.Text(long("pears")))
	tm := e.StartTUI("--resume", "latest")
	for _, q := range []string{"Second?", "Third?"} {
		tm.Submit(q)
		tm.WaitFor("context left")
	}
	tm.WaitFor("on pears")
	e.Srv.Enqueue(fakegemini.Text("<state_snapshot>three questions so far</state_snapshot>").For(fakegemini.RPCGenerateContent))
	tm.Submit("/compress")
	tm.WaitFor("tokens.")

	// Before the compression: the history comes back from the file.
	tm.Submit("/rewind")
	s := tm.WaitFor("Rewind to before which prompt?")
	if !strings.Contains(s, "1. make notes v2") || !strings.Contains(s, "2. Second?") || !strings.Contains(s, "3. Third?") {
		t.Fatalf("picker:\n%s", s)
	}
	tm.Keys("Up", "Enter") // from the newest, Third?, up to Second?
	tm.WaitFor("Rewound the conversation to before: Second?")
	tm.Keys("C-c")
	e.Srv.Enqueue(fakegemini.Text("Again."))
	tm.Submit("Again?")
	tm.WaitFor("Again.")
	sent := e2etest.ContentsText(e.Srv.LastRequest())
	if !strings.Contains(sent, "make notes v2") || !strings.Contains(sent, "Wrote v2.") || strings.Contains(sent, "Second?") ||
		strings.Contains(sent, "on apples") || strings.Contains(sent, "three questions so far") {
		t.Errorf("after rewinding past the compression the model was sent:\n%s", sent)
	}

	// Before the resume: the file edited then comes back too.
	tm.Submit("/rewind")
	s = tm.WaitFor("Rewind to before which prompt?")
	if !strings.Contains(s, "1. make notes v2") || !strings.Contains(s, "● 2. Again?") || strings.Contains(s, "3. Third?") {
		t.Fatalf("picker after the first rewind:\n%s", s)
	}
	tm.Keys("Up", "Enter")
	tm.WaitFor("File changes reverted.")
	if got, _ := os.ReadFile(notes); string(got) != "v1\n" {
		t.Errorf("notes.txt = %q after rewinding past the resume, want v1", got)
	}
	tm.WaitUntil("the prompt back in the editor", func(s string) bool { return strings.Contains(s, "> make notes v2") })
	tm.Keys("C-c")
	e.Srv.Enqueue(fakegemini.Text("Fresh."))
	tm.Submit("Fresh?")
	tm.WaitFor("Fresh.")
	if sent := e2etest.ContentsText(e.Srv.LastRequest()); strings.Contains(sent, "make notes v2") || strings.Contains(sent, "Again?") || !strings.Contains(sent, "Fresh?") {
		t.Errorf("after rewinding past the resume the model was sent:\n%s", sent)
	}
	resumeAfterRewind(e, tm, []string{"Fresh?"}, []string{"make notes v2", "Again?"})
}
