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
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/fake"
)

// instructionSpy remembers the system instruction of each streamed call.
type instructionSpy struct {
	*fake.Model
	seen []string
}

func (s *instructionSpy) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	text := ""
	if req.Config != nil && req.Config.SystemInstruction != nil {
		for _, p := range req.Config.SystemInstruction.Parts {
			text += p.Text
		}
	}
	s.seen = append(s.seen, text)
	return s.Model.GenerateContentStream(ctx, req)
}

// /memory refresh and /memory add change the running session's system
// instruction; the shared command alone only read the files.
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
