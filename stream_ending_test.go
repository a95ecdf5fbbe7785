package castor_test

import (
	"context"
	"encoding/json"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestStreamEndedEarlyThenNextPrompt is the SDK bug bash's report, over
// the real Gemini API client and the fake server: a Stream that ends
// early (the caller stops ranging, the connection is cut mid-answer, the
// service fails mid-answer) keeps the partial answer, and the next prompt
// goes in a request whose roles alternate.
func TestStreamEndedEarlyThenNextPrompt(t *testing.T) {
	for _, tt := range []struct {
		name  string
		first fakegemini.Reply
		stop  bool // break out of the range at the first content
	}{
		{name: "caller stops ranging", first: fakegemini.Text("Part one.", " Part two."), stop: true},
		{name: "connection cut", first: fakegemini.Text("Part one.", " Part two.").CutAfter(1)},
		{name: "service fails mid-answer", first: fakegemini.Text("Part one.", " Part two.").FailAfter(1, fakegemini.Error(400, "bad"))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakegemini.Start(t, tt.first, fakegemini.Text("Second answer."))
			a := newAgent(t, srv)
			for ev, err := range a.Stream(context.Background(), "first") {
				if err != nil {
					break
				}
				if tt.stop && ev.Type == agent.EventContent {
					break
				}
			}
			res, err := a.Send(context.Background(), "second")
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "Second answer." {
				t.Errorf("Text = %q", res.Text)
			}
			contents := srv.LastRequest().Contents
			roles := ""
			for _, c := range contents {
				roles += c.Role + " "
			}
			if roles != "user model user " {
				b, _ := json.Marshal(contents)
				t.Fatalf("roles %q: %s", roles, b)
			}
			if got := contents[1].Parts[0].Text; got != "Part one." {
				t.Errorf("kept answer %q", got)
			}
			if last := contents[2]; len(last.Parts) != 1 || last.Parts[0].Text != "second" || last.Role != genai.RoleUser {
				b, _ := json.Marshal(last)
				t.Errorf("last content %s", b)
			}
		})
	}
}
