package headless_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestStreamJSONInputSession runs three turns in one process, the second
// writing a file after a permission_request answered by an input line,
// with a malformed line between turns; then resumes the recorded session.
func TestStreamJSONInputSession(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	target := filepath.Join(e.WS, "out.txt")
	e.Srv.Enqueue(
		fakegemini.Text("Hello ", "one."),
		fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "approved\n"}),
		fakegemini.Text("Wrote it."),
		fakegemini.Text("Third."),
	)
	p := e.StartStream("-p", "--input-format", "stream-json", "-o", "stream-json")

	p.Send(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"first"}]},"session_id":"default","parent_tool_use_id":null}`)
	if res := p.Until("result"); res["status"] != "success" {
		t.Fatalf("turn 1 result = %v", res)
	}
	p.Send(`this is not JSON`)
	p.Send(`{"type":"user","message":"second: write out.txt"}`)
	req := p.Until("permission_request")
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
	p.Send(`{"type":"permission_response","tool_id":"` + req["tool_id"].(string) + `","decision":"proceed_once"}`)
	if res := p.Until("result"); res["status"] != "success" || res["stats"].(map[string]any)["tool_calls"] != float64(1) {
		t.Fatalf("turn 2 result = %v", res)
	}
	if got, _ := os.ReadFile(target); string(got) != "approved\n" {
		t.Errorf("out.txt = %q", got)
	}
	p.Send(`{"type":"user","message":{"role":"user","content":"third"}}`)
	// Each result counts its own turn.
	if stats := p.Until("result")["stats"].(map[string]any); stats["tool_calls"] != float64(0) || len(stats["models"].(map[string]any)) != 1 {
		t.Errorf("turn 3 stats = %v", stats)
	}
	if code := p.Close(); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, p.Stderr.String())
	}

	if n := p.Count("init"); n != 1 {
		t.Errorf("%d init events", n)
	}
	if n := p.Count("result"); n != 3 {
		t.Errorf("%d result events: %s", n, e2etest.MustJSON(p.All))
	}
	var users, errs []string
	for _, ev := range p.All {
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
	conv, err := chats.LoadFile(e.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	init := p.All[0]
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
		t.Errorf("recorded prompts = %q (history %s)", prompts, e2etest.MustJSON(conv.History()))
	}
	if n := len(conv.History()); n != 8 {
		t.Errorf("recorded history has %d contents, want 8: %s", n, e2etest.MustJSON(conv.History()))
	}

	e.Srv.Enqueue(fakegemini.Text("Resumed."))
	r := e.Run("--resume", "latest", "-o", "stream-json", "-p", "fourth")
	if r.Code != 0 {
		t.Fatalf("resume exit %d: %s", r.Code, r.Stderr)
	}
	// The session context joined with the first of the eight recorded
	// contents (roles alternate), the others, the new prompt.
	if last := e.Srv.LastRequest().Contents; len(last) != 9 || last[0].Parts[1].Text != "first" || last[8].Parts[0].Text != "fourth" {
		t.Errorf("resumed request has %d contents: %s", len(last), e2etest.MustJSON(last))
	}
}

// TestStreamJSONInputInterruptAndEOF interrupts a turn waiting for a
// confirmation, runs another turn in the same process, and closes stdin
// while a third waits: the call is cancelled, the turn ends, castor exits.
func TestStreamJSONInputInterruptAndEOF(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	target := filepath.Join(e.WS, "never.txt")
	write := fakegemini.Call("write_file", map[string]any{"file_path": target, "content": "x"})
	e.Srv.Enqueue(write, fakegemini.Text("After."), write)
	p := e.StartStream("--input-format", "stream-json", "-o", "stream-json")

	p.Send(`{"type":"user","message":"write it"}`)
	p.Until("permission_request")
	p.Send(`{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}`)
	if ack := p.Until("control_response"); e2etest.MustJSON(ack["response"]) != `{"request_id":"r1","subtype":"success"}` {
		t.Errorf("control_response = %v", ack)
	}
	res := p.Until("result")
	if errObj, _ := res["error"].(map[string]any); res["status"] != "error" || errObj["type"] != "FatalCancellationError" {
		t.Errorf("interrupted result = %v", res)
	}

	// Input lines are prompts like typed ones: @path includes work.
	e.Write("hello.txt", "HELLO-CONTENT")
	p.Send(`{"type":"user","message":"go on with @hello.txt"}`)
	if res := p.Until("result"); res["status"] != "success" {
		t.Errorf("turn after interrupt = %v", res)
	}
	if got := e2etest.MustJSON(e.Srv.LastRequest().Contents); !strings.Contains(got, "HELLO-CONTENT") {
		t.Errorf("@hello.txt not included: %s", got)
	}
	p.Send(`{"type":"user","message":"write again"}`)
	p.Until("permission_request")
	if code := p.Close(); code != 0 {
		t.Errorf("exit %d; stderr: %s", code, p.Stderr.String())
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("never.txt was written")
	}
	if n := p.Count("result"); n != 3 {
		t.Errorf("%d results: %s", n, e2etest.MustJSON(p.All))
	}
	var cancelled bool
	for _, ev := range p.All {
		if ev["type"] == "tool_result" && ev["status"] == "error" {
			cancelled = true
		}
	}
	if !cancelled {
		t.Errorf("the call pending at EOF was not reported cancelled: %s", e2etest.MustJSON(p.All))
	}
}

// TestStreamJSONInputSignal stops a session waiting for a confirmation
// with SIGTERM: the turn ends with a result and castor exits 130.
func TestStreamJSONInputSignal(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM to a child on Windows")
	}
	e := e2etest.New(t, fakegemini.Call("write_file", map[string]any{"file_path": "x.txt", "content": "x"}))
	p := e.StartStream("--input-format", "stream-json", "-o", "stream-json")
	p.Send(`{"type":"user","message":"write it"}`)
	p.Until("permission_request")
	p.Signal(syscall.SIGTERM)
	if res := p.Until("result"); res["status"] != "error" {
		t.Errorf("result = %v", res)
	}
	if code := p.Close(); code != 130 {
		t.Errorf("exit %d, want 130; stderr: %s", code, p.Stderr.String())
	}
}
