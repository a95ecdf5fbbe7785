package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// TestDisableLoopDetection: once the session's loop detection is turned
// off (the terminal's loop dialog), the chanting that stopped a prompt
// runs to its end in the next one, the stopped one's detector unchanged.
func TestDisableLoopDetection(t *testing.T) {
	chant := strings.Repeat("I will now do the same thing over and over again. ", 30)
	m := &scripted{turns: [][]*genai.Part{{{Text: chant}}, {{Text: chant}}, {{Text: chant}}}}
	s := newTestSession(m, "", false)
	if s.LoopDetectionDisabled() {
		t.Fatal("disabled before asked")
	}
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go"))); !errors.Is(err, ErrLoopDetected) {
		t.Fatalf("first prompt: err = %v", err)
	}
	s.DisableLoopDetection()
	if !s.LoopDetectionDisabled() {
		t.Fatal("not disabled")
	}
	evs, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go")))
	if err != nil {
		t.Fatalf("second prompt: %v", err)
	}
	var text string
	for _, ev := range evs {
		if ev.Type == EventLoopDetected {
			t.Fatalf("loop detected after DisableLoopDetection: %q", ev.Text)
		}
		if ev.Type == EventContent {
			text += ev.Text
		}
	}
	if text != chant {
		t.Errorf("answer cut: %d bytes of %d", len(text), len(chant))
	}
}

// TestDisableLoopDetectionObserved: turning loop detection off is told to
// an Observer once, with the latest prompt's id, as Gemini CLI logs
// loop_detection_disabled.
func TestDisableLoopDetectionObserved(t *testing.T) {
	obs := &recordingObserver{}
	s := New(Config{Model: &scripted{turns: [][]*genai.Part{{{Text: "a"}}, {{Text: "b"}}}}, ModelName: "gemini-2.5-pro", SessionID: "s1",
		Tools: tool.NewRegistry(), Policy: policy.New(policy.Options{}), Observer: obs})
	for range 2 {
		if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go"))); err != nil {
			t.Fatal(err)
		}
	}
	s.DisableLoopDetection()
	s.DisableLoopDetection()
	var got []string
	for _, l := range obs.lines {
		if strings.HasPrefix(l, "loop detection disabled") {
			got = append(got, l)
		}
	}
	if want := []string{"loop detection disabled s1 s1########2"}; !slices.Equal(got, want) {
		t.Errorf("observed %q, want %q", got, want)
	}
}
