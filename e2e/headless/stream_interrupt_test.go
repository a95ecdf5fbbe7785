package cli_test

import (
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestStreamJSONInterruptMidAnswerKeepsHistoryValid interrupts the built
// binary while the model's answer streams: the next prompt's request
// holds the answer's first part as the model's turn, so roles alternate
// (user, model, user) rather than two user contents in a row, and so do
// the requests of the session resumed from its recording.
func TestStreamJSONInterruptMidAnswerKeepsHistoryValid(t *testing.T) {
	e := newEnv(t)
	// The second chunk comes seconds after the first, long after the
	// interrupt that follows the first has landed.
	e.srv.Enqueue(fakegemini.Text("Part one.", " Part two.").Slow(3*time.Second), fakegemini.Text("After."))
	p := e.startStream("--input-format", "stream-json", "-o", "stream-json")

	p.send(`{"type":"user","message":"first"}`)
	for {
		if ev := p.until("message"); ev["role"] == "assistant" {
			break
		}
	}
	p.send(`{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}`)
	if res := p.until("result"); res["status"] != "error" {
		t.Errorf("interrupted result = %v", res)
	}
	p.send(`{"type":"user","message":"second"}`)
	if res := p.until("result"); res["status"] != "success" {
		t.Errorf("turn after interrupt = %v", res)
	}
	if code := p.close(); code != 0 {
		t.Errorf("exit %d; stderr: %s", code, p.stderr.String())
	}
	contents := e.srv.LastRequest().Contents
	var roles []string
	for _, c := range contents {
		roles = append(roles, c.Role)
	}
	if strings.Join(roles, " ") != "user model user" {
		t.Fatalf("roles %v: %s", roles, mustJSON(contents))
	}
	if got := contents[1].Parts[0].Text; got != "Part one." {
		t.Errorf("kept answer %q", got)
	}
	if got := contents[2].Parts[len(contents[2].Parts)-1].Text; got != "second" {
		t.Errorf("next prompt %q", got)
	}

	// The recording holds the same turns: resumed, the session's next
	// request alternates too, the cut answer in its place.
	e.srv.Enqueue(fakegemini.Text("Third."))
	if r := e.run("--resume", "latest", "-p", "third"); r.code != 0 {
		t.Fatalf("resume exit %d: %s", r.code, r.stderr)
	}
	contents = e.srv.LastRequest().Contents
	roles = roles[:0]
	for _, c := range contents {
		roles = append(roles, c.Role)
	}
	if strings.Join(roles, " ") != "user model user model user" || contents[1].Parts[0].Text != "Part one." {
		t.Errorf("resumed request roles %v: %s", roles, mustJSON(contents))
	}
}
