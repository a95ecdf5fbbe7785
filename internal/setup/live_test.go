package setup

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/fake"
)

// instructionSpy remembers the system instruction of each streamed call.
type instructionSpy struct {
	*fake.Model
	seen, contents []string
}

func (s *instructionSpy) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	text := ""
	if req.Config != nil && req.Config.SystemInstruction != nil {
		for _, p := range req.Config.SystemInstruction.Parts {
			text += p.Text
		}
	}
	s.seen = append(s.seen, text)
	s.contents = append(s.contents, mustText(req.Contents))
	return s.Model.GenerateContentStream(ctx, req)
}

// /memory refresh and /memory add change the running session's system
// instruction (global memory) and the environment context already in its
// history (project memory); the shared command alone only read the files.
func TestMemoryCommandsReloadSession(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	spy := &instructionSpy{Model: fake.Script(fake.Text("one"), fake.Text("two"), fake.Text("three"))}
	a, err := New(context.Background(), Options{WorkDir: ws, HomeDir: home, Client: spy, Env: envOf(func(string) string { return "" })})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	env := command.Env{Workspace: ws, HomeDir: home, Trusted: true}
	steps := []struct {
		name, line string
		before     func()
		want       string
	}{
		{"start", "", nil, ""},
		{"refresh", "/memory refresh", func() {
			writeFile(t, filepath.Join(home, ".gemini", "GEMINI.md"), "Always answer in haiku.")
			writeFile(t, filepath.Join(ws, "GEMINI.md"), "Project rule: indent with tabs.")
		}, "Always answer in haiku."},
		{"add", "/memory add the build runs with make", nil, "the build runs with make"},
	}
	for i, st := range steps {
		if st.before != nil {
			st.before()
		}
		if st.line != "" {
			res, err := a.Commands.RunLine(context.Background(), st.line, env)
			if err != nil || res.MessageType == command.MessageError {
				t.Fatalf("%s: %v %+v", st.line, err, res)
			}
		}
		if _, err := a.Send(context.Background(), "hi"); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := spy.seen[i]; st.want != "" && !strings.Contains(got, st.want) {
			t.Errorf("%s: system instruction lacks %q", st.name, st.want)
		}
	}
	if got := spy.contents[1]; !strings.Contains(got, "Project rule: indent with tabs.") || strings.Count(got, "<session_context>") != 1 {
		t.Errorf("the environment context was not refreshed:\n%s", got)
	}
	if strings.Contains(spy.seen[0], "haiku") {
		t.Errorf("memory present before it was written")
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini", "GEMINI.md")); err != nil {
		t.Fatal(err)
	}
}

// /compress is a session command every face gets; a short conversation
// has nothing to compress.
func TestCompressCommand(t *testing.T) {
	a, err := New(context.Background(), Options{WorkDir: t.TempDir(), HomeDir: t.TempDir(), Client: fake.Script(), Env: envOf(func(string) string { return "" })})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Commands.RunLine(context.Background(), "/compress", command.Env{})
	if err != nil || !strings.Contains(res.Content, "Nothing to compress") {
		t.Fatalf("/compress: %v %+v", err, res)
	}
}

// ResumeChat switches a running session to a recorded one: the model sees
// the resumed conversation and the new turns are recorded in its file.
func TestResumeChatInPlace(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	opts := func(c model.Model) Options {
		return Options{WorkDir: ws, HomeDir: home, Client: c, Env: envOf(func(string) string { return "" })}
	}
	firstID := recordedSession(t, opts(fake.Script(fake.Text("Paris."))), "capital of France?") // budget_test.go

	spy := &requestSpy{Model: fake.Script(fake.Text("Berlin."))}
	a, err := New(context.Background(), opts(spy))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, _, err := a.ResumeChat("no-such-session"); err == nil {
		t.Error("resuming an unknown session succeeded")
	}
	id, hist, err := a.ResumeChat(firstID)
	if err != nil {
		t.Fatal(err)
	}
	if id != firstID || len(hist) != 2 {
		t.Fatalf("resumed %s with %d contents", id, len(hist))
	}
	if _, err := a.Send(context.Background(), "and Germany?"); err != nil {
		t.Fatal(err)
	}
	sent := mustText(spy.last)
	if !strings.Contains(sent, "capital of France?") || !strings.Contains(sent, "Paris.") || !strings.Contains(sent, "<session_context>") {
		t.Errorf("the model did not get the resumed conversation:\n%s", sent)
	}
	store, err := chats.OpenStore(filepath.Join(home, ".gemini"), ws)
	if err != nil {
		t.Fatal(err)
	}
	info, err := store.Resolve(firstID)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := store.Load(info)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustText(conv.History()); !strings.Contains(got, "and Germany?") || !strings.Contains(got, "Berlin.") {
		t.Errorf("the new turn is not recorded in the resumed session:\n%s", got)
	}
}

// requestSpy remembers the contents of the last streamed call.
type requestSpy struct {
	*fake.Model
	last []*genai.Content
}

func (s *requestSpy) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	s.last = req.Contents
	return s.Model.GenerateContentStream(ctx, req)
}

func mustText(cs []*genai.Content) string {
	var b strings.Builder
	for _, c := range cs {
		for _, p := range c.Parts {
			b.WriteString(p.Text + "\n")
		}
	}
	return b.String()
}
