package companion

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/internal/golden"
)

// rawSession speaks MCP over HTTP by hand, to see the bytes the companion
// sends rather than what an SDK makes of them.
type rawSession struct {
	t     *testing.T
	url   string
	token string
	id    string
	next  int
}

func newRawSession(t *testing.T, s *Server) *rawSession {
	r := &rawSession{t: t, url: fmt.Sprintf("http://127.0.0.1:%d/mcp", s.Port()), token: s.Token()}
	r.call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	r.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func (r *rawSession) post(body string) (*http.Response, []byte) {
	r.t.Helper()
	req, _ := http.NewRequest("POST", r.url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+r.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.id != "" {
		req.Header.Set("Mcp-Session-Id", r.id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		r.id = id
	}
	return resp, data
}

// call sends a request and returns the JSON of its response's result.
func (r *rawSession) call(method, params string) string {
	r.t.Helper()
	r.next++
	_, data := r.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, r.next, method, params))
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "data: "); ok {
			data = []byte(rest)
			break
		}
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &msg); err != nil || msg.Result == nil {
		r.t.Fatalf("%s: %s", method, data)
	}
	var out bytes.Buffer
	json.Indent(&out, msg.Result, "", "  ")
	return out.String() + "\n"
}

// stream opens the session's standalone event stream and returns its
// messages' data, one per event.
func (r *rawSession) stream(ctx context.Context) <-chan string {
	r.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", r.url, nil)
	req.Header.Set("Authorization", "Bearer "+r.token)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", r.id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		r.t.Fatalf("GET stream: %s", resp.Status)
	}
	ch := make(chan string, 16)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				ch <- d
			}
		}
	}()
	return ch
}

func TestToolResultShapes(t *testing.T) {
	ed := &recordingEditor{}
	s, _ := startServer(t, ed)
	r := newRawSession(t, s)

	golden.Check(t, "tools_list.golden", r.call("tools/list", `{}`))
	golden.Check(t, "open_diff_ok.golden", r.call("tools/call", `{"name":"openDiff","arguments":{"filePath":"/ws/a/x.go","newContent":"package x\n"}}`))
	golden.Check(t, "close_diff_ok.golden", r.call("tools/call", `{"name":"closeDiff","arguments":{"filePath":"/ws/a/x.go","suppressNotification":true}}`))
	golden.Check(t, "close_diff_not_open.golden", r.call("tools/call", `{"name":"closeDiff","arguments":{"filePath":"/ws/a/x.go"}}`))
	golden.Check(t, "open_diff_relative.golden", r.call("tools/call", `{"name":"openDiff","arguments":{"filePath":"x.go","newContent":""}}`))
	golden.Check(t, "open_diff_missing_content.golden", r.call("tools/call", `{"name":"openDiff","arguments":{"filePath":"/ws/a/x.go"}}`))
	ed.fail = errors.New("the editor is busy")
	golden.Check(t, "open_diff_editor_fails.golden", r.call("tools/call", `{"name":"openDiff","arguments":{"filePath":"/ws/a/x.go","newContent":"y"}}`))
}

func TestToolsWithoutEditor(t *testing.T) {
	s, _ := startServer(t, nil)
	r := newRawSession(t, s)
	got := r.call("tools/call", `{"name":"openDiff","arguments":{"filePath":"/ws/a/x.go","newContent":"y"}}`)
	if !strings.Contains(got, `"isError": true`) || !strings.Contains(got, "no editor") {
		t.Errorf("result %s", got)
	}
}

// TestNotificationsOnTheStream checks the wire form of the three
// notifications and that they reach a session opened before and after
// they were sent.
func TestNotificationsOnTheStream(t *testing.T) {
	ed := &recordingEditor{}
	s, _ := startServer(t, ed)
	r := newRawSession(t, s)
	// Sent before the stream opens: queued.
	s.FileFocused("/ws/a/main.go")
	flushNow(s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := r.stream(ctx)
	next := func() string {
		select {
		case e := <-events:
			return e
		case <-time.After(guard):
			t.Fatal("no event")
		}
		return ""
	}
	// The session's greeting and the update queued before the stream
	// opened are both context updates; queued context is coalesced (only
	// the latest counts), so one or two arrive depending on whether the
	// greeting was queued first. Either way the first one already carries
	// the queued file.
	first := next()
	if !strings.HasPrefix(first, `{"jsonrpc":"2.0","method":"ide/contextUpdate","params":{"workspaceState":{"openFiles":[`) {
		t.Errorf("first event %s", first)
	}
	if !strings.Contains(first, `"path":"/ws/a/main.go"`) {
		t.Error("the queued update did not arrive")
	}
	// Later checks are about diffs: skip any further context update.
	nextDiff := func() string {
		for {
			e := next()
			if !strings.Contains(e, `"method":"ide/contextUpdate"`) {
				return e
			}
		}
	}

	r.call("tools/call", `{"name":"openDiff","arguments":{"filePath":"/ws/a/x.go","newContent":"new"}}`)
	if err := s.AcceptDiff("/ws/a/x.go", "new <edited> & kept"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "diff_accepted.golden", nextDiff()+"\n")
	r.call("tools/call", `{"name":"openDiff","arguments":{"filePath":"/ws/a/y.go","newContent":"new"}}`)
	if err := s.RejectDiff("/ws/a/y.go"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "diff_rejected.golden", nextDiff()+"\n")
	if err := s.RejectDiff("/ws/a/y.go"); !errors.Is(err, ErrNoDiff) {
		t.Errorf("second answer: %v", err)
	}
}

// flushNow fires the pending debounce at once.
func flushNow(s *Server) {
	s.mu.Lock()
	gen := s.timerGen
	s.mu.Unlock()
	s.flushContext(gen)
}

func TestContextWireForm(t *testing.T) {
	s := New(Options{Now: func() time.Time { return time.UnixMilli(1700000000000) }})
	s.FileFocused(filepath.FromSlash("/ws/a.go"))
	s.CursorMoved(filepath.FromSlash("/ws/a.go"), 3, 9)
	s.SelectionChanged(filepath.FromSlash("/ws/a.go"), "x := 1")
	s.FileOpened(filepath.FromSlash("/ws/b.go"))
	s.SetTrusted(false)
	data, err := notification("ide/contextUpdate", wireContext(s.Context()))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "context_update.golden", string(data)+"\n")
	empty, _ := notification("ide/contextUpdate", wireContext(New(Options{}).Context()))
	if string(empty) != `{"jsonrpc":"2.0","method":"ide/contextUpdate","params":{"workspaceState":{"openFiles":[]}}}` {
		t.Errorf("empty context: %s", empty)
	}
	// What the CLI makes of it.
	var msg struct{ Params json.RawMessage }
	json.Unmarshal(data, &msg)
	c, err := ide.ParseContext(msg.Params)
	if err != nil || c.Active() == nil || c.Active().Cursor.Line != 3 || len(c.Files()) != 2 {
		t.Errorf("parsed %+v, %v", c, err)
	}
}
