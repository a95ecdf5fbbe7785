package tui_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/routing"
)

// End-to-end tests of the interactive commands that change the running
// session: /compress, /model, /ide, /memory, /resume, and the note that
// goes with a rejected call.

// requestText joins the texts of a request's contents.
func requestText(r *fakegemini.Request) string {
	var b strings.Builder
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			b.WriteString(p.Text + "\n")
		}
	}
	return b.String()
}

func TestTUIRejectWithNote(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch pwned"}),
		fakegemini.Text("Fine, I will use mkdir."),
	)
	tm := e.StartTUI()
	tm.Submit("Create a file")
	tm.WaitFor("Allow execution of: touch?")
	tm.Keys("Escape")
	tm.WaitFor("What should the model do instead?")
	tm.TypeText("use mkdir instead")
	tm.Golden("reject_note", tm.WaitFor("> use mkdir instead"))
	tm.Keys("Enter")
	tm.WaitFor("Fine, I will use mkdir.")
	if _, err := os.Stat(filepath.Join(e.WS, "pwned")); err == nil {
		t.Error("the rejected command ran")
	}
	reqs := e.Srv.Requests()
	last := reqs[len(reqs)-1]
	if sent := e2etest.MustJSON(last.Contents); !strings.Contains(sent, "User denied execution") || !strings.Contains(sent, "use mkdir instead") {
		t.Errorf("the note did not go with the cancelled response: %s", sent)
	}
}

var compressedRE = regexp.MustCompile(`Chat history compressed from (\d+) to (\d+) tokens\.`)

func TestTUICompress(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	// Long answers without repeats (which loop detection would stop).
	long := func(topic string) string {
		var b strings.Builder
		for i := range 60 {
			fmt.Fprintf(&b, "Note %d on %s: item %d weighs %d grams. ", i, topic, i*7, i*i+3)
		}
		return b.String()
	}
	e.Srv.Enqueue(fakegemini.Text(long("apples")), fakegemini.Text(long("pears")), fakegemini.Text("Short."))
	tm := e.StartTUI()
	for _, q := range []string{"First?", "Second?", "Third?"} {
		tm.TypeText(q)
		tm.Keys("Enter")
		tm.WaitFor("context left") // the turn's end leaves the footer
	}
	tm.WaitFor("Short.")
	e.Srv.Enqueue(fakegemini.Text("<state_snapshot>the user asked three questions</state_snapshot>").For(fakegemini.RPCGenerateContent))
	tm.Submit("/compress")
	s := tm.WaitFor("tokens.")
	m := compressedRE.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no compression message:\n%s", s)
	}
	// The next prompt goes with the summary instead of the old turns.
	e.Srv.Enqueue(fakegemini.Text("Still here."))
	tm.Submit("Go on")
	tm.WaitFor("Still here.")
	reqs := e.Srv.Requests()
	sent := requestText(reqs[len(reqs)-1])
	if !strings.Contains(sent, "the user asked three questions") || strings.Contains(sent, "on apples") {
		t.Errorf("the request after /compress:\n%s", sent)
	}
}

func TestTUIModelAndIDE(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	tm.Submit("/model flash")
	tm.WaitFor("Model set to flash")
	tm.Submit("/ide enable")
	// No companion runs: the connection /ide enable tries fails and says
	// why (where it looked depends on the machine's temporary directory).
	if s := tm.WaitFor("for details)"); !strings.Contains(s, "connecting to the IDE companion") || !strings.Contains(s, "✕ IDE mode: no IDE companion found") {
		t.Errorf("/ide enable without a companion:\n%s", s)
	}
	e.Srv.Enqueue(fakegemini.Text("Quick answer."))
	tm.Submit("Be quick")
	tm.WaitFor("Quick answer.")
	reqs := e.Srv.Requests()
	if got := reqs[len(reqs)-1].Model; got != routing.FlashModel {
		t.Errorf("model asked %q, want %q", got, routing.FlashModel)
	}
	b, err := os.ReadFile(filepath.Join(e.Home, ".gemini", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		IDE struct{ Enabled bool } `json:"ide"`
	}
	if err := json.Unmarshal(b, &st); err != nil || !st.IDE.Enabled {
		t.Errorf("settings.json after /ide enable (%v):\n%s", err, b)
	}
}

func TestTUIMemoryRefresh(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	tm := e.StartTUI()
	e.Write("GEMINI.md", "Always answer in haiku.")
	tm.Submit("/memory refresh")
	tm.WaitFor("Memory reloaded successfully")
	e.Srv.Enqueue(fakegemini.Text("Leaves fall."))
	tm.Submit("Autumn?")
	tm.WaitFor("Leaves fall.")
	reqs := e.Srv.Requests()
	last := reqs[len(reqs)-1]
	if si := e2etest.MustJSON(last.SystemInstruction) + requestText(last); !strings.Contains(si, "Always answer in haiku.") {
		t.Errorf("the refreshed memory did not reach the model:\n%s", si)
	}
}

func TestTUIResumeInPlace(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Text("The **first** answer."))
	if r := e.Run("-p", "First question"); r.Code != 0 {
		t.Fatalf("headless run: exit %d: %s", r.Code, r.Stderr)
	}
	tm := e.StartTUI()
	tm.Submit("/resume 1")
	tm.Golden("resumed_in_place", tm.WaitFor("Resumed session"))
	e.Srv.Enqueue(fakegemini.Text("The second answer."))
	tm.Submit("Second question")
	tm.WaitFor("The second answer.")
	reqs := e.Srv.Requests()
	if sent := requestText(reqs[len(reqs)-1]); !strings.Contains(sent, "First question") || !strings.Contains(sent, "The **first** answer.") {
		t.Errorf("the resumed conversation did not reach the model:\n%s", sent)
	}
	// The new turn is recorded in the resumed session's file.
	files, _ := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	found := false
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "First question") {
			found = true
			if !strings.Contains(string(b), "Second question") {
				t.Errorf("the resumed session's file lacks the new turn:\n%s", b)
			}
		}
	}
	if !found {
		t.Errorf("no session file holds the first question: %v", files)
	}
}
