package ide_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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
	tmp := t.TempDir()
	pid := strconv.Itoa(os.Getpid())
	environ := append(e.Environ(), "TMPDIR="+tmp, "GEMINI_CLI_IDE_PID="+pid)

	// The editor: castor ide serve, read by this test.
	serve := e2etest.Command(t, "ide", "serve", "--workspace", e.WS, "--pid", pid, "--ide-name", "testeditor")
	serve.Env = environ
	in, _ := serve.StdinPipe()
	out, _ := serve.StdoutPipe()
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); serve.Wait() })
	msgs := make(chan string, 16)
	go func() {
		defer close(msgs)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m struct{ Type string }
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				msgs <- m.Type
			}
		}
	}()
	await := func(typ string) {
		t.Helper()
		for {
			select {
			case m, ok := <-msgs:
				if !ok {
					t.Fatalf("castor ide serve ended before %s", typ)
				}
				if m == typ {
					return
				}
			case <-time.After(time.Minute): // a hang, not a timing assertion
				t.Fatalf("no %s from castor ide serve", typ)
			}
		}
	}
	await("ready")

	run := e2etest.Command(t, "--ide", "-p", "write hello.txt")
	run.Dir, run.Env = e.WS, environ
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- run.Wait() }()
	await("openDiff")
	in.Close() // the editor closes: serve ends, and its companion with it
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang, not a timing assertion
		run.Process.Kill()
		t.Fatalf("castor did not finish after the IDE closed\nstderr: %s", stderr.String())
	}
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
	t.Logf("exit %d\nstderr: %s\nstdout: %s", run.ProcessState.ExitCode(), stderr.String(), stdout.String())
}
