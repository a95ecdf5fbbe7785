package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/mcp"
	"github.com/castor-dev/castor/tool"
)

func TestParseInputLine(t *testing.T) {
	tests := []struct {
		name, line string
		want       *inputLine
		err        string // substring of the error; "" for none
	}{
		{name: "blank", line: "  \t"},
		{name: "claude blocks", line: `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"session_id":"default","parent_tool_use_id":null}`,
			want: &inputLine{kind: inputUser, text: "a\nb"}},
		{name: "content string", line: `{"type":"user","message":{"role":"user","content":"hi @README.md"}}`,
			want: &inputLine{kind: inputUser, text: "hi @README.md"}},
		{name: "message string", line: `{"type":"user","message":"/review now"}`,
			want: &inputLine{kind: inputUser, text: "/review now"}},
		{name: "image", line: `{"type":"user","message":{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGk="}}]}}`,
			want: &inputLine{kind: inputUser}},
		{name: "permission", line: `{"type":"permission_response","tool_id":"write_file__x1","decision":"proceed_always"}`,
			want: &inputLine{kind: inputPermission, toolID: "write_file__x1", outcome: tool.ProceedAlways}},
		{name: "interrupt", line: `{"type":"control","subtype":"interrupt"}`,
			want: &inputLine{kind: inputControl, subtype: "interrupt"}},
		{name: "claude interrupt", line: `{"type":"control_request","request_id":"r9","request":{"subtype":"interrupt"}}`,
			want: &inputLine{kind: inputControl, subtype: "interrupt", requestID: "r9"}},
		{name: "claude other control", line: `{"type":"control_request","request_id":"r9","request":{"subtype":"set_model"}}`,
			want: &inputLine{kind: inputControl, subtype: "set_model", requestID: "r9"}},
		{name: "elicit accept", line: `{"type":"elicitation_response","request_id":"elicit_1","action":"accept","content":{"name":"Ada"}}`,
			want: &inputLine{kind: inputElicit, requestID: "elicit_1", action: mcp.ElicitAccept, content: json.RawMessage(`{"name":"Ada"}`)}},
		{name: "elicit decline", line: `{"type":"elicitation_response","request_id":"elicit_2","action":"decline","content":null}`,
			want: &inputLine{kind: inputElicit, requestID: "elicit_2", action: mcp.ElicitDecline}},

		{name: "not json", line: "hello", err: "not a JSON object"},
		{name: "array", line: `[1]`, err: "not a JSON object"},
		{name: "truncated", line: `{"type":"user"`, err: "invalid JSON"},
		{name: "no type", line: `{}`, err: `no "type"`},
		{name: "unknown type", line: `{"type":"assistant"}`, err: `unknown type "assistant"`},
		{name: "no message", line: `{"type":"user"}`, err: `without "message"`},
		{name: "empty text", line: `{"type":"user","message":"  "}`, err: "empty user message"},
		{name: "role", line: `{"type":"user","message":{"role":"assistant","content":"x"}}`, err: `role "assistant"`},
		{name: "no content", line: `{"type":"user","message":{"role":"user"}}`, err: `without "content"`},
		{name: "content number", line: `{"type":"user","message":{"content":3}}`, err: "string or an array"},
		{name: "type number", line: `{"type":5}`, err: `invalid JSON: "type" must be a string, not number`},
		{name: "content block number", line: `{"type":"user","message":{"content":[7]}}`, err: "must be an object, not number"},
		{name: "role number", line: `{"type":"user","message":{"role":1,"content":"x"}}`, err: `message: "role" must be a string, not number`},
		{name: "tool_result block", line: `{"type":"user","message":{"content":[{"type":"tool_result"}]}}`, err: `content block 0: unsupported type "tool_result"`},
		{name: "bad image", line: `{"type":"user","message":{"content":[{"type":"image","source":{"type":"url"}}]}}`, err: "base64 source"},
		{name: "bad base64", line: `{"type":"user","message":{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"!!"}}]}}`, err: "image data"},
		{name: "no tool id", line: `{"type":"permission_response","decision":"cancel"}`, err: `without "tool_id"`},
		{name: "bad decision", line: `{"type":"permission_response","tool_id":"x","decision":"yes"}`, err: `unknown decision "yes"`},
		{name: "editor decision", line: `{"type":"permission_response","tool_id":"x","decision":"modify_with_editor"}`, err: "unknown decision"},
		{name: "bad control", line: `{"type":"control","subtype":"stop"}`, err: `unknown control subtype "stop"`},
		{name: "control_request without id", line: `{"type":"control_request","request":{"subtype":"interrupt"}}`, err: "request_id"},
		{name: "elicit without id", line: `{"type":"elicitation_response","action":"cancel"}`, err: `without "request_id"`},
		{name: "elicit bad action", line: `{"type":"elicitation_response","request_id":"e","action":"yes"}`, err: `unknown action "yes"`},
		{name: "elicit content array", line: `{"type":"elicitation_response","request_id":"e","action":"accept","content":[1]}`, err: "must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseInputLine([]byte(tt.line))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil || got == nil {
				if tt.want != got {
					t.Fatalf("got %+v, want %+v", got, tt.want)
				}
				return
			}
			if got.kind != tt.want.kind || got.text != tt.want.text || got.toolID != tt.want.toolID ||
				got.outcome != tt.want.outcome || got.subtype != tt.want.subtype || got.requestID != tt.want.requestID ||
				got.action != tt.want.action || string(got.content) != string(tt.want.content) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	in, _ := parseInputLine([]byte(`{"type":"user","message":{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGk="}}]}}`))
	if len(in.images) != 1 || in.images[0].InlineData.MIMEType != "image/png" || string(in.images[0].InlineData.Data) != "hi" {
		t.Errorf("image parts = %+v", in.images)
	}
}

func FuzzParseInputLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"}]}}`,
		`{"type":"user","message":"x"}`,
		`{"type":"user","message":{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGk="}}]}}`,
		`{"type":"permission_response","tool_id":"t","decision":"cancel"}`,
		`{"type":"control","subtype":"interrupt"}`,
		`{"type":"control_request","request_id":"r","request":{"subtype":"interrupt"}}`,
		`{"type":"elicitation_response","request_id":"elicit_1","action":"accept","content":{"a":1}}`,
		"", "{", "null", `{"type":null}`, `{"type":5}`, `{"type":"user","message":{"content":[7]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := parseInputLine(b)
		if err != nil {
			if in != nil {
				t.Fatal("a line and an error")
			}
			if strings.Contains(err.Error(), "Go ") {
				t.Fatalf("error names Go types: %v", err)
			}
			return
		}
		if in == nil {
			if len(bytes.TrimSpace(b)) != 0 {
				t.Fatalf("non-blank line %q gave nothing", b)
			}
			return
		}
		switch in.kind {
		case inputUser:
			if strings.TrimSpace(in.text) == "" && len(in.images) == 0 {
				t.Fatal("empty user message accepted")
			}
		case inputPermission:
			if in.toolID == "" || !in.outcome.Valid() {
				t.Fatalf("permission %+v", in)
			}
		case inputControl:
			if in.subtype != "interrupt" && in.requestID == "" {
				t.Fatalf("control %+v", in)
			}
		case inputElicit:
			if in.requestID == "" || (len(in.content) > 0 && in.content[0] != '{') {
				t.Fatalf("elicitation answer %+v", in)
			}
		default:
			t.Fatalf("kind %d", in.kind)
		}
	})
}

func TestReadInputLines(t *testing.T) {
	type line struct {
		n    int
		text string
		long bool
	}
	tests := []struct {
		name, in string
		want     []line
	}{
		{"empty", "", nil},
		{"no final newline", "a\nb", []line{{1, "a", false}, {2, "b", false}}},
		{"crlf and blank", "a\r\n\r\nb\n", []line{{1, "a", false}, {2, "", false}, {3, "b", false}}},
		{"too long", "0123456789abcdef\nok\n0123456789abcdefXYZ", []line{{1, "", true}, {2, "ok", false}, {3, "", true}}},
		{"at the limit", "0123456789\n", []line{{1, "0123456789", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []line
			// One byte at a time, so that lines arrive in pieces.
			err := readInputLines(iotest.OneByteReader(strings.NewReader(tt.in)), 10, func(n int, b []byte, long bool) {
				got = append(got, line{n, string(b), long})
			})
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestJoinOptionalValuesEmptyPrompt(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"-p", "--input-format", "stream-json"}, []string{"--prompt=", "--input-format", "stream-json"}},
		{[]string{"-o", "stream-json", "-p"}, []string{"-o", "stream-json", "--prompt="}},
		{[]string{"-p", "hello", "--debug"}, []string{"-p", "hello", "--debug"}},
		{[]string{"-p", "-y"}, []string{"-p", "-y"}},
	}
	for _, tt := range tests {
		if got := joinOptionalValues(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("joinOptionalValues(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCheckInputFormat(t *testing.T) {
	tests := []struct {
		input, output, err string
	}{
		{"text", FormatText, ""},
		{"stream-json", FormatStreamJSON, ""},
		{"stream-json", FormatJSON, "needs --output-format stream-json"},
		{"xml", FormatStreamJSON, `invalid input format "xml"`},
	}
	for _, tt := range tests {
		err := checkInputFormat(&flags{inputFormat: tt.input, output: tt.output})
		if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s/%s: err = %v, want %q", tt.input, tt.output, err, tt.err)
		}
		if err != nil && exitCode(err) != ExitError {
			t.Errorf("%s/%s: exit %d", tt.input, tt.output, exitCode(err))
		}
	}
}

// checkGolden compares got with testdata/streamin/name.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, "streamin/"+name, got)
}

var timestamps = regexp.MustCompile(`"timestamp":"[^"]*"`)

// TestStreamSessionProtocol drives the session's input side without a
// model: a confirmation answered by a line (under the bare call id too),
// bad lines, control requests, and the end of input cancelling a
// confirmation. The lines written are pinned in a golden file.
func TestStreamSessionProtocol(t *testing.T) {
	var buf bytes.Buffer
	out := &streamRenderer{w: &lockedWriter{w: &buf}, errw: &buf}
	s := newStreamSession(out)
	orig := "old\n"
	call := &agent.ToolCall{ID: "c1", Name: "write_file", Description: "Writing to a.txt",
		Args: map[string]any{"file_path": "a.txt", "content": "new\x1b]0;title\x07\n"},
		Confirmation: &agent.Confirmation{CallID: "c1", Details: &tool.ConfirmationDetails{
			Type: tool.ConfirmEdit, Title: "Confirm Write: a.txt", FileName: "a.txt", FilePath: "/ws/a.txt",
			FileDiff: "-old\n+new\n", OriginalContent: &orig, NewContent: "new\n"}}}

	decided := make(chan tool.Decision)
	go func() {
		d, err := s.confirm(context.Background(), call)
		if err != nil {
			t.Error(err)
		}
		decided <- d
	}()
	waitFor(t, s, "c1")
	pr, pw := ioPipe()
	go s.read(pr)
	pw.line(`{"type":"permission_response","tool_id":"write_file__nope","decision":"cancel"}`)
	pw.line(`{"type":"user","message":"queued"}`)
	pw.line(`{"type":"permission_response","tool_id":"c1","decision":"proceed_always"}`)
	if d := <-decided; d.Outcome != tool.ProceedAlways {
		t.Errorf("decision = %+v", d)
	}
	pw.line(`{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}`)
	pw.line(`{"type":"control_request","request_id":"r2","request":{"subtype":"set_model"}}`)
	pw.line(`{"type":"user","message":{"content":[{"type":"text","text":"x"}`)
	pw.line("") // handled once the line before is

	// A call asked about after the last line is cancelled once stdin ends.
	shell := &agent.ToolCall{ID: "c2", Name: "run_shell_command", Args: map[string]any{"command": "ls"},
		Confirmation: &agent.Confirmation{CallID: "c2", Details: &tool.ConfirmationDetails{Type: tool.ConfirmExec, Title: "Confirm Shell Command", Command: "ls", RootCommand: "ls", RootCommands: []string{"ls"}}}}
	go func() {
		d, _ := s.confirm(context.Background(), shell)
		decided <- d
	}()
	waitFor(t, s, "c2")
	pw.Close()
	if d := <-decided; d.Outcome != tool.Cancel {
		t.Errorf("decision at EOF = %+v", d)
	}
	if in, ok := s.next(context.Background()); !ok || in.text != "queued" {
		t.Errorf("next = %+v, %v", in, ok)
	}
	if _, ok := s.next(context.Background()); ok {
		t.Error("a message after EOF")
	}
	if d, _ := s.confirm(context.Background(), shell); d.Outcome != tool.Cancel {
		t.Errorf("confirmation after EOF = %+v", d)
	}
	got := timestamps.ReplaceAll(buf.Bytes(), []byte(`"timestamp":"T"`))
	if !utf8.Valid(got) {
		t.Fatal("output is not UTF-8")
	}
	checkGolden(t, "protocol.jsonl", got)
}

// waitFor waits until a confirmation of call id is registered: the test
// answers it only then, as a host answers only what it was asked.
func waitFor(t *testing.T, s *streamSession, id string) {
	t.Helper()
	for {
		s.mu.Lock()
		_, ok := s.waiting[id]
		s.mu.Unlock()
		if ok && written(s, `"permission_request"`, `__`+id+`"`) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// written reports whether the session's output (a lockedWriter over a
// bytes.Buffer) holds a line with every one of parts: a confirmation is
// registered before its permission_request is written, and a line the
// test sends next must not overtake it in the golden output.
func written(s *streamSession, parts ...string) bool {
	lw, ok := s.out.w.(*lockedWriter)
	if !ok {
		return true
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	buf, ok := lw.w.(*bytes.Buffer)
	if !ok {
		return true
	}
	for l := range strings.SplitSeq(buf.String(), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return true
		}
	}
	return false
}

// linePipe writes input lines; io.Pipe returns from a write only once the
// reader took it, which here is after the line before was handled.
type linePipe struct{ *io.PipeWriter }

func ioPipe() (*io.PipeReader, linePipe) {
	r, w := io.Pipe()
	return r, linePipe{w}
}

func (p linePipe) line(s string) { io.WriteString(p, s+"\n") }

func TestTurnStats(t *testing.T) {
	before := castorStatsZero()
	before.Models["a"] = &agent.ModelStats{API: agent.APIStats{TotalRequests: 2}, Tokens: agent.TokenStats{Total: 100, Prompt: 80, Candidates: 20}}
	before.Tools.TotalCalls = 3
	now := castorStatsZero()
	now.Models["a"] = &agent.ModelStats{API: agent.APIStats{TotalRequests: 2}, Tokens: agent.TokenStats{Total: 100, Prompt: 80, Candidates: 20}}
	now.Models["b"] = &agent.ModelStats{API: agent.APIStats{TotalRequests: 1}, Tokens: agent.TokenStats{Total: 30, Prompt: 25, Candidates: 5}}
	now.Tools.TotalCalls = 4
	got := turnStats(now, before)
	if _, ok := got.Models["a"]; ok || got.Models["b"].Tokens.Total != 30 || got.Tools.TotalCalls != 1 {
		t.Errorf("turnStats = %s", mustJSONInternal(got))
	}
	now.Models["a"].Tokens = agent.TokenStats{Total: 150, Prompt: 120, Candidates: 30}
	now.Models["a"].API.TotalRequests = 3
	if got := turnStats(now, before); got.Models["a"].Tokens.Total != 50 || got.Models["a"].Tokens.Prompt != 40 {
		t.Errorf("turnStats = %s", mustJSONInternal(got))
	}
	if before.Models["a"].Tokens.Total != 100 {
		t.Error("turnStats changed its input")
	}
}

func mustJSONInternal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func FuzzReadInputLines(f *testing.F) {
	for _, s := range []string{"", "a\nb", "a\r\n\r\nb\n", "0123456789abcdef\nok\n", "\n\n\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 8
		want := 0
		err := readInputLines(bytes.NewReader(in), max, func(n int, line []byte, long bool) {
			want++
			if n != want {
				t.Fatalf("line %d numbered %d", want, n)
			}
			if long && len(line) != 0 || len(line) > max || bytes.ContainsAny(line, "\n") {
				t.Fatalf("line %d = %q (long %v)", n, line, long)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if lines := bytes.Count(in, []byte("\n")); want != lines && want != lines+1 {
			t.Fatalf("%d lines for %d newlines", want, lines)
		}
	})
}

// An interrupt that comes before the turn of the message sent just before
// it started still cancels that turn, and only that one.
func TestStreamSessionInterruptBeforeTurn(t *testing.T) {
	var buf bytes.Buffer
	s := newStreamSession(&streamRenderer{w: &lockedWriter{w: &buf}, errw: &buf})
	s.read(strings.NewReader(`{"type":"user","message":"a"}` + "\n" + `{"type":"control","subtype":"interrupt"}` + "\n" + `{"type":"user","message":"b"}` + "\n"))
	a, _ := s.next(context.Background())
	b, _ := s.next(context.Background())
	if a == nil || b == nil || !a.interrupted || b.interrupted {
		t.Errorf("a %+v, b %+v", a, b)
	}
	// Between leaving the queue and starting, a message is in progress.
	s = newStreamSession(&streamRenderer{w: &lockedWriter{w: &buf}, errw: &buf})
	s.queue = []*inputLine{{kind: inputUser, text: "c"}}
	c, _ := s.next(context.Background())
	s.control(1, &inputLine{kind: inputControl, subtype: "interrupt"})
	if !c.interrupted {
		t.Error("the message taken from the queue was not interrupted")
	}
	if buf.Len() != 0 {
		t.Errorf("output: %s", buf.String())
	}
}
