package ide_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/tool"
)

func TestConnectAndContext(t *testing.T) {
	e := newEnv(t)
	s := e.start(t, newFakeEditor())
	a, b := filepath.Join(e.ws, "a.go"), filepath.Join(e.ws, "b.go")
	s.FileFocused(a)
	c := e.connect(t)

	st := c.Status()
	if st.State != ide.Connected || !st.Diffing || st.IDE.DisplayName != "Test IDE" || st.DiscoveryFile != s.DiscoveryFile() {
		t.Fatalf("status = %+v", st)
	}
	if st.ProtocolVersion != ide.ProtocolVersion {
		t.Errorf("protocol = %q", st.ProtocolVersion)
	}
	// The companion greets a new session with its context.
	waitFor(t, c, "the initial context", func() bool { return activePath(c) == a })
	parts := c.PromptContext(true)
	if len(parts) != 1 || !strings.HasPrefix(parts[0].Text, "Here is the user's editor context as a JSON object.") || !strings.Contains(parts[0].Text, a) {
		t.Fatalf("first prompt context = %+v", parts)
	}
	if got := c.PromptContext(false); got != nil {
		t.Errorf("unchanged context gave %+v", got)
	}

	s.FileFocused(b)
	s.CursorMoved(b, 3, 7)
	waitFor(t, c, "the cursor in b.go", func() bool {
		f := c.Context().Active()
		return f != nil && f.Path == b && f.Cursor != nil && f.Cursor.Line == 3
	})
	parts = c.PromptContext(false)
	if len(parts) != 1 {
		t.Fatalf("delta = %+v", parts)
	}
	for _, want := range []string{"Here is a summary of changes in the user's editor context", `"filesOpened": [`, b, `"activeFileChanged"`, `"line": 3`} {
		if !strings.Contains(parts[0].Text, want) {
			t.Errorf("delta lacks %q:\n%s", want, parts[0].Text)
		}
	}
}

// editCall is what the scheduler hands Confirm for an edit.
func editCall(path, original, proposed string) *agent.ToolCall {
	return &agent.ToolCall{
		ID:   "call-1",
		Name: "replace",
		Confirmation: &agent.Confirmation{CallID: "call-1", Details: &tool.ConfirmationDetails{
			Type: tool.ConfirmEdit, FilePath: path, FileName: filepath.Base(path),
			OriginalContent: &original, NewContent: proposed,
		}},
	}
}

func TestConfirmInIDE(t *testing.T) {
	e := newEnv(t)
	ed := newFakeEditor()
	s := e.start(t, ed)
	c := e.connect(t)
	path := filepath.Join(e.ws, "x.txt")

	type result struct {
		d   tool.Decision
		err error
	}
	confirm := c.Confirm(nil)
	run := func() <-chan result {
		ch := make(chan result, 1)
		go func() {
			d, err := confirm(context.Background(), editCall(path, "old\n", "new\n"))
			ch <- result{d, err}
		}()
		return ch
	}

	t.Run("accepted with the user's edits", func(t *testing.T) {
		done := run()
		got := recv(t, ed.opened, "openDiff")
		if got != [2]string{path, "new\n"} {
			t.Fatalf("openDiff(%q)", got)
		}
		if err := s.AcceptDiff(path, "new, edited\n"); err != nil {
			t.Fatal(err)
		}
		r := recv(t, done, "the decision")
		if r.err != nil || r.d.Outcome != tool.ProceedOnce || r.d.NewContent == nil || *r.d.NewContent != "new, edited\n" {
			t.Fatalf("decision = %+v, %v", r.d, r.err)
		}
	})
	t.Run("accepted unchanged", func(t *testing.T) {
		done := run()
		recv(t, ed.opened, "openDiff")
		s.AcceptDiff(path, "new\n")
		r := recv(t, done, "the decision")
		if r.err != nil || r.d.Outcome != tool.ProceedOnce || r.d.NewContent != nil {
			t.Fatalf("decision = %+v, %v", r.d, r.err)
		}
	})
	t.Run("rejected", func(t *testing.T) {
		done := run()
		recv(t, ed.opened, "openDiff")
		if err := s.RejectDiff(path); err != nil {
			t.Fatal(err)
		}
		r := recv(t, done, "the decision")
		if r.err != nil || r.d.Outcome != tool.Cancel || r.d.Reason != "" {
			t.Fatalf("decision = %+v, %v; a refusal is the user's, with no other reason", r.d, r.err)
		}
	})
	// Last: the editor closes with the diff open, and no one else can
	// answer. The edit is cancelled with a reason that is not a refusal.
	// (The editor may stop before its answer to openDiff reaches the
	// client: then the IDE could not show the diff, which is said too.)
	t.Run("the IDE closes", func(t *testing.T) {
		done := run()
		recv(t, ed.opened, "openDiff")
		s.Stop(context.Background())
		r := recv(t, done, "the decision")
		closed := strings.Contains(r.d.Reason, "The IDE closed before the user answered the diff of "+path)
		notShown := strings.Contains(r.d.Reason, "The IDE could not show the diff of "+path)
		if r.err != nil || r.d.Outcome != tool.Cancel || !closed && !notShown {
			t.Fatalf("decision = %+v, %v", r.d, r.err)
		}
	})
	// The editor is gone before the next diff opens: the same, not a
	// refusal.
	t.Run("the IDE is gone", func(t *testing.T) {
		r := recv(t, run(), "the decision")
		if r.err != nil || r.d.Outcome != tool.Cancel || !strings.Contains(r.d.Reason, "The IDE could not show the diff of "+path) {
			t.Fatalf("decision = %+v, %v", r.d, r.err)
		}
	})
}

func TestConfirmInTerminalClosesDiff(t *testing.T) {
	e := newEnv(t)
	ed := newFakeEditor()
	e.start(t, ed)
	c := e.connect(t)
	path := filepath.Join(e.ws, "x.txt")

	answer := make(chan tool.Decision)
	terminal := func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error) {
		select {
		case d := <-answer:
			return d, nil
		case <-ctx.Done():
			return tool.Decision{}, ctx.Err()
		}
	}
	confirm := c.Confirm(terminal)
	done := make(chan tool.Decision, 1)
	go func() {
		d, _ := confirm(context.Background(), editCall(path, "old\n", "new\n"))
		done <- d
	}()
	recv(t, ed.opened, "openDiff")
	// The user edits in the IDE, then approves in the terminal: the IDE's
	// version is written, as in Gemini CLI.
	ed.edit(path, "typed in the IDE\n")
	answer <- tool.Decision{Outcome: tool.ProceedAlways}
	if p := recv(t, ed.closed, "closeDiff"); p != path {
		t.Errorf("closeDiff(%q)", p)
	}
	d := recv(t, done, "the decision")
	if d.Outcome != tool.ProceedAlways || d.NewContent == nil || *d.NewContent != "typed in the IDE\n" {
		t.Fatalf("decision = %+v", d)
	}
}

func TestConfirmPassesOtherCallsOn(t *testing.T) {
	e := newEnv(t)
	ed := newFakeEditor()
	e.start(t, ed)
	c := e.connect(t)
	shell := &agent.ToolCall{Confirmation: &agent.Confirmation{Details: &tool.ConfirmationDetails{Type: tool.ConfirmExec, Command: "ls"}}}

	d, err := c.Confirm(nil)(context.Background(), shell)
	if err != nil || d.Outcome != tool.Cancel {
		t.Errorf("headless shell call: %+v, %v", d, err)
	}
	called := false
	d, err = c.Confirm(func(context.Context, *agent.ToolCall) (tool.Decision, error) {
		called = true
		return tool.Decision{Outcome: tool.ProceedOnce}, nil
	})(context.Background(), shell)
	if err != nil || !called || d.Outcome != tool.ProceedOnce {
		t.Errorf("shell call with a terminal: %+v, %v, called %v", d, err, called)
	}
	select {
	case got := <-ed.opened:
		t.Errorf("a shell call opened a diff: %v", got)
	default:
	}
}

func TestCompanionRestart(t *testing.T) {
	e := newEnv(t)
	first := e.start(t, newFakeEditor())
	a := filepath.Join(e.ws, "a.go")
	first.FileFocused(a)
	c := e.connect(t)
	waitFor(t, c, "the first companion's context", func() bool { return activePath(c) == a })

	first.Stop(context.Background())
	waitFor(t, c, "the disconnection", func() bool { return c.Status().State == ide.Disconnected })
	if c.Context() != nil {
		t.Errorf("context kept after disconnection: %+v", c.Context())
	}

	second := e.start(t, newFakeEditor())
	b := filepath.Join(e.ws, "b.go")
	second.FileFocused(b)
	waitFor(t, c, "the second companion", func() bool {
		st := c.Status()
		return st.State == ide.Connected && st.DiscoveryFile == second.DiscoveryFile() && activePath(c) == b
	})
	// The model learns about the switch as a change.
	c.PromptContext(true)
	_ = first
}
