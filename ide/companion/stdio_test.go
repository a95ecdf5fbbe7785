package companion_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/ide/companion"
)

const guard = 20 * time.Second

func TestParseEvent(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		line    string
		want    companion.Event
		wantErr string
	}{
		{`{"type":"focused","path":"/a","cursor":{"line":1,"character":2},"selectedText":"x"}`,
			companion.Event{Type: "focused", Path: "/a", Cursor: &ide.Cursor{Line: 1, Character: 2}, SelectedText: s("x")}, ""},
		{`{"type":"opened","path":"/a","future":"field"}`, companion.Event{Type: "opened", Path: "/a"}, ""},
		{`{"type":"selection","path":"/a","selectedText":""}`, companion.Event{Type: "selection", Path: "/a", SelectedText: s("")}, ""},
		{`{"type":"diffAccepted","path":"/a"}`, companion.Event{Type: "diffAccepted", Path: "/a"}, ""},
		{`{"type":"trusted","trusted":false}`, companion.Event{Type: "trusted", Trusted: new(bool)}, ""},
		{`{"type":"cursor","path":"/a"}`, companion.Event{}, "without a cursor"},
		{`{"type":"selection","path":"/a"}`, companion.Event{}, "without selectedText"},
		{`{"type":"diffClosed","path":"/a"}`, companion.Event{}, "without content"},
		{`{"type":"closed"}`, companion.Event{}, "without a path"},
		{`{"type":"trusted"}`, companion.Event{}, "without trusted"},
		{`{"type":"teleport","path":"/a"}`, companion.Event{}, `unknown event type "teleport"`},
		{`{"path":"/a"}`, companion.Event{}, "without a type"},
		{`{"type":"opened","path":"/a"} {"type":"opened","path":"/b"}`, companion.Event{}, "one JSON object per line"},
		{`not json`, companion.Event{}, "not a JSON event"},
		// In the plugin's terms, not the companion's Go types.
		{`{"type":"focused","path":"/a","selectedText":5}`, companion.Event{}, `not a JSON event: "selectedText" must be a string, not number`},
		{`[1,2]`, companion.Event{}, "not a JSON event: the value must be an object, not array"},
		{`{"type":"cursor","path":"/a","cursor":{"line":"1","character":1}}`, companion.Event{}, "not a JSON event"},
	}
	for _, tt := range tests {
		got, err := companion.ParseEvent([]byte(tt.line))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.line, diff)
		}
	}
}

// FuzzParseEvent: any line a plugin writes is either rejected or gives an
// event with the fields its type needs.
func FuzzParseEvent(f *testing.F) {
	for _, l := range []string{
		`{"type":"focused","path":"/a","cursor":{"line":1,"character":2}}`,
		`{"type":"diffClosed","path":"/a","content":"x"}`,
		`{"type":"trusted","trusted":true}`,
		`{"type":"cursor","path":"/a","cursor":{"line":1e99,"character":-1}}`,
	} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := companion.ParseEvent(line)
		if err != nil {
			return
		}
		switch e.Type {
		case companion.EventCursor:
			if e.Cursor == nil || e.Path == "" {
				t.Fatalf("%+v", e)
			}
		case companion.EventTrusted:
			if e.Trusted == nil {
				t.Fatalf("%+v", e)
			}
		case companion.EventOpened, companion.EventClosed, companion.EventFocused, companion.EventSelection,
			companion.EventDiffAccepted, companion.EventDiffRejected, companion.EventDiffClosed:
			if e.Path == "" {
				t.Fatalf("%+v", e)
			}
		default:
			t.Fatalf("accepted type %q", e.Type)
		}
	})
}

// plugin is the editor side of a ServeStdio run.
type plugin struct {
	t    *testing.T
	in   *io.PipeWriter
	msgs chan companion.Message
	done chan error
}

func startStdio(t *testing.T, tmp, ws string) (*plugin, companion.Message) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &plugin{t: t, in: inW, msgs: make(chan companion.Message, 16), done: make(chan error, 1)}
	go func() {
		err := companion.ServeStdio(context.Background(), inR, outW, companion.StdioOptions{
			Server:           companion.Options{Workspaces: []string{ws}, TempDir: tmp, PID: 4343, IDE: ide.IDEInfo{Name: "neovim", DisplayName: "Neovim"}, Debounce: time.Millisecond},
			CloseDiffTimeout: guard,
		})
		outW.Close()
		p.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m companion.Message
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("output line %q: %v", sc.Text(), err)
				continue
			}
			p.msgs <- m
		}
		close(p.msgs)
	}()
	ready := p.next()
	if ready.Type != companion.MessageReady {
		t.Fatalf("first message %+v", ready)
	}
	return p, ready
}

func (p *plugin) send(format string, args ...any) {
	p.t.Helper()
	if _, err := fmt.Fprintf(p.in, format+"\n", args...); err != nil {
		p.t.Fatal(err)
	}
}

func (p *plugin) next() companion.Message {
	p.t.Helper()
	select {
	case m, ok := <-p.msgs:
		if !ok {
			p.t.Fatal("output closed")
		}
		return m
	case <-time.After(guard):
		p.t.Fatal("no message from the companion")
	}
	return companion.Message{}
}

func waitFor(t *testing.T, c *ide.Client, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(guard)
	for {
		ch := c.Changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

func TestServeStdio(t *testing.T) {
	tmp := t.TempDir()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	p, ready := startStdio(t, tmp, ws)

	want := filepath.Join(tmp, "gemini", "ide", fmt.Sprintf("gemini-ide-server-4343-%d.json", ready.Port))
	if ready.DiscoveryFile != want || ready.WorkspacePath != ws || ready.AuthToken == "" ||
		ready.Env[ide.EnvServerPort] != fmt.Sprint(ready.Port) || ready.Env[ide.EnvWorkspacePath] != ws || ready.Env[ide.EnvAuthToken] != ready.AuthToken {
		t.Fatalf("ready = %+v", ready)
	}

	main := filepath.Join(ws, "main.go")
	p.send(`{"type":"opened","path":%q}`, filepath.Join(ws, "go.mod"))
	p.send(`{"type":"focused","path":%q}`, main)
	p.send(`{"type":"cursor","path":%q,"cursor":{"line":7,"character":3}}`, main)
	p.send(`{"type":"selection","path":%q,"selectedText":"fmt.Println"}`, main)

	c, err := ide.Connect(context.Background(), ide.Options{WorkDir: ws, TempDir: tmp, IDEPID: 4343, Host: "127.0.0.1", Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if st := c.Status(); st.IDE.DisplayName != "Neovim" || !st.Diffing {
		t.Errorf("status %+v", st)
	}
	waitFor(t, c, "the selection", func() bool {
		f := c.Context().Active()
		return f != nil && f.Path == main && f.SelectedText == "fmt.Println" && f.Cursor != nil && f.Cursor.Line == 7 && len(c.Context().Files()) == 2
	})

	// An edit proposal becomes an openDiff request; the user accepts an
	// edited version.
	type result struct {
		r   ide.DiffResult
		err error
	}
	res := make(chan result, 1)
	go func() {
		r, err := c.OpenDiff(context.Background(), main, "package main\n")
		res <- result{r, err}
	}()
	m := p.next()
	if m.Type != companion.MessageOpenDiff || m.Path != main || m.NewContent == nil || *m.NewContent != "package main\n" {
		t.Fatalf("message %+v", m)
	}
	p.send(`{"type":"diffAccepted","path":%q,"content":"package main // edited\n"}`, main)
	r := <-res
	if r.err != nil || !r.r.Accepted || r.r.Content == nil || *r.r.Content != "package main // edited\n" {
		t.Fatalf("diff result %+v %v", r.r, r.err)
	}

	// Accepting without content takes the proposal.
	go func() {
		r, err := c.OpenDiff(context.Background(), main, "v2\n")
		res <- result{r, err}
	}()
	p.next()
	p.send(`{"type":"diffAccepted","path":%q}`, main)
	if r := <-res; r.err != nil || r.r.Content == nil || *r.r.Content != "v2\n" {
		t.Fatalf("diff result %+v %v", r.r, r.err)
	}

	// Rejected.
	go func() {
		r, err := c.OpenDiff(context.Background(), main, "v3\n")
		res <- result{r, err}
	}()
	p.next()
	p.send(`{"type":"diffRejected","path":%q}`, main)
	if r := <-res; r.err != nil || r.r.Accepted {
		t.Fatalf("diff result %+v %v", r.r, r.err)
	}

	// Closed from the CLI: the plugin replies with the buffer's content.
	go func() {
		r, err := c.OpenDiff(context.Background(), main, "v4\n")
		res <- result{r, err}
	}()
	p.next()
	closed := make(chan string, 1)
	go func() {
		content, _, err := c.CloseDiff(context.Background(), main)
		if err != nil {
			t.Error(err)
		}
		closed <- content
	}()
	if m := p.next(); m.Type != companion.MessageCloseDiff || m.Path != main {
		t.Fatalf("message %+v", m)
	}
	p.send(`{"type":"diffClosed","path":%q,"content":"v4 with typing\n"}`, main)
	if got := <-closed; got != "v4 with typing\n" {
		t.Errorf("closeDiff content %q", got)
	}
	if r := <-res; !errors.Is(r.err, ide.ErrDiffClosed) {
		t.Errorf("OpenDiff of a diff closed from the CLI: %+v, %v", r.r, r.err)
	}
	p.send(`{"type":"diffRejected","path":%q}`, main)
	if m := p.next(); m.Type != companion.MessageError || !strings.Contains(m.Message, "no diff is open") {
		t.Errorf("answer to a closed diff: %+v", m)
	}

	// Bad lines are reported and skipped.
	p.send(`{"type":"focused","path":"relative.go"}`)
	if m := p.next(); m.Type != companion.MessageError || !strings.Contains(m.Message, "not an absolute file path") || m.Line == 0 {
		t.Errorf("message %+v", m)
	}
	p.send(`garbage`)
	if m := p.next(); m.Type != companion.MessageError || !strings.Contains(m.Message, "not a JSON event") {
		t.Errorf("message %+v", m)
	}

	// The editor goes away: the companion stops and removes its file.
	p.in.Close()
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(guard):
		t.Fatal("ServeStdio did not return at the end of its input")
	}
	if _, err := os.Stat(ready.DiscoveryFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("discovery file left: %v", err)
	}
}

func TestServeStdioCloseDiffFallback(t *testing.T) {
	tmp := t.TempDir()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	go companion.ServeStdio(context.Background(), inR, outW, companion.StdioOptions{
		Server: companion.Options{Workspaces: []string{ws}, TempDir: tmp, PID: 4344},
		// The plugin never answers closeDiff: the proposal comes back.
		CloseDiffTimeout: time.Nanosecond,
	})
	ready, opened := make(chan struct{}, 1), make(chan struct{}, 1)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			switch {
			case strings.Contains(sc.Text(), `"type":"ready"`):
				ready <- struct{}{}
			case strings.Contains(sc.Text(), `"type":"openDiff"`):
				opened <- struct{}{}
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(guard):
		t.Fatal("the companion did not start")
	}
	c, err := ide.Connect(context.Background(), ide.Options{WorkDir: ws, TempDir: tmp, IDEPID: 4344, Host: "127.0.0.1", InitialContextWait: -1, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	path := filepath.Join(ws, "x")
	go c.OpenDiff(context.Background(), path, "proposal")
	select {
	case <-opened:
	case <-time.After(guard):
		t.Fatal("no openDiff request")
	}
	content, ok, err := c.CloseDiff(context.Background(), path)
	if err != nil || !ok || content != "proposal" {
		t.Errorf("content %q, %v, %v", content, ok, err)
	}
}
