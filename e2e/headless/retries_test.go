package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

type jsonOut struct {
	Response string   `json:"response"`
	Warnings []string `json:"warnings"`
	Error    any      `json:"error"`
}

func parseJSONOut(t *testing.T, r result) jsonOut {
	t.Helper()
	var out jsonOut
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s\nstderr %s", err, r.stdout, r.stderr)
	}
	return out
}

// TestEmptyResponseRetried: an empty answer is asked for again (up to 3
// times, as Gemini CLI 0.61), and json mode says so on stderr.
func TestEmptyResponseRetried(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakegemini.Text(""), fakegemini.Thought("**Thinking**"), fakegemini.Text("the answer"))
	r := e.run("-o", "json", "-p", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if out := parseJSONOut(t, r); out.Response != "the answer" {
		t.Errorf("response %q", out.Response)
	}
	if n := len(e.srv.Requests()); n != 3 {
		t.Errorf("%d model calls, want 3", n)
	}
	if !strings.Contains(r.stderr, "Attempt 1 failed: the model returned an empty response. Retrying with backoff...") ||
		!strings.Contains(r.stderr, "Attempt 2 failed") {
		t.Errorf("stderr: %q", r.stderr)
	}

	// Four empty answers: three retries, then the empty answer stands.
	e = newEnv(t)
	e.srv.Enqueue(fakegemini.Text(""), fakegemini.Text(""), fakegemini.Text(""), fakegemini.Text(""), fakegemini.Text("unused"))
	if r := e.run("-o", "json", "-p", "hi"); r.code != 0 || len(e.srv.Requests()) != 4 {
		t.Errorf("exit %d after %d calls: %s", r.code, len(e.srv.Requests()), r.stderr)
	}
}

// TestRetryNoticeOnStderr: while a failing call is retried in json and
// stream-json modes, stderr says so (stdout keeps its format).
func TestRetryNoticeOnStderr(t *testing.T) {
	for _, format := range []string{"json", "stream-json"} {
		e := newEnv(t)
		e.srv.Enqueue(fakegemini.Error(503, "overloaded"), fakegemini.Text("ok"))
		r := e.run("-o", format, "-p", "hi")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", format, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "Attempt 1 failed with status 503. Retrying with backoff...") || strings.Contains(r.stdout, "Attempt 1") {
			t.Errorf("%s: stderr %q", format, r.stderr)
		}
	}
}

// TestLoopDetection: a chanting model is stopped with a warning and exit 0
// (json: "warnings"; stream-json: a warning event, then a successful
// result), while a long Markdown table with repeated rows is not a loop.
func TestLoopDetection(t *testing.T) {
	chant := strings.Repeat("I will now try again to fix the failing test suite. ", 30)
	t.Run("json", func(t *testing.T) {
		e := newEnv(t)
		e.srv.Enqueue(fakegemini.Text("Let me see. ", chant))
		r := e.run("-o", "json", "-p", "hi")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		out := parseJSONOut(t, r)
		if len(out.Warnings) != 1 || out.Warnings[0] != "Loop detected, stopping execution" || out.Error != nil || !strings.HasPrefix(out.Response, "Let me see.") {
			t.Errorf("output %s", r.stdout)
		}
	})
	t.Run("stream-json", func(t *testing.T) {
		e := newEnv(t)
		e.srv.Enqueue(fakegemini.Text(chant))
		r := e.run("-o", "stream-json", "-p", "hi")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		var warn, last map[string]any
		for _, l := range lines {
			var ev map[string]any
			json.Unmarshal([]byte(l), &ev)
			if ev["type"] == "error" {
				warn = ev
			}
			last = ev
		}
		if warn == nil || warn["severity"] != "warning" || warn["message"] != "Loop detected, stopping execution" {
			t.Errorf("warning event %v", warn)
		}
		if last["type"] != "result" || last["status"] != "success" {
			t.Errorf("last event %v", last)
		}
	})
	t.Run("identical tool calls", func(t *testing.T) {
		e := newEnv(t)
		e.write("a.txt", "a\n")
		for range 6 {
			e.srv.Enqueue(fakegemini.Call("list_directory", map[string]any{"dir_path": "."}))
		}
		r := e.run("-o", "json", "-p", "hi")
		if out := parseJSONOut(t, r); r.code != 0 || len(out.Warnings) != 1 {
			t.Errorf("exit %d, output %s", r.code, r.stdout)
		}
	})
	t.Run("markdown table is not a loop", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("| package | status | notes |\n| --- | --- | --- |\n")
		for b.Len() < 4096 {
			b.WriteString("| internal/example/package | ok | no changes needed in this package |\n")
		}
		table := b.String()
		// Streamed in pieces, as a model sends it.
		var pieces []string
		for i := 0; i < len(table); i += 97 {
			pieces = append(pieces, table[i:min(i+97, len(table))])
		}
		e := newEnv(t)
		e.srv.Enqueue(fakegemini.Text(pieces...))
		r := e.run("-o", "json", "-p", "summarise the packages")
		out := parseJSONOut(t, r)
		if r.code != 0 || len(out.Warnings) != 0 || out.Response != table {
			t.Errorf("exit %d, warnings %v, response %d bytes of %d", r.code, out.Warnings, len(out.Response), len(table))
		}
	})
	_ = fmt.Sprint
}

// TestYoloNotice: -y says so on stderr, as Gemini CLI 0.61 does.
func TestYoloNotice(t *testing.T) {
	e := newEnv(t)
	e.srv.Enqueue(fakegemini.Text("ok"), fakegemini.Text("ok"))
	if r := e.run("-y", "-p", "hi"); r.code != 0 || !strings.Contains(r.stderr, "YOLO mode is enabled.") {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
	if r := e.run("-p", "hi"); strings.Contains(r.stderr, "YOLO") {
		t.Errorf("stderr without -y: %q", r.stderr)
	}
}
