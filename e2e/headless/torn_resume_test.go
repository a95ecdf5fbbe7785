package headless_test

import (
	"os"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestResumeAfterTornRecord: a session whose last record was cut short by
// a crash resumes with what came before, and the run says once, on
// stderr, which file and line it skipped.
func TestResumeAfterTornRecord(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("first answer"), fakegemini.Text("second answer"))
	if r := e.Run("-p", "first question"); r.Code != 0 {
		t.Fatalf("first run: exit %d, stderr %q", r.Code, r.Stderr)
	}
	path := e.SessionFile()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	torn := strings.Count(string(before), "\n") + 1
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"torn","timestamp":"2026-11-26T21:2`) // a kill mid-write
	f.Close()

	r := e.Run("--resume", "latest", "-p", "second question")
	if r.Code != 0 || r.Stdout != "second answer\n" {
		t.Fatalf("resume: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	want := "Warning: session file " + path + ": line " + itoa(torn) + " is not a whole record (cut short by a crash?) and was skipped\n"
	if r.Stderr != want {
		t.Errorf("stderr %q, want %q", r.Stderr, want)
	}
	reqs := e.Srv.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(string(last.Body), "first answer") {
		t.Errorf("the resumed history lost the first turn: %s", last.Body)
	}
}
