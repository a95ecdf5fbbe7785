package headless_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

type jsonOut struct {
	Response string   `json:"response"`
	Warnings []string `json:"warnings"`
	Error    any      `json:"error"`
}

// checkLoopStopped checks a stream-json run that loop detection stopped:
// a warning event, then a successful result, as Gemini CLI 0.61 ends it.
func checkLoopStopped(t *testing.T, r e2etest.Result) {
	t.Helper()
	var warn, last map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(r.Stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
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
}

func parseJSONOut(t *testing.T, r e2etest.Result) jsonOut {
	t.Helper()
	var out jsonOut
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s\nstderr %s", err, r.Stdout, r.Stderr)
	}
	return out
}

// TestEmptyResponseRetried: an empty answer is asked for again (up to 3
// times, as Gemini CLI 0.61), and json mode says so on stderr.
func TestEmptyResponseRetried(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Text(""), fakegemini.Thought("**Thinking**"), fakegemini.Text("the answer"))
	r := e.Run("-o", "json", "-p", "hi")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if out := parseJSONOut(t, r); out.Response != "the answer" {
		t.Errorf("response %q", out.Response)
	}
	if n := len(e.Srv.Requests()); n != 3 {
		t.Errorf("%d model calls, want 3", n)
	}
	if !strings.Contains(r.Stderr, "Attempt 1 failed: the model returned an empty response. Retrying with backoff...") ||
		!strings.Contains(r.Stderr, "Attempt 2 failed") {
		t.Errorf("stderr: %q", r.Stderr)
	}

	// Four empty answers: three retries, then the empty answer stands.
	e = e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Text(""), fakegemini.Text(""), fakegemini.Text(""), fakegemini.Text(""), fakegemini.Text("unused"))
	if r := e.Run("-o", "json", "-p", "hi"); r.Code != 0 || len(e.Srv.Requests()) != 4 {
		t.Errorf("exit %d after %d calls: %s", r.Code, len(e.Srv.Requests()), r.Stderr)
	}
}

// TestRetryNoticeOnStderr: while a failing call is retried in json and
// stream-json modes, stderr says so (stdout keeps its format).
func TestRetryNoticeOnStderr(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"json", "stream-json"} {
		e := e2etest.New(t)
		e.Srv.Enqueue(fakegemini.Error(503, "overloaded"), fakegemini.Text("ok"))
		r := e.Run("-o", format, "-p", "hi")
		if r.Code != 0 {
			t.Fatalf("%s: exit %d: %s", format, r.Code, r.Stderr)
		}
		if !strings.Contains(r.Stderr, "Attempt 1 failed with status 503. Retrying with backoff...") || strings.Contains(r.Stdout, "Attempt 1") {
			t.Errorf("%s: stderr %q", format, r.Stderr)
		}
	}
}

// TestLoopDetection: a chanting model is stopped with a warning and exit 0
// (json: "warnings"; stream-json: a warning event, then a successful
// result), while a long Markdown table with repeated rows is not a loop.
func TestLoopDetection(t *testing.T) {
	t.Parallel()
	chant := strings.Repeat("I will now try again to fix the failing test suite. ", 30)
	t.Run("json", func(t *testing.T) {
		e := e2etest.New(t)
		// Told of its chanting once (Gemini CLI 0.61), the model chants again.
		e.Srv.Enqueue(fakegemini.Text("Let me see. ", chant), fakegemini.Text(chant))
		r := e.Run("-o", "json", "-p", "hi")
		if r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		out := parseJSONOut(t, r)
		if len(out.Warnings) != 1 || out.Warnings[0] != "Loop detected, stopping execution" || out.Error != nil || !strings.HasPrefix(out.Response, "Let me see.") {
			t.Errorf("output %s", r.Stdout)
		}
	})
	t.Run("stream-json", func(t *testing.T) {
		e := e2etest.New(t)
		e.Srv.Enqueue(fakegemini.Text(chant), fakegemini.Text(chant))
		r := e.Run("-o", "stream-json", "-p", "hi")
		if r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		checkLoopStopped(t, r)
	})
	t.Run("identical tool calls", func(t *testing.T) {
		e := e2etest.New(t)
		e.Write("a.txt", "a\n")
		for range 6 {
			e.Srv.Enqueue(fakegemini.Call("list_directory", map[string]any{"dir_path": "."}))
		}
		r := e.Run("-o", "json", "-p", "hi")
		if out := parseJSONOut(t, r); r.Code != 0 || len(out.Warnings) != 1 {
			t.Errorf("exit %d, output %s", r.Code, r.Stdout)
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
		e := e2etest.New(t)
		e.Srv.Enqueue(fakegemini.Text(pieces...))
		r := e.Run("-o", "json", "-p", "summarise the packages")
		out := parseJSONOut(t, r)
		if r.Code != 0 || len(out.Warnings) != 0 || out.Response != table {
			t.Errorf("exit %d, warnings %v, response %d bytes of %d", r.Code, out.Warnings, len(out.Response), len(table))
		}
	})
	_ = fmt.Sprint
}

// TestYoloNotice: -y says so on stderr, as Gemini CLI 0.61 does.
func TestYoloNotice(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Srv.Enqueue(fakegemini.Text("ok"), fakegemini.Text("ok"))
	if r := e.Run("-y", "-p", "hi"); r.Code != 0 || !strings.Contains(r.Stderr, "YOLO mode is enabled.") {
		t.Errorf("exit %d stderr %q", r.Code, r.Stderr)
	}
	if r := e.Run("-p", "hi"); strings.Contains(r.Stderr, "YOLO") {
		t.Errorf("stderr without -y: %q", r.Stderr)
	}
}
