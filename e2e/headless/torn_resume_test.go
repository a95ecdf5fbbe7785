package cli_test

import (
	"os"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestResumeAfterTornRecord: a session whose last record was cut short by
// a crash resumes with what came before, and the run says once, on
// stderr, which file and line it skipped.
func TestResumeAfterTornRecord(t *testing.T) {
	e := newEnv(t, fakegemini.Text("first answer"), fakegemini.Text("second answer"))
	if r := e.run("-p", "first question"); r.code != 0 {
		t.Fatalf("first run: exit %d, stderr %q", r.code, r.stderr)
	}
	path := e.sessionFile()
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

	r := e.run("--resume", "latest", "-p", "second question")
	if r.code != 0 || r.stdout != "second answer\n" {
		t.Fatalf("resume: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	want := "Warning: session file " + path + ": line " + itoa(torn) + " is not a whole record (cut short by a crash?) and was skipped\n"
	if r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	reqs := e.srv.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(string(last.Body), "first answer") {
		t.Errorf("the resumed history lost the first turn: %s", last.Body)
	}
}
