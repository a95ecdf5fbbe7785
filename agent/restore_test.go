package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// TestRestorePending: a batch paused in one session, recorded with
// PausedCalls (through JSON, as a store keeps it) and restored in a new
// session over the same history, resumes exactly as the original would.
func TestRestorePending(t *testing.T) {
	for _, answer := range []tool.Outcome{tool.ProceedOnce, tool.Cancel} {
		t.Run(string(answer), func(t *testing.T) {
			turns := func() [][]*genai.Part {
				return [][]*genai.Part{
					{{Text: "Working."}, callID("n1", "nope", "x"), callID("r1", "read", "a"), callID("e1", "edit", "b")},
					{{Text: "done"}},
				}
			}
			resume := func(s *Session) ([]string, []*genai.Content) {
				t.Helper()
				for _, c := range s.Pending() {
					if err := s.Answer(c.ID, tool.Decision{Outcome: answer}); err != nil {
						t.Fatal(err)
					}
				}
				evs, err := collect(t, s.Resume(context.Background()))
				if err != nil {
					t.Fatal(err)
				}
				return trace(evs), s.History()
			}
			newSession := func(m *scripted, ran *[]string, hist []*genai.Content) *Session {
				var mu sync.Mutex
				return New(Config{
					Model: m, ModelName: "gemini-2.5-pro", SessionID: "s1", History: hist,
					Tools:  tool.NewRegistry(echoTool{name: "edit", kind: tool.KindEdit, ran: ran, mu: &mu}, echoTool{name: "read", kind: tool.KindRead, ran: ran, mu: &mu}),
					Policy: policy.New(policy.Options{Mode: policy.ModeDefault, Interactive: true}),
				})
			}

			var ranA []string
			a := newSession(&scripted{turns: turns()}, &ranA, nil)
			if _, err := collect(t, a.Send(context.Background(), genai.NewPartFromText("go"))); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(a.PausedCalls())
			var recs []PendingCall
			if err := json.Unmarshal(b, &recs); err != nil {
				t.Fatal(err)
			}
			hist := a.History()

			// The new process: the history without the paused response,
			// then the records.
			var ranB []string
			m := &scripted{turns: turns()[1:]}
			bs := newSession(m, &ranB, hist[:len(hist)-1])
			if err := bs.RestorePending(context.Background(), hist[len(hist)-1], recs); err != nil {
				t.Fatal(err)
			}
			if p := bs.Pending(); len(p) != 1 || p[0].ID != "e1" || p[0].Confirmation == nil || p[0].Confirmation.Details.Title != "echo b" {
				t.Fatalf("restored pending = %s", mustJSON(p))
			}

			wantTrace, wantHist := resume(a)
			gotTrace, gotHist := resume(bs)
			if d := cmp.Diff(wantTrace, gotTrace); d != "" {
				t.Errorf("resumed events differ (-original +restored):\n%s", d)
			}
			if d := cmp.Diff(mustJSON(wantHist), mustJSON(gotHist)); d != "" {
				t.Errorf("history differs (-original +restored):\n%s", d)
			}
			if strings.Join(ranA, ",") != strings.Join(ranB, ",") {
				t.Errorf("ran %v after the restore, %v in the original", ranB, ranA)
			}
		})
	}
}

func TestRestorePendingRefuses(t *testing.T) {
	s := newTestSession(&scripted{}, policy.ModeDefault, true)
	for _, c := range []*genai.Content{nil, genai.NewContentFromText("hi", genai.RoleUser), genai.NewContentFromText("hi", genai.RoleModel)} {
		if err := s.RestorePending(context.Background(), c, nil); err == nil {
			t.Errorf("RestorePending(%s) succeeded", mustJSON(c))
		}
	}
	if len(s.History()) != 0 {
		t.Errorf("a refused restore changed the history: %s", mustJSON(s.History()))
	}
}
