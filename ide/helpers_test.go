package ide_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/ide/companion"
)

// testPID is the IDE process id the tests' companions and clients agree
// on, so that discovery does not depend on the test's process tree.
const testPID = 4242

// guard bounds every wait, so that a broken test fails instead of hanging;
// nothing asserts on how long anything takes.
const guard = 20 * time.Second

// fakeEditor records what the companion asks of the editor.
type fakeEditor struct {
	opened chan [2]string // path, newContent
	closed chan string
	mu     sync.Mutex
	// content is what CloseDiff returns for a path.
	content  map[string]string
	failOpen error
}

func newFakeEditor() *fakeEditor {
	return &fakeEditor{opened: make(chan [2]string, 16), closed: make(chan string, 16), content: map[string]string{}}
}

func (e *fakeEditor) OpenDiff(ctx context.Context, path, newContent string) error {
	if e.failOpen != nil {
		return e.failOpen
	}
	e.mu.Lock()
	e.content[path] = newContent
	e.mu.Unlock()
	e.opened <- [2]string{path, newContent}
	return nil
}

func (e *fakeEditor) CloseDiff(ctx context.Context, path string) (string, error) {
	e.mu.Lock()
	c, ok := e.content[path]
	e.mu.Unlock()
	e.closed <- path
	if !ok {
		return "", errors.New("no such diff")
	}
	return c, nil
}

// edit simulates the user typing in the diff view.
func (e *fakeEditor) edit(path, content string) {
	e.mu.Lock()
	e.content[path] = content
	e.mu.Unlock()
}

// env is a temp dir for discovery files and a workspace.
type env struct {
	tmp string
	ws  string
}

func newEnv(t *testing.T) env {
	t.Helper()
	root := t.TempDir()
	e := env{tmp: filepath.Join(root, "tmp"), ws: filepath.Join(root, "ws")}
	for _, d := range []string{e.tmp, e.ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Discovery compares real paths; the temp dir may sit behind a link.
	ws, err := filepath.EvalSymlinks(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	e.ws = ws
	return e
}

func (e env) start(t *testing.T, ed companion.Editor, workspaces ...string) *companion.Server {
	t.Helper()
	if len(workspaces) == 0 {
		workspaces = []string{e.ws}
	}
	s := companion.New(companion.Options{
		Workspaces: workspaces,
		PID:        testPID,
		TempDir:    e.tmp,
		Editor:     ed,
		IDE:        ide.IDEInfo{Name: "testide", DisplayName: "Test IDE"},
		Debounce:   time.Millisecond,
	})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop(context.Background()) })
	return s
}

func (e env) options() ide.Options {
	return ide.Options{
		WorkDir:        e.ws,
		TempDir:        e.tmp,
		IDEPID:         testPID,
		Host:           "127.0.0.1",
		Getenv:         func(string) string { return "" },
		ReconnectDelay: func(int) time.Duration { return 10 * time.Millisecond },
	}
}

func (e env) connect(t *testing.T) *ide.Client {
	t.Helper()
	c, err := ide.Connect(context.Background(), e.options())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitFor waits until cond holds for the client.
func waitFor(t *testing.T, c *ide.Client, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(guard)
	defer deadline.Stop()
	for {
		ch := c.Changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("gave up waiting for %s; status %+v", what, c.Status())
		}
	}
}

// activePath returns the path of the client's active file, or "".
func activePath(c *ide.Client) string {
	if f := c.Context().Active(); f != nil {
		return f.Path
	}
	return ""
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(guard):
		t.Fatalf("gave up waiting for %s", what)
	}
	var zero T
	return zero
}
