package headless_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// hostile are terminal control sequences an injected reply could carry.
var hostile = []string{
	"\x1b]0;pwned-title\x07",       // OSC 0: retitle the terminal (BEL-terminated)
	"\x1b]52;c;Y2xpcGJvYXJk\x1b\\", // OSC 52: write the clipboard (ST-terminated)
	"\x1b[31;1m", "\x1b[0m",        // CSI colours
	"\x1b[2A", "\x1b[10;5H", "\x1b[2K", // CSI cursor moves and erase
	"\x1bP1$r0m\x1b\\",       // DCS
	"\x1b_Gf=100;AAAA\x1b\\", // APC
	"\u009b7m",               // C1 CSI
	"\x07",                   // BEL
	"\x1b\n",                 // a lone ESC
}

// hostileReply is a reply in pieces that split some sequences in two.
func hostileReply() fakegemini.Reply {
	return fakegemini.Text(
		"Hello "+hostile[0][:5], hostile[0][5:]+"there"+hostile[1],
		hostile[2]+"red"+hostile[3][:2], hostile[3][2:]+hostile[4]+hostile[5]+hostile[6]+"moved ",
		hostile[7]+hostile[8]+"hidden?"+hostile[9]+"c1"+hostile[10]+" end"+hostile[11])
}

// hostileCall fails with an error message that quotes its argument.
func hostileCall(ws string) fakegemini.Reply {
	return fakegemini.Call("read_file", map[string]any{"absolute_path": filepath.Join(ws, "no"+hostile[0]+"file.txt")})
}

// checkClean fails when s holds a control character other than newline
// and tab, or text from inside a sequence.
func checkClean(t *testing.T, where, s string) {
	t.Helper()
	checkNoControl(t, where, s)
	for _, inside := range []string{"pwned-title", "Y2xpcGJvYXJk", "AAAA"} {
		if strings.Contains(s, inside) {
			t.Errorf("%s holds %q from inside a sequence: %q", where, inside, s)
		}
	}
}

// checkNoControl fails when s holds a control character other than
// newline and tab.
func checkNoControl(t *testing.T, where, s string) {
	t.Helper()
	for _, r := range s {
		if r < ' ' && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			t.Errorf("%s holds control character %U: %q", where, r, s)
			return
		}
	}
}

// checkCleanJSON checks every string of a decoded JSON value, keys too.
func checkCleanJSON(t *testing.T, where string, v any) {
	t.Helper()
	switch v := v.(type) {
	case string:
		checkClean(t, where, v)
	case map[string]any:
		for k, e := range v {
			checkClean(t, where+" key", k)
			checkCleanJSON(t, where+"."+k, e)
		}
	case []any:
		for _, e := range v {
			checkCleanJSON(t, where, e)
		}
	}
}

const hostileText = "Hello thereredmoved hidden?c1 end\n"

func TestControlSequencesRemoved(t *testing.T) {
	t.Parallel()
	t.Run("text", func(t *testing.T) {
		e := e2etest.New(t)
		e.Srv.Enqueue(hostileCall(e.WS), hostileReply())
		r := e.Run("-p", "hi")
		if r.Code != 0 {
			t.Fatalf("exit %d: %q", r.Code, r.Stderr)
		}
		checkClean(t, "stdout", r.Stdout)
		checkClean(t, "stderr", r.Stderr)
		if r.Stdout != hostileText {
			t.Errorf("stdout = %q, want %q", r.Stdout, hostileText)
		}
		if !strings.Contains(r.Stderr, "Error executing tool read_file") {
			t.Errorf("stderr lacks the tool error: %q", r.Stderr)
		}
	})
	t.Run("json", func(t *testing.T) {
		e := e2etest.New(t)
		e.Srv.Enqueue(hostileCall(e.WS), hostileReply())
		r := e.Run("-o", "json", "-p", "hi")
		if r.Code != 0 {
			t.Fatalf("exit %d: %q", r.Code, r.Stderr)
		}
		checkClean(t, "stderr", r.Stderr)
		var out map[string]any
		if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
			t.Fatalf("stdout is not JSON: %v\n%s", err, r.Stdout)
		}
		checkCleanJSON(t, "output", out)
		if out["response"] != hostileText {
			t.Errorf("response = %q", out["response"])
		}
	})
	t.Run("stream-json", func(t *testing.T) {
		e := e2etest.New(t)
		e.Srv.Enqueue(hostileCall(e.WS), hostileReply())
		r := e.Run("-o", "stream-json", "-p", "hi"+hostile[0])
		if r.Code != 0 {
			t.Fatalf("exit %d: %q", r.Code, r.Stderr)
		}
		checkClean(t, "stderr", r.Stderr)
		var text strings.Builder
		toolError := false
		for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			var ev map[string]any
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("line is not JSON: %q", line)
			}
			checkCleanJSON(t, "event", ev)
			if ev["type"] == "message" && ev["role"] == "assistant" {
				text.WriteString(ev["content"].(string))
			}
			if ev["type"] == "tool_result" && ev["error"] != nil {
				toolError = true
			}
		}
		if text.String() != hostileText {
			t.Errorf("assistant text = %q, want %q", text.String(), hostileText)
		}
		if !toolError {
			t.Error("no tool_result error event")
		}
	})
}

// TestSessionListCleaned: a prompt piped from a hostile file becomes the
// title --list-sessions shows; no control character reaches the terminal
// (today the session store already drops them from titles, leaving the
// printable rest of a sequence, and the CLI cleans the list again).
func TestSessionListCleaned(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("ok"))
	if r := e.Run("-p", "title "+hostile[0]+hostile[2]+hostile[10]+"end"); r.Code != 0 {
		t.Fatalf("exit %d: %q", r.Code, r.Stderr)
	}
	for _, format := range []string{"text", "json"} {
		r := e.Run("-o", format, "--list-sessions")
		checkNoControl(t, "session list", r.Stdout)
		if !strings.Contains(r.Stdout, "1. title ") {
			t.Errorf("session list = %q", r.Stdout)
		}
	}
}

func TestRawOutput(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		args    []string
		warning bool
	}{
		{"raw", []string{"--raw-output"}, true},
		{"raw, risk accepted", []string{"--raw-output", "--accept-raw-output-risk"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := e2etest.New(t)
			e.Srv.Enqueue(hostileReply())
			r := e.Run(append(tt.args, "-p", "hi")...)
			if r.Code != 0 {
				t.Fatalf("exit %d: %q", r.Code, r.Stderr)
			}
			for _, seq := range hostile {
				if !strings.Contains(r.Stdout, seq) {
					t.Errorf("stdout lacks %q: %q", seq, r.Stdout)
				}
			}
			if got := strings.Contains(r.Stderr, "--raw-output is on"); got != tt.warning {
				t.Errorf("warning printed: %v, want %v; stderr %q", got, tt.warning, r.Stderr)
			}
		})
	}
}
