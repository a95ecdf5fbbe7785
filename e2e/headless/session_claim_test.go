package headless_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestSessionIDStartedTwiceAtOnce: runs started together with the same
// new --session-id cannot all pass the "already exists" check before the
// first of them records: exactly one runs and records the session, the
// others are refused as a recorded id is (exit 42, pointing at --resume)
// before they reach the model. A SessionStart hook that sleeps holds
// every run between the check and its first record, the window the claim
// closes.
func TestSessionIDStartedTwiceAtOnce(t *testing.T) {
	t.Parallel()
	const runs, rounds = 6, 3
	e := e2etest.New(t)
	for range runs * rounds {
		e.Srv.Enqueue(fakegemini.Text("answered"))
	}
	if err := os.MkdirAll(filepath.Join(e.WS, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.Write(".gemini/settings.json", `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "sleep 0.3"}]}]}}`)
	for round := range rounds {
		id := fmt.Sprintf("r%d-twice", round) // 8 characters: file names carry no more
		results := make([]e2etest.Result, runs)
		var wg sync.WaitGroup
		for i := range runs {
			wg.Go(func() {
				cmd := e2etest.Command(t, "--session-id", id, "-p", fmt.Sprintf("run %d", i))
				cmd.Dir, cmd.Env = e.WS, e.Environ()
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					code = -1
				}
				results[i] = e2etest.Result{Code: code, Stdout: stdout.String(), Stderr: stderr.String()}
			})
		}
		wg.Wait()
		won := 0
		for i, r := range results {
			switch {
			case r.Code == 0 && r.Stdout == "answered\n" && !strings.Contains(r.Stderr, "recording"):
				won++
			case r.Code == 42 && r.Stdout == "" && strings.Contains(r.Stderr, "--resume "+id) && strings.Count(r.Stderr, "\n") == 1:
			default:
				t.Errorf("round %d run %d: exit %d, stdout %q, stderr %q", round, i, r.Code, r.Stdout, r.Stderr)
			}
		}
		if won != 1 {
			t.Errorf("round %d: %d runs went through, want exactly 1", round, won)
		}
		files, _ := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", "chats", "session-*-"+id+".jsonl"))
		if len(files) != 1 {
			t.Errorf("round %d: session files %v, want one", round, files)
		}
	}
	// The claim ends with its run: the id is now refused as recorded,
	// and resumable.
	if r := e.Run("--session-id", "r0-twice", "-p", "again"); r.Code != 42 || !strings.Contains(r.Stderr, "already exists") {
		t.Errorf("after the runs: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if r := e.Run("--resume", "r0-twice", "-p", "again"); r.Code != 0 {
		t.Errorf("resume: exit %d, stderr %q", r.Code, r.Stderr)
	}
}

// TestSessionIDsSharingAPrefix: session files carry the first 8
// characters of the id, as Gemini CLI names them, so ci-job-42 and
// ci-job-43 run in one minute wanted one file and the second ran
// unrecorded, with a warning. Both are recorded now, listed and resumed
// by their own id.
func TestSessionIDsSharingAPrefix(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("one"), fakegemini.Text("two"), fakegemini.Text("resumed"))
	for _, id := range []string{"ci-job-42", "ci-job-43"} {
		if r := e.Run("--session-id", id, "-p", "run "+id); r.Code != 0 || r.Stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", id, r.Code, r.Stderr)
		}
	}
	r := e.Run("--list-sessions")
	if !strings.Contains(r.Stdout, "[ci-job-42]") || !strings.Contains(r.Stdout, "[ci-job-43]") {
		t.Errorf("--list-sessions:\n%s", r.Stdout)
	}
	if r := e.Run("--resume", "ci-job-43", "-p", "again"); r.Code != 0 || r.Stdout != "resumed\n" {
		t.Errorf("resume: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	b, _ := os.ReadFile(sessionFileOf(t, e, "ci-job-43"))
	if !strings.Contains(string(b), "run ci-job-43") || !strings.Contains(string(b), `"text":"again"`) || strings.Contains(string(b), "run ci-job-42") {
		t.Errorf("ci-job-43's file:\n%s", b)
	}
}

// sessionFileOf is the session file holding id's header.
func sessionFileOf(t *testing.T, e *e2etest.Env, id string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.HasPrefix(string(b), `{"sessionId":"`+id+`"`) {
			return f
		}
	}
	t.Fatalf("no session file of %s among %v", id, files)
	return ""
}
