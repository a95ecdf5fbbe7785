package e2etest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// Env is an isolated user: a home, a workspace and the fake server.
type Env struct {
	T    *testing.T
	Home string
	WS   string
	Srv  *fakegemini.Server
	// TUIEnv is added to the environment StartTUI gives castor.
	TUIEnv []string
}

// New makes a user for t whose fake server answers with replies first.
func New(t *testing.T, replies ...fakegemini.Reply) *Env {
	t.Helper()
	root := t.TempDir()
	e := &Env{T: t, Home: filepath.Join(root, "home"), WS: filepath.Join(root, "ws"), Srv: fakegemini.Start(t, replies...)}
	for _, d := range []string{e.Home, e.WS} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// Result is how a castor run ended.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// Run runs castor with args in the workspace as this user.
func (e *Env) Run(args ...string) Result {
	e.T.Helper()
	return RunCastor(e.T, e.WS, e.Environ(), args...)
}

// RunExtraEnv is Run with more environment variables.
func (e *Env) RunExtraEnv(extra []string, args ...string) Result {
	e.T.Helper()
	return RunCastor(e.T, e.WS, append(e.Environ(), extra...), args...)
}

// RunWithStdin is Run with stdin fed from in.
func (e *Env) RunWithStdin(in string, args ...string) Result {
	e.T.Helper()
	cmd := Command(e.T, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = e.WS, e.Environ(), strings.NewReader(in)
	return runCmd(e.T, cmd, false)
}

// Environ is the environment castor runs with as this user.
func (e *Env) Environ() []string {
	return []string{
		"HOME=" + e.Home,
		"PATH=" + os.Getenv("PATH"),
		"GEMINI_API_KEY=test-key",
		"GOOGLE_GEMINI_BASE_URL=" + e.Srv.URL,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"CASTOR_RETRY_BASE_DELAY=5ms",
		// Telemetry's exports, and the flush at exit, may take as long as
		// a test waits for anything: a loaded machine loses no span.
		"OTEL_EXPORTER_OTLP_TIMEOUT=" + strconv.Itoa(int(HangLimit/time.Millisecond)),
	}
}

// RunCastor runs the built binary in dir with exactly the environment env,
// and fails the test on a stack trace.
func RunCastor(t *testing.T, dir string, env []string, args ...string) Result {
	t.Helper()
	cmd := Command(t, args...)
	cmd.Dir = dir
	cmd.Env = env
	return runCmd(t, cmd, true)
}

// runCmd runs cmd to its end; with noTrace a stack trace on stderr fails
// the test.
func runCmd(t *testing.T, cmd *exec.Cmd, noTrace bool) Result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r := Result{code, stdout.String(), stderr.String()}
	if noTrace && (strings.Contains(r.Stderr, "goroutine ") || strings.Contains(r.Stderr, "panic:")) {
		t.Fatalf("stack trace on stderr:\n%s", r.Stderr)
	}
	return r
}

// Write writes the workspace file name.
func (e *Env) Write(name, content string) {
	e.T.Helper()
	if err := os.WriteFile(filepath.Join(e.WS, name), []byte(content), 0o644); err != nil {
		e.T.Fatal(err)
	}
}

// WriteUserSettings writes ~/.gemini/settings.json of e.
func (e *Env) WriteUserSettings(content string) {
	e.T.Helper()
	p := filepath.Join(e.Home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.T.Fatal(err)
	}
}

// SessionFile returns the only session file of the workspace.
func (e *Env) SessionFile() string {
	e.T.Helper()
	files, _ := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if len(files) != 1 {
		e.T.Fatalf("want one session file, got %v", files)
	}
	return files[0]
}

// SessionFiles lists every recorded session file of e's home, subagent
// sessions included.
func (e *Env) SessionFiles() []string {
	e.T.Helper()
	main, _ := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", "chats", "*.jsonl"))
	sub, _ := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", "chats", "*", "*.jsonl"))
	return append(main, sub...)
}

// MustJSON is v as JSON, for messages.
func MustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
