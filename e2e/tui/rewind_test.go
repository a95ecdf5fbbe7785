package tui_test

import (
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
	tm.Keys("C-d")
	tm.WaitFor("[exited]")

	e.Srv.Enqueue(fakegemini.Text("Resumed."))
	if r := e.Run("--resume", "latest", "-p", "fourth question"); r.Code != 0 {
		t.Fatalf("resume: exit %d: %s", r.Code, r.Stderr)
	}
	resumed := e2etest.ContentsText(e.Srv.LastRequest())
	if !strings.Contains(resumed, "first question") || !strings.Contains(resumed, "third question") || strings.Contains(resumed, "make notes v2") {
		t.Errorf("--resume sent:\n%s", resumed)
	}
}
