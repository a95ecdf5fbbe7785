package headless_test

import (
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestStreamJSONInterruptMidAnswerKeepsHistoryValid interrupts the built
// binary while the model's answer streams: the next prompt's request
// holds the answer's first part as the model's turn, so roles alternate
// (user, model, user) rather than two user contents in a row, and so do
// the requests of the session resumed from its recording.
func TestStreamJSONInterruptMidAnswerKeepsHistoryValid(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	// The second chunk comes seconds after the first, long after the
	// interrupt that follows the first has landed.
	e.Srv.Enqueue(fakegemini.Text("Part one.", " Part two.").Slow(3*time.Second), fakegemini.Text("After."))
	p := e.StartStream("--input-format", "stream-json", "-o", "stream-json")

	p.Send(`{"type":"user","message":"first"}`)
	for {
		if ev := p.Until("message"); ev["role"] == "assistant" {
			break
		}
	}
	p.Send(`{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}`)
	if res := p.Until("result"); res["status"] != "error" {
		t.Errorf("interrupted result = %v", res)
	}
	p.Send(`{"type":"user","message":"second"}`)
	if res := p.Until("result"); res["status"] != "success" {
		t.Errorf("turn after interrupt = %v", res)
	}
	if code := p.Close(); code != 0 {
		t.Errorf("exit %d; stderr: %s", code, p.Stderr.String())
	}
	contents := e.Srv.LastRequest().Contents
	var roles []string
	for _, c := range contents {
		roles = append(roles, c.Role)
	}
	if strings.Join(roles, " ") != "user model user" {
		t.Fatalf("roles %v: %s", roles, e2etest.MustJSON(contents))
	}
	if got := contents[1].Parts[0].Text; got != "Part one." {
		t.Errorf("kept answer %q", got)
	}
	if got := contents[2].Parts[len(contents[2].Parts)-1].Text; got != "second" {
		t.Errorf("next prompt %q", got)
	}

	// The recording holds the same turns: resumed, the session's next
	// request alternates too, the cut answer in its place.
	e.Srv.Enqueue(fakegemini.Text("Third."))
	if r := e.Run("--resume", "latest", "-p", "third"); r.Code != 0 {
		t.Fatalf("resume exit %d: %s", r.Code, r.Stderr)
	}
	contents = e.Srv.LastRequest().Contents
	roles = roles[:0]
	for _, c := range contents {
		roles = append(roles, c.Role)
	}
	if strings.Join(roles, " ") != "user model user model user" || contents[1].Parts[0].Text != "Part one." {
		t.Errorf("resumed request roles %v: %s", roles, e2etest.MustJSON(contents))
	}
}
