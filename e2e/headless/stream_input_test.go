package cli_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// streamProc is a castor process in a stream-json input session: the test
// writes input lines and reads the output events one by one.
type streamProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	events chan map[string]any
	all    []map[string]any
	stderr strings.Builder
}

// hangLimit bounds the wait for one event, so that a hang fails the test
// instead of blocking it; nothing is timed against it.
const hangLimit = 60 * time.Second

func (e *env) startStream(args ...string) *streamProc {
	e.t.Helper()
	p := &streamProc{t: e.t, events: make(chan map[string]any, 256)}
	p.cmd = exec.Command(castorBinary(e.t), args...)
	p.cmd.Dir, p.cmd.Env = e.ws, e.environ()
	p.cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		e.t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { p.cmd.Process.Kill() })
	go func() {
		defer close(p.events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var ev map[string]any
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				ev = map[string]any{"type": "NOT JSON", "line": sc.Text()}
			}
			p.events <- ev
		}
	}()
	return p
}

func (p *streamProc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("writing %q: %v", line, err)
	}
}

// until reads events up to and including the first of type typ.
func (p *streamProc) until(typ string) map[string]any {
	p.t.Helper()
	timer := time.NewTimer(hangLimit)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-p.events:
			if !ok {
				p.t.Fatalf("output ended before a %s event; events %s\nstderr: %s", typ, mustJSON(p.all), p.stderr.String())
			}
			p.all = append(p.all, ev)
			if ev["type"] == typ {
				return ev
			}
		case <-timer.C:
			p.t.Fatalf("no %s event; events so far %s", typ, mustJSON(p.all))
		}
	}
}

// close closes stdin, reads the remaining events and returns the exit code.
func (p *streamProc) close() int {
	p.t.Helper()
	p.stdin.Close()
	for ev := range p.events {
		p.all = append(p.all, ev)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if strings.Contains(p.stderr.String(), "goroutine ") {
			p.t.Fatalf("stack trace on stderr:\n%s", p.stderr.String())
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			p.t.Fatal(err)
		}
		return 0
	case <-time.After(hangLimit):
		p.t.Fatalf("castor did not exit after stdin closed; stderr:\n%s", p.stderr.String())
	}
	return -1
}

func (p *streamProc) count(typ string) int {
	n := 0
	for _, ev := range p.all {
		if ev["type"] == typ {
			n++
		}
	}
	return n
}

// TestStreamJSONInputSession runs three turns in one process, the second
// writing a file after a permission_request answered by an input line,
// with a malformed line between turns; then resumes the recorded session.
func TestStreamJSONInputSession(t *testing.T) {
	e := newEnv(t)
	target := filepath.Join(e.ws, "out.txt")
	e.srv.Enqueue(
		fakegemini.Text("Hello ", "one."),
		fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "approved\n"}),
		fakegemini.Text("Wrote it."),
		fakegemini.Text("Third."),
	)
	p := e.startStream("-p", "--input-format", "stream-json", "-o", "stream-json")

	p.send(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"first"}]},"session_id":"default","parent_tool_use_id":null}`)
	if res := p.until("result"); res["status"] != "success" {
		t.Fatalf("turn 1 result = %v", res)
	}
	p.send(`this is not JSON`)
	p.send(`{"type":"user","message":"second: write out.txt"}`)
	req := p.until("permission_request")
	if req["tool_name"] != "write_file" || !strings.HasPrefix(req["tool_id"].(string), "write_file__") {
		t.Errorf("permission_request = %v", req)
	}
	if params, _ := req["parameters"].(map[string]any); params["file_path"] != target {
		t.Errorf("permission_request parameters = %v", req["parameters"])
	}
	if det, _ := req["details"].(map[string]any); det["type"] != "edit" {
		t.Errorf("permission_request details = %v", req["details"])
	}
	var ids []string
	for _, o := range req["options"].([]any) {
		ids = append(ids, o.(map[string]any)["id"].(string))
	}
	if strings.Join(ids, " ") != "proceed_once proceed_always cancel" {
		t.Errorf("options = %v", ids)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("out.txt written before approval")
	}
	p.send(`{"type":"permission_response","tool_id":"` + req["tool_id"].(string) + `","decision":"proceed_once"}`)
	if res := p.until("result"); res["status"] != "success" || res["stats"].(map[string]any)["tool_calls"] != float64(1) {
		t.Fatalf("turn 2 result = %v", res)
	}
	if got, _ := os.ReadFile(target); string(got) != "approved\n" {
		t.Errorf("out.txt = %q", got)
	}
	p.send(`{"type":"user","message":{"role":"user","content":"third"}}`)
	// Each result counts its own turn.
	if stats := p.until("result")["stats"].(map[string]any); stats["tool_calls"] != float64(0) || len(stats["models"].(map[string]any)) != 1 {
		t.Errorf("turn 3 stats = %v", stats)
	}
	if code := p.close(); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, p.stderr.String())
	}

	if n := p.count("init"); n != 1 {
		t.Errorf("%d init events", n)
	}
	if n := p.count("result"); n != 3 {
		t.Errorf("%d result events: %s", n, mustJSON(p.all))
	}
	var users, errs []string
	for _, ev := range p.all {
		switch {
		case ev["type"] == "message" && ev["role"] == "user":
			users = append(users, ev["content"].(string))
		case ev["type"] == "error":
			errs = append(errs, ev["message"].(string))
			if ev["line"] != float64(2) {
				t.Errorf("error event line = %v", ev["line"])
			}
		case ev["type"] == "tool_result":
			if ev["status"] != "success" {
				t.Errorf("tool_result = %v", ev)
			}
		}
	}
	if strings.Join(users, "|") != "first|second: write out.txt|third" {
		t.Errorf("user messages = %q", users)
	}
	if len(errs) != 1 || !strings.HasPrefix(errs[0], "stdin line 2 skipped: ") {
		t.Errorf("error events = %q", errs)
	}

	// One session file holds the three turns, and --resume continues it.
	conv, err := chats.LoadFile(e.sessionFile())
	if err != nil {
		t.Fatal(err)
	}
	init := p.all[0]
	if conv.SessionID != init["session_id"] {
		t.Errorf("session file %q, init %v", conv.SessionID, init)
	}
	var prompts []string
	for _, c := range conv.History() {
		if c.Role == "user" && len(c.Parts) > 0 && c.Parts[len(c.Parts)-1].Text != "" {
			prompts = append(prompts, c.Parts[len(c.Parts)-1].Text)
		}
	}
	if strings.Join(prompts, "|") != "first|second: write out.txt|third" {
		t.Errorf("recorded prompts = %q (history %s)", prompts, mustJSON(conv.History()))
	}
	if n := len(conv.History()); n != 8 {
		t.Errorf("recorded history has %d contents, want 8: %s", n, mustJSON(conv.History()))
	}

	e.srv.Enqueue(fakegemini.Text("Resumed."))
	r := e.run("--resume", "latest", "-o", "stream-json", "-p", "fourth")
	if r.code != 0 {
		t.Fatalf("resume exit %d: %s", r.code, r.stderr)
	}
	// The session context joined with the first of the eight recorded
	// contents (roles alternate), the others, the new prompt.
	if last := e.srv.LastRequest().Contents; len(last) != 9 || last[0].Parts[1].Text != "first" || last[8].Parts[0].Text != "fourth" {
		t.Errorf("resumed request has %d contents: %s", len(last), mustJSON(last))
	}
}

// TestStreamJSONInputInterruptAndEOF interrupts a turn waiting for a
// confirmation, runs another turn in the same process, and closes stdin
// while a third waits: the call is cancelled, the turn ends, castor exits.
func TestStreamJSONInputInterruptAndEOF(t *testing.T) {
	e := newEnv(t)
	target := filepath.Join(e.ws, "never.txt")
	write := fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "x"})
	e.srv.Enqueue(write, fakegemini.Text("After."), write)
	p := e.startStream("--input-format", "stream-json", "-o", "stream-json")

	p.send(`{"type":"user","message":"write it"}`)
	p.until("permission_request")
	p.send(`{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}`)
	if ack := p.until("control_response"); mustJSON(ack["response"]) != `{"request_id":"r1","subtype":"success"}` {
		t.Errorf("control_response = %v", ack)
	}
	res := p.until("result")
	if errObj, _ := res["error"].(map[string]any); res["status"] != "error" || errObj["type"] != "FatalCancellationError" {
		t.Errorf("interrupted result = %v", res)
	}

	// Input lines are prompts like typed ones: @path includes work.
	e.write("hello.txt", "HELLO-CONTENT")
	p.send(`{"type":"user","message":"go on with @hello.txt"}`)
	if res := p.until("result"); res["status"] != "success" {
		t.Errorf("turn after interrupt = %v", res)
	}
	if got := mustJSON(e.srv.LastRequest().Contents); !strings.Contains(got, "HELLO-CONTENT") {
		t.Errorf("@hello.txt not included: %s", got)
	}
	p.send(`{"type":"user","message":"write again"}`)
	p.until("permission_request")
	if code := p.close(); code != 0 {
		t.Errorf("exit %d; stderr: %s", code, p.stderr.String())
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("never.txt was written")
	}
	if n := p.count("result"); n != 3 {
		t.Errorf("%d results: %s", n, mustJSON(p.all))
	}
	var cancelled bool
	for _, ev := range p.all {
		if ev["type"] == "tool_result" && ev["status"] == "error" {
			cancelled = true
		}
	}
	if !cancelled {
		t.Errorf("the call pending at EOF was not reported cancelled: %s", mustJSON(p.all))
	}
}

// TestStreamJSONInputSignal stops a session waiting for a confirmation
// with SIGTERM: the turn ends with a result and castor exits 130.
func TestStreamJSONInputSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM to a child on Windows")
	}
	e := newEnv(t, fakegemini.Call("write_file", map[string]any{"file_path": "x.txt", "content": "x"}))
	p := e.startStream("--input-format", "stream-json", "-o", "stream-json")
	p.send(`{"type":"user","message":"write it"}`)
	p.until("permission_request")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if res := p.until("result"); res["status"] != "error" {
		t.Errorf("result = %v", res)
	}
	if code := p.close(); code != 130 {
		t.Errorf("exit %d, want 130; stderr: %s", code, p.stderr.String())
	}
}
