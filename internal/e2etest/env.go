package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// End-to-end tests run the built castor command against the fake Gemini
// server, each as an isolated user.

// The castor binary is built once per test binary, by the first test that
// needs it, so that running only the unit tests of the package costs no
// build.
var (
	buildOnce sync.Once
	binDir    string
	binary    string
	buildErr  error
)

// castorBinary returns the path of the built castor command.
func castorBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "castor-e2e")
		if buildErr != nil {
			return
		}
		binary = filepath.Join(binDir, "castor")
		out, err := exec.Command("go", "build", "-o", binary, "github.com/castor-dev/castor/cmd/castor").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./cmd/castor: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

func TestMain(m *testing.M) {
	if label := os.Getenv(mcpHelperEnv); label != "" {
		os.Exit(serveHelperMCP(label)) // mcphelper_test.go
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// env is an isolated user: a home, a workspace and the fake server.
type env struct {
	t    *testing.T
	home string
	ws   string
	srv  *fakegemini.Server
	// tuiEnv is added to the environment startTUI gives castor.
	tuiEnv []string
}

func newEnv(t *testing.T, replies ...fakegemini.Reply) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws"), srv: fakegemini.Start(t, replies...)}
	for _, d := range []string{e.home, e.ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

type result struct {
	code           int
	stdout, stderr string
}

func (e *env) run(args ...string) result {
	e.t.Helper()
	return runCastor(e.t, e.ws, e.environ(), args...)
}

// environ is the environment castor runs with as this user.
func (e *env) environ() []string {
	return []string{
		"HOME=" + e.home,
		"PATH=" + os.Getenv("PATH"),
		"GEMINI_API_KEY=test-key",
		"GOOGLE_GEMINI_BASE_URL=" + e.srv.URL,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"CASTOR_RETRY_BASE_DELAY=5ms",
	}
}

// runCastor runs the built binary in dir with exactly the environment env,
// and fails the test on a stack trace.
func runCastor(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(castorBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r := result{code, stdout.String(), stderr.String()}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		t.Fatalf("stack trace on stderr:\n%s", r.stderr)
	}
	return r
}

func (e *env) write(name, content string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.ws, name), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// sessionFile returns the only session file of the workspace.
func (e *env) sessionFile() string {
	e.t.Helper()
	files, _ := filepath.Glob(filepath.Join(e.home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if len(files) != 1 {
		e.t.Fatalf("want one session file, got %v", files)
	}
	return files[0]
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
