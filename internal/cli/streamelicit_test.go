package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/castor-dev/castor/mcp"
)

// TestStreamElicitAnswers drives one session's questions in process: the
// request line names the question; an unknown id and a form answer that
// does not fit are refused and leave the question open; an interrupt
// dismisses it. The request lines are pinned in testdata/streamin.
func TestStreamElicitAnswers(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	var stderr strings.Builder
	s := newStreamSession(&streamRenderer{w: &lockedWriter{w: pw}, errw: &stderr})
	lines := bufio.NewScanner(pr)
	// Before stdin is read (MCP servers connecting) nobody can answer.
	if res, err := s.elicit(context.Background(), mcp.ElicitRequest{Server: "srv", Mode: mcp.ElicitForm, Message: "Early?"}); err != nil || res.Action != mcp.ElicitDecline {
		t.Errorf("early question: %+v, %v", res, err)
	}
	if want := `Warning: MCP server 'srv' asked: "Early?". Declined: castor is still starting.`; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q lacks %q", stderr.String(), want)
	}
	s.reading = true
	var written []byte // the request lines, pinned in a golden file
	schema := map[string]any{"type": "object", "properties": map[string]any{"age": map[string]any{"type": "integer", "default": 7}}}
	ask := func(req mcp.ElicitRequest) (map[string]any, chan mcp.ElicitResult) {
		t.Helper()
		got := make(chan mcp.ElicitResult, 1)
		go func() {
			res, err := s.elicit(context.Background(), req)
			if err != nil {
				t.Error(err)
			}
			got <- res
		}()
		if !lines.Scan() {
			t.Fatal("no request line")
		}
		written = append(written, timestamps.ReplaceAll(lines.Bytes(), []byte(`"timestamp":"T"`))...)
		written = append(written, '\n')
		var line map[string]any
		if err := json.Unmarshal(lines.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		return line, got
	}
	answer := func(js string) error {
		t.Helper()
		in, err := parseInputLine([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		return s.answerElicit(in)
	}

	line, got := ask(mcp.ElicitRequest{Server: "srv", Mode: mcp.ElicitForm, Message: "How old\x1b[2J?", Schema: schema})
	if line["type"] != "elicitation_request" || line["request_id"] != "elicit_1" || line["message"] != "How old?" || line["mcp_server_name"] != "srv" {
		t.Fatalf("request line = %v", line)
	}
	for _, tt := range []struct{ line, err string }{
		{`{"type":"elicitation_response","request_id":"elicit_9","action":"cancel"}`, `no elicitation request is pending for request_id "elicit_9"`},
		{`{"type":"elicitation_response","request_id":"elicit_1","action":"accept","content":{"age":"old"}}`, "elicitation_response for elicit_1: elicitation content does not match the requested schema"},
	} {
		if err := answer(tt.line); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: err = %v, want %q", tt.line, err, tt.err)
		}
	}
	// Accepted without content: the schema's defaults fill it in.
	if err := answer(`{"type":"elicitation_response","request_id":"elicit_1","action":"accept"}`); err != nil {
		t.Fatal(err)
	}
	if res := <-got; res.Action != mcp.ElicitAccept || res.Content["age"] != float64(7) {
		t.Errorf("result = %+v", res)
	}

	line, got = ask(mcp.ElicitRequest{Server: "srv", Mode: mcp.ElicitURL, Message: "Sign in", URL: "https://example.com/a", ElicitationID: "e1"})
	if line["request_id"] != "elicit_2" || line["url"] != "https://example.com/a" || line["requested_schema"] != nil {
		t.Fatalf("url request line = %v", line)
	}
	s.control(1, &inputLine{kind: inputControl, subtype: "interrupt"})
	if res := <-got; res.Action != mcp.ElicitCancel {
		t.Errorf("after interrupt: %+v", res)
	}
	if err := answer(`{"type":"elicitation_response","request_id":"elicit_2","action":"accept"}`); err == nil {
		t.Error("an answer to a dismissed question was taken")
	}
	checkGolden(t, "elicit.jsonl", written)
}
