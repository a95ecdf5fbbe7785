package ide_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestIDEClosedMidDiff: in a headless IDE-mode run the edit waits for the
// IDE's answer to its diff. When the editor closes instead, the model is
// told the IDE went away (not that the user denied the edit), the user
// reads the same on stderr, and the file is left alone.
func TestIDEClosedMidDiff(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	target := filepath.Join(e.WS, "hello.txt")
	e.Srv.Enqueue(
		fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "hello\n"}),
		fakegemini.Text("the edit did not happen"),
	)
	environ := append(e.Environ(), "TMPDIR="+t.TempDir(), "GEMINI_CLI_IDE_PID="+strconv.Itoa(os.Getpid()))
	ed := startEditor(t, e.WS, environ) // the editor, read by this test

	run := e.Start(e2etest.Options{Env: environ}, "--ide", "-p", "write hello.txt")
	ed.await("openDiff")
	ed.CloseStdin() // the editor closes: serve ends, and its companion with it
	_ = run.Wait()
	stdout, stderr := run.Stdout, run.Stderr
	if strings.Contains(stderr.String(), "panic:") {
		t.Fatalf("stack trace:\n%s", stderr.String())
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the edit was made: %v", err)
	}
	// The turn ends there, as on a refusal; the call's answer waits in
	// the session for the next prompt (--resume).
	session, err := os.ReadFile(e.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	// The editor may close before its companion answered the request
	// that opens the diff, or after: either way the IDE went away.
	told := string(session)
	if strings.Contains(told, "User denied") || !strings.Contains(told, "diff of "+target+", so the edit was not made. The user did not refuse it.") {
		t.Errorf("the model is told %s; want the IDE going away, not a denial", told)
	}
	if !strings.Contains(stderr.String(), target) || !strings.Contains(stderr.String(), "was not made") || strings.Contains(stderr.String(), "denied") {
		t.Errorf("stderr %q does not say the IDE went away", stderr.String())
	}
	t.Logf("exit %d\nstderr: %s\nstdout: %s", run.Cmd.ProcessState.ExitCode(), stderr.String(), stdout.String())
}
