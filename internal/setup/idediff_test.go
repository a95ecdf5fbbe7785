package setup

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/ide/companion"
	"github.com/castor-dev/castor/tool"
)

// TestDisconnectIDEClosesOpenDiff: /ide disable (DisconnectIDE) while an
// edit waits as a diff in the IDE closes that diff in the editor, as
// Gemini CLI's disconnect does; the face still answers the edit.
func TestDisconnectIDEClosesOpenDiff(t *testing.T) {
	tmp, ws, env := ideTestEnv(t, 4647)
	answer := make(chan tool.Decision)
	face := func(ctx context.Context, _ *agent.ToolCall) (tool.Decision, error) {
		select {
		case d := <-answer:
			return d, nil
		case <-ctx.Done():
			return tool.Decision{}, ctx.Err()
		}
	}
	a := &Agent{}
	a.ide = newLiveIDE(nil, face, ws, env, func(string) {})
	ed := closingEditor{diffEditor{opened: make(chan string, 1)}, make(chan string, 4)}
	s := companion.New(companion.Options{Workspaces: []string{ws}, TempDir: tmp, PID: 4647, Debounce: time.Millisecond, Editor: ed})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	if _, err := a.ConnectIDE(context.Background()); err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(ws, "x.txt")
	edit := &agent.ToolCall{Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{Type: tool.ConfirmEdit, FilePath: path, NewContent: "x\n"}}}
	done := make(chan tool.Decision, 1)
	go func() {
		d, _ := a.ide.confirmCall(context.Background(), edit)
		done <- d
	}()
	hang := time.After(time.Minute) // a hang, not a timing assertion
	select {
	case <-ed.opened:
	case <-hang:
		t.Fatal("no diff opened in the IDE")
	}
	if err := a.DisconnectIDE(); err != nil {
		t.Fatalf("DisconnectIDE: %v", err)
	}
	select {
	case got := <-ed.closed:
		if got != path {
			t.Errorf("closeDiff(%q), want %q", got, path)
		}
	case <-hang:
		t.Fatal("the diff stayed open in the IDE after DisconnectIDE")
	}
	select {
	case answer <- tool.Decision{Outcome: tool.ProceedOnce}:
	case d := <-done:
		t.Fatalf("the edit was answered without the face: %+v", d)
	case <-hang:
		t.Fatal("the face was never asked")
	}
	if d := <-done; d.Outcome != tool.ProceedOnce {
		t.Errorf("the face's approval gave %+v", d)
	}
}

// closingEditor is a diffEditor that also says which diff it closed.
type closingEditor struct {
	diffEditor
	closed chan string
}

func (e closingEditor) CloseDiff(_ context.Context, path string) (string, error) {
	e.closed <- path
	return "", nil
}
