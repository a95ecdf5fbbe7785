package ide_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// TestCloseClosesOpenDiff: closing the client (/ide disable) while an edit
// is shown as a diff closes the diff in the editor, as Gemini CLI's
// disconnect does, and the terminal still answers the edit.
func TestCloseClosesOpenDiff(t *testing.T) {
	e := newEnv(t)
	ed := newFakeEditor()
	e.start(t, ed)
	c := e.connect(t)
	path := filepath.Join(e.ws, "x.txt")

	answer := make(chan tool.Decision)
	next := func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error) {
		select {
		case d := <-answer:
			return d, nil
		case <-ctx.Done():
			return tool.Decision{}, ctx.Err()
		}
	}
	type result struct {
		d   tool.Decision
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := c.Confirm(next)(context.Background(), editCall(path, "old\n", "new\n"))
		done <- result{d, err}
	}()
	recv(t, ed.opened, "openDiff")

	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := recv(t, ed.closed, "closeDiff on Close"); got != path {
		t.Fatalf("closeDiff(%q), want %q", got, path)
	}
	select {
	case r := <-done:
		t.Fatalf("decided without the terminal: %+v, %v", r.d, r.err)
	default:
	}
	var r result
	select {
	case answer <- tool.Decision{Outcome: tool.ProceedOnce}:
		r = recv(t, done, "the terminal's decision")
	case r = <-done:
		t.Fatalf("decided without the terminal: %+v, %v", r.d, r.err)
	case <-time.After(guard): // a hang, not a timing assertion
		t.Fatal("the terminal was never asked")
	}
	if r.err != nil || r.d.Outcome != tool.ProceedOnce || r.d.NewContent != nil {
		t.Fatalf("decision = %+v, %v", r.d, r.err)
	}
}
