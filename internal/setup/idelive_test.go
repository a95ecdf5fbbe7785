package setup

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/ide/companion"
	"github.com/castor-dev/castor/tool"
)

// TestIDEConnectsMidSession: the session's confirmation and prompt
// context follow ConnectIDE and DisconnectIDE, so that /ide enable and
// /ide disable change a running session as in Gemini CLI.
func TestIDEConnectsMidSession(t *testing.T) {
	tmp, ws, env := ideTestEnv(t, 4646)
	// The face: it approves at once, unless it is told to wait, as a
	// user who answers in the IDE leaves the terminal's dialog open.
	var asked atomic.Int32
	var waits atomic.Bool
	own := func(ctx context.Context, _ *agent.ToolCall) (tool.Decision, error) {
		asked.Add(1)
		if waits.Load() {
			<-ctx.Done()
			return tool.Decision{Outcome: tool.Cancel}, ctx.Err()
		}
		return tool.Decision{Outcome: tool.ProceedOnce}, nil
	}
	a := &Agent{}
	a.ide = newLiveIDE(nil, own, ws, env, func(string) {})
	edit := &agent.ToolCall{Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{Type: tool.ConfirmEdit, FilePath: filepath.Join(ws, "x.txt"), NewContent: "x\n"}}}

	// Not connected: the face answers, no IDE context.
	if d, err := a.ide.confirmCall(context.Background(), edit); err != nil || d.Outcome != tool.ProceedOnce || asked.Load() != 1 {
		t.Fatalf("edit without an IDE: %+v, %v, asked %d", d, err, asked.Load())
	}
	if parts := a.ide.promptContext(true); parts != nil {
		t.Errorf("context without an IDE: %+v", parts)
	}
	if _, err := a.ConnectIDE(context.Background()); err == nil || !strings.Contains(err.Error(), "no IDE companion found") {
		t.Errorf("ConnectIDE without a companion: %v", err)
	}

	ed := diffEditor{opened: make(chan string, 1)}
	s := companion.New(companion.Options{Workspaces: []string{ws}, TempDir: tmp, PID: 4646, Debounce: time.Millisecond, Editor: ed})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	s.FileFocused(filepath.Join(ws, "a.go"))
	c, err := a.ConnectIDE(context.Background())
	if err != nil || c == nil || a.IDEClient() != c {
		t.Fatalf("ConnectIDE: %v, %v", c, err)
	}
	if again, err := a.ConnectIDE(context.Background()); again != c || err != nil {
		t.Errorf("ConnectIDE when connected made a new connection: %v, %v", again, err)
	}
	// Connected mid-session: the next prompt, not the session's first,
	// carries the whole editor context.
	if parts := a.ide.promptContext(false); len(parts) != 1 || !strings.Contains(parts[0].Text, filepath.Join(ws, "a.go")) {
		t.Errorf("context once connected: %+v", parts)
	}
	// An edit opens as a diff in the IDE; rejecting it there answers.
	waits.Store(true)
	done := make(chan tool.Decision, 1)
	go func() {
		d, _ := a.ide.confirmCall(context.Background(), edit)
		done <- d
	}()
	select {
	case <-ed.opened:
	case d := <-done:
		t.Fatalf("the edit was answered without the IDE: %+v", d)
	case <-time.After(time.Minute): // a hang, not a timing assertion
		t.Fatal("no diff opened in the IDE")
	}
	s.RejectDiff(filepath.Join(ws, "x.txt"))
	if d := <-done; d.Outcome != tool.Cancel {
		t.Errorf("edit rejected in the IDE: %+v", d)
	}

	if err := a.DisconnectIDE(); err != nil || a.IDEClient() != nil {
		t.Fatalf("DisconnectIDE: %v, client %v", err, a.IDEClient())
	}
	asked.Store(0)
	waits.Store(false)
	if d, err := a.ide.confirmCall(context.Background(), edit); err != nil || d.Outcome != tool.ProceedOnce || asked.Load() != 1 {
		t.Errorf("edit after DisconnectIDE: %+v, %v, asked %d", d, err, asked.Load())
	}
	if parts := a.ide.promptContext(false); parts != nil {
		t.Errorf("context after DisconnectIDE: %+v", parts)
	}
}

// diffEditor is an editor that shows diffs and says which it opened.
type diffEditor struct{ opened chan string }

func (e diffEditor) OpenDiff(_ context.Context, path, _ string) error {
	e.opened <- path
	return nil
}

func (e diffEditor) CloseDiff(context.Context, string) (string, error) { return "", nil }

// TestIDEDisconnectDuringDial: a connection that lands after DisconnectIDE
// or Close was asked for is dropped, not kept open behind the user's back.
func TestIDEDisconnectDuringDial(t *testing.T) {
	for _, closing := range []bool{false, true} {
		l := &liveIDE{}
		gen := l.generation()
		l.disconnect(closing)
		if got := l.adopt(&ide.Client{}, gen); got != nil || l.current() != nil {
			t.Errorf("closing %v: a dial begun before the disconnection was kept", closing)
		}
		if got := l.adopt(&ide.Client{}, l.generation()); (got != nil) == closing {
			t.Errorf("closing %v: a dial begun after it: kept %v", closing, got != nil)
		}
	}
}

// ideTestEnv is what an IDE test's session needs: the temporary folder
// where discovery files live (TMPDIR), a workspace, and an environment
// naming pid as the IDE's process (the companion started with that PID
// is the one found).
func ideTestEnv(t *testing.T, pid int) (tmp, ws string, env *Env) {
	t.Helper()
	tmp = t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ws, _ = filepath.EvalSymlinks(t.TempDir())
	env = NewEnv(func(k string) (string, bool) {
		if k == ide.EnvIDEPID {
			return strconv.Itoa(pid), true
		}
		return "", false
	})
	return tmp, ws, env
}
