package ide_test

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
	"github.com/castor-dev/castor/tool/builtin"
)

// scripted is a model that answers from a script and keeps the requests.
type scripted struct {
	mu      sync.Mutex
	replies [][]*genai.Part
	reqs    []*model.Request
}

func (m *scripted) next(req *model.Request) *genai.GenerateContentResponse {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req.Clone())
	parts := []*genai.Part{{Text: "done"}}
	if len(m.replies) > 0 {
		parts, m.replies = m.replies[0], m.replies[1:]
	}
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{
		Content:      &genai.Content{Role: genai.RoleModel, Parts: parts},
		FinishReason: genai.FinishReasonStop,
	}}}
}

func (m *scripted) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	return m.next(req), nil
}

func (m *scripted) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) { yield(m.next(req), nil) }
}

func (m *scripted) CountTokens(context.Context, *model.Request) (int32, error) { return 1, nil }

// requestText joins the text of every content of a request.
func requestText(req *model.Request) string {
	var b strings.Builder
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			b.WriteString(p.Text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

func writeCall(path, content string) []*genai.Part {
	return []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "write_file", Args: map[string]any{"file_path": path, "content": content}}}}
}

// newSession wires a session the way setup_ide.go does: the client's
// PromptContext and Confirm, with the built-in tools over the workspace.
func newSession(t *testing.T, ws string, m model.Model, c *ide.Client, mode policy.Mode) *agent.Session {
	reg := tool.NewRegistry()
	for _, tl := range builtin.All(&builtin.Env{Workspace: tool.NewWorkspace(ws), TempDir: t.TempDir(), Model: m, ModelName: "gemini-2.5-pro"}) {
		reg.Register(tl)
	}
	return agent.New(agent.Config{
		Model:             m,
		ModelName:         "gemini-2.5-pro",
		SystemInstruction: func() string { return "" },
		Tools:             reg,
		Policy:            policy.New(policy.Options{Mode: mode, Interactive: true}),
		PromptContext:     c.PromptContext,
		Confirm:           c.Confirm(nil),
	})
}

func drain(t *testing.T, s *agent.Session, prompt string) {
	t.Helper()
	for _, err := range s.Send(context.Background(), genai.NewPartFromText(prompt)) {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestFullLoop: discovery, connection, context updates in the model's
// requests, an edit shown as a diff, accepted with the user's changes and
// written as the user left it; then a rejected one.
func TestFullLoop(t *testing.T) {
	e := newEnv(t)
	ed := newFakeEditor()
	s := e.start(t, ed)
	main := filepath.Join(e.ws, "main.go")
	os.WriteFile(main, []byte("package main\n"), 0o644)
	s.FileFocused(main)
	s.CursorMoved(main, 1, 9)
	c := e.connect(t)
	waitFor(t, c, "the context", func() bool { f := c.Context().Active(); return f != nil && f.Cursor != nil })

	target := filepath.Join(e.ws, "hello.txt")
	m := &scripted{replies: [][]*genai.Part{writeCall(target, "hello\n"), {{Text: "written"}}}}
	sess := newSession(t, e.ws, m, c, policy.ModeDefault)

	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		got := recv(t, ed.opened, "openDiff")
		if got != [2]string{target, "hello\n"} {
			t.Errorf("openDiff %v", got)
		}
		s.AcceptDiff(target, "hello, edited in the IDE\n")
	}()
	drain(t, sess, "write hello.txt")
	<-accepted

	first := requestText(m.reqs[0])
	if !strings.Contains(first, "Here is the user's editor context as a JSON object.") || !strings.Contains(first, `"path": "`+main+`"`) {
		t.Errorf("first request lacks the editor context:\n%s", first)
	}
	data, _ := os.ReadFile(target)
	if string(data) != "hello, edited in the IDE\n" {
		t.Errorf("file = %q, want the user's version", data)
	}
	if out := functionOutput(m.reqs[1]); !strings.Contains(out, "User modified") {
		t.Errorf("the model is not told the user changed the content: %s", out)
	}

	// The user moves on: the next prompt carries only the change.
	s.CursorMoved(main, 1, 1)
	waitFor(t, c, "the cursor move", func() bool { f := c.Context().Active(); return f != nil && f.Cursor.Character == 1 })
	other := filepath.Join(e.ws, "nope.txt")
	m.replies = [][]*genai.Part{writeCall(other, "no\n"), {{Text: "ok"}}}
	rejected := make(chan struct{})
	go func() {
		defer close(rejected)
		recv(t, ed.opened, "openDiff")
		s.RejectDiff(other)
	}()
	drain(t, sess, "write nope.txt")
	<-rejected
	second := requestText(m.reqs[2])
	if !strings.Contains(second, "Here is a summary of changes in the user's editor context") || !strings.Contains(second, `"cursorMoved"`) {
		t.Errorf("second prompt lacks the delta:\n%s", second)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("a rejected edit was written: %v", err)
	}
	// Rejecting the only call ends the turn without asking the model
	// again; the refusal goes with the next prompt.
	if len(m.reqs) != 3 {
		t.Errorf("%d model calls after the rejection, want none", len(m.reqs)-2)
	}
	h := sess.History()
	if out := functionOutput(&model.Request{Contents: h}); !strings.Contains(out, "Operation Cancelled") {
		t.Errorf("the history does not tell the model the edit was cancelled: %s", out)
	}
}

// functionOutput returns the string values of the function responses in
// the last content of a request.
func functionOutput(req *model.Request) string {
	var b strings.Builder
	for _, p := range req.Contents[len(req.Contents)-1].Parts {
		if p.FunctionResponse == nil {
			continue
		}
		for _, v := range p.FunctionResponse.Response {
			if s, ok := v.(string); ok {
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

// TestAutoApprovedEditOpensNoDiff: with auto_edit the edit needs no
// confirmation, so the IDE is not asked.
func TestAutoApprovedEditOpensNoDiff(t *testing.T) {
	e := newEnv(t)
	ed := newFakeEditor()
	e.start(t, ed)
	c := e.connect(t)
	target := filepath.Join(e.ws, "auto.txt")
	m := &scripted{replies: [][]*genai.Part{writeCall(target, "auto\n"), {{Text: "ok"}}}}
	drain(t, newSession(t, e.ws, m, c, policy.ModeAutoEdit), "write it")
	if data, _ := os.ReadFile(target); string(data) != "auto\n" {
		t.Errorf("file = %q", data)
	}
	select {
	case got := <-ed.opened:
		t.Errorf("an auto-approved edit opened a diff: %v", got)
	default:
	}
}
