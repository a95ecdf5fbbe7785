package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
	e := newEnv(t)
	e.srv.Enqueue(
		fakegemini.Call("run_shell_command", map[string]any{"command": "touch pwned"}),
		fakegemini.Text("Fine, I will use mkdir."),
	)
	tm := e.startTUI()
	tm.submit("Create a file")
	tm.waitFor("Allow execution of: touch?")
	tm.keys("Escape")
	tm.waitFor("What should the model do instead?")
	tm.typeText("use mkdir instead")
	tm.golden("reject_note", tm.waitFor("> use mkdir instead"))
	tm.keys("Enter")
	tm.waitFor("Fine, I will use mkdir.")
	if _, err := os.Stat(filepath.Join(e.ws, "pwned")); err == nil {
		t.Error("the rejected command ran")
	}
	reqs := e.srv.Requests()
	last := reqs[len(reqs)-1]
	if sent := mustJSON(last.Contents); !strings.Contains(sent, "User denied execution") || !strings.Contains(sent, "use mkdir instead") {
		t.Errorf("the note did not go with the cancelled response: %s", sent)
	}
}

var compressedRE = regexp.MustCompile(`Chat history compressed from (\d+) to (\d+) tokens\.`)

func TestTUICompress(t *testing.T) {
	e := newEnv(t)
	// Long answers without repeats (which loop detection would stop).
	long := func(topic string) string {
		var b strings.Builder
		for i := range 60 {
			fmt.Fprintf(&b, "Note %d on %s: item %d weighs %d grams. ", i, topic, i*7, i*i+3)
		}
		return b.String()
	}
	e.srv.Enqueue(fakegemini.Text(long("apples")), fakegemini.Text(long("pears")), fakegemini.Text("Short."))
	tm := e.startTUI()
	for _, q := range []string{"First?", "Second?", "Third?"} {
		tm.typeText(q)
		tm.keys("Enter")
		tm.waitFor("context left") // the turn's end leaves the footer
	}
	tm.waitFor("Short.")
	e.srv.Enqueue(fakegemini.Text("<state_snapshot>the user asked three questions</state_snapshot>").For(fakegemini.RPCGenerateContent))
	tm.submit("/compress")
	s := tm.waitFor("tokens.")
	m := compressedRE.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no compression message:\n%s", s)
	}
	// The next prompt goes with the summary instead of the old turns.
	e.srv.Enqueue(fakegemini.Text("Still here."))
	tm.submit("Go on")
	tm.waitFor("Still here.")
	reqs := e.srv.Requests()
	sent := requestText(reqs[len(reqs)-1])
	if !strings.Contains(sent, "the user asked three questions") || strings.Contains(sent, "on apples") {
		t.Errorf("the request after /compress:\n%s", sent)
	}
}

func TestTUIModelAndIDE(t *testing.T) {
	e := newEnv(t)
	tm := e.startTUI()
	tm.submit("/model flash")
	tm.waitFor("Model set to flash")
	tm.submit("/ide enable")
	// No companion runs: the connection /ide enable tries fails and says
	// why (where it looked depends on the machine's temporary directory).
	if s := tm.waitFor("for details)"); !strings.Contains(s, "connecting to the IDE companion") || !strings.Contains(s, "✕ IDE mode: no IDE companion found") {
		t.Errorf("/ide enable without a companion:\n%s", s)
	}
	e.srv.Enqueue(fakegemini.Text("Quick answer."))
	tm.submit("Be quick")
	tm.waitFor("Quick answer.")
	reqs := e.srv.Requests()
	if got := reqs[len(reqs)-1].Model; got != routing.FlashModel {
		t.Errorf("model asked %q, want %q", got, routing.FlashModel)
	}
	b, err := os.ReadFile(filepath.Join(e.home, ".gemini", "settings.json"))
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
	e := newEnv(t)
	tm := e.startTUI()
	e.write("GEMINI.md", "Always answer in haiku.")
	tm.submit("/memory refresh")
	tm.waitFor("Memory reloaded successfully")
	e.srv.Enqueue(fakegemini.Text("Leaves fall."))
	tm.submit("Autumn?")
	tm.waitFor("Leaves fall.")
	reqs := e.srv.Requests()
	last := reqs[len(reqs)-1]
	if si := mustJSON(last.SystemInstruction) + requestText(last); !strings.Contains(si, "Always answer in haiku.") {
		t.Errorf("the refreshed memory did not reach the model:\n%s", si)
	}
}

func TestTUIResumeInPlace(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakegemini.Text("The **first** answer."))
	if r := e.run("-p", "First question"); r.code != 0 {
		t.Fatalf("headless run: exit %d: %s", r.code, r.stderr)
	}
	tm := e.startTUI()
	tm.submit("/resume 1")
	tm.golden("resumed_in_place", tm.waitFor("Resumed session"))
	e.srv.Enqueue(fakegemini.Text("The second answer."))
	tm.submit("Second question")
	tm.waitFor("The second answer.")
	reqs := e.srv.Requests()
	if sent := requestText(reqs[len(reqs)-1]); !strings.Contains(sent, "First question") || !strings.Contains(sent, "The **first** answer.") {
		t.Errorf("the resumed conversation did not reach the model:\n%s", sent)
	}
	// The new turn is recorded in the resumed session's file.
	files, _ := filepath.Glob(filepath.Join(e.home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
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
