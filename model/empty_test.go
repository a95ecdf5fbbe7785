package model_test

import (
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
)

func TestEmptyResponseRetried(t *testing.T) {
	empty := fakegemini.Text("")
	thoughtOnly := fakegemini.Thought("**Hmm**")
	tests := []struct {
		name      string
		replies   []fakegemini.Reply
		want      string
		wantKinds string
		requests  int
	}{
		{"answer at once", []fakegemini.Reply{fakegemini.Text("hi")}, "hi", "", 1},
		{"empty then answer", []fakegemini.Reply{empty, fakegemini.Text("hi")}, "hi", "retry", 2},
		{"thought only then answer", []fakegemini.Reply{thoughtOnly, fakegemini.Text("hi")}, "hi", "retry", 2},
		{"empty four times", []fakegemini.Reply{empty, empty, empty, empty, fakegemini.Text("never")}, "", "retry,retry,retry", 4},
		{"blocked is not retried", []fakegemini.Reply{fakegemini.Text("").Finish("SAFETY"), fakegemini.Text("never")}, "", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, model.RetryOptions{}, tt.replies...)
			got, _, err := streamText(t, h.r, h.req("gemini-3.1-pro-preview"))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || h.notices.kinds() != tt.wantKinds || len(h.srv.Requests()) != tt.requests {
				t.Errorf("text %q notices %q requests %d", got, h.notices.kinds(), len(h.srv.Requests()))
			}
		})
	}
}
