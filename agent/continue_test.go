package agent

import (
	"context"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

const restartReason = "the server restarted before the call was confirmed."

// editSession returns a session whose edits ask for confirmation, with
// what they ran recorded in ran.
func editSession(m *scripted, ran *[]string) *Session {
	var mu sync.Mutex
	return New(Config{
		Model: m, ModelName: "gemini-2.5-pro", SessionID: "s1",
		Tools:  tool.NewRegistry(echoTool{name: "edit", kind: tool.KindEdit, ran: ran, mu: &mu}),
		Policy: policy.New(policy.Options{Mode: policy.ModeDefault, Interactive: true}),
	})
}

// pausedSession returns an editSession paused on the calls of its first
// model response; its next response says "done".
func pausedSession(t *testing.T, calls ...*genai.Part) *Session {
	t.Helper()
	var ran []string
	s := editSession(&scripted{turns: [][]*genai.Part{calls, {{Text: "done"}}}}, &ran)
	if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go"))); err != nil {
		t.Fatal(err)
	}
	return s
}

func pendingIDs(s *Session) string {
	var ids []string
	for _, c := range s.Pending() {
		ids = append(ids, c.ID)
	}
	return strings.Join(ids, ",")
}

// TestContinue: a conversation stored with the calls its last turn paused
// on is taken up by a new session, which pauses on them again when the
// records match and answers every other unanswered call as cancelled.
func TestContinue(t *testing.T) {
	a := pausedSession(t, callID("e1", "edit", "a"), callID("e2", "edit", "b"))
	conv, recs := a.History(), a.PausedCalls()
	if len(recs) != 2 {
		t.Fatalf("paused calls = %s", mustJSON(recs))
	}
	tests := []struct {
		name    string
		paused  []PendingCall
		pending string
		// cancelled: the stored calls are answered as cancelled with the
		// restart reason.
		cancelled bool
	}{
		{"pending restored", recs, "e1,e2", false},
		{"one call of two recorded", recs[1:], "e2", false},
		{"pending not matching the last response", []PendingCall{{ID: "zz", Name: "edit", Status: StatusAwaitingApproval}}, "", true},
		{"no pending", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ranB []string
			b := editSession(&scripted{turns: [][]*genai.Part{{{Text: "done"}}}}, &ranB)
			if err := b.Continue(context.Background(), conv, tt.paused, restartReason); err != nil {
				t.Fatalf("Continue: %v", err)
			}
			if got := pendingIDs(b); got != tt.pending {
				t.Errorf("pending = %q, want %q", got, tt.pending)
			}
			h := b.History()
			last := mustJSON(h[len(h)-1])
			if got := strings.Contains(last, restartReason); got != tt.cancelled {
				t.Errorf("last content %s: restart reason there = %v, want %v", last, got, tt.cancelled)
			}
			if tt.cancelled && len(h) != len(conv)+1 {
				t.Errorf("history has %d contents, want the %d stored and the answers", len(h), len(conv))
			}
			// The session goes on either way: a paused one once answered,
			// another with its next prompt.
			seq := b.Send(context.Background(), genai.NewPartFromText("next"))
			if tt.pending != "" {
				for _, c := range b.Pending() {
					if err := b.Answer(c.ID, tool.Decision{Outcome: tool.ProceedOnce}); err != nil {
						t.Fatal(err)
					}
				}
				seq = b.Resume(context.Background())
			}
			evs, err := collect(t, seq)
			if err != nil {
				t.Fatalf("next turn: %v", err)
			}
			if end := evs[len(evs)-1]; end.Type != EventTurnEnd || end.Text != "done" {
				t.Errorf("next turn ended with %s", mustJSON(end))
			}
			if want := len(strings.Split(tt.pending, ",")); tt.pending != "" && len(ranB) != want {
				t.Errorf("ran %v after the answers, want %d calls", ranB, want)
			}
		})
	}
}

// TestContinueRefused: when the engine cannot pause on the stored calls
// again, they are answered as cancelled with the reason, and the error
// says why.
func TestContinueRefused(t *testing.T) {
	// A session already paused on a batch of its own refuses another.
	s := pausedSession(t, callID("e1", "edit", "a"))
	other := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{callID("x1", "edit", "x")}}
	err := s.pauseAgain(context.Background(), other, []PendingCall{{ID: "x1", Name: "edit", Status: StatusAwaitingApproval}}, restartReason)
	if err == nil {
		t.Fatal("pauseAgain succeeded on a paused session")
	}
	h := s.History()
	last := h[len(h)-1]
	if last.Role != genai.RoleUser || len(last.Parts) != 1 || last.Parts[0].FunctionResponse == nil || last.Parts[0].FunctionResponse.ID != "x1" ||
		!strings.Contains(mustJSON(last), restartReason) {
		t.Errorf("refused calls not answered as cancelled: %s", mustJSON(last))
	}
	if mustJSON(h[len(h)-2]) != mustJSON(other) {
		t.Errorf("the paused response is not kept before its answers: %s", mustJSON(h[len(h)-2]))
	}
}

func TestContinueBusy(t *testing.T) {
	s := editSession(&scripted{}, nil)
	s.turn.Lock()
	defer s.turn.Unlock()
	if err := s.Continue(context.Background(), []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}, nil, ""); err != ErrBusy {
		t.Errorf("Continue during a turn = %v, want ErrBusy", err)
	}
	if len(s.History()) != 0 {
		t.Errorf("a busy Continue changed the history: %s", mustJSON(s.History()))
	}
}

// TestContinueFirstPrompt: a session continued from a conversation sends
// its next prompt without the environment context (which the conversation
// began with); one continued from nothing sends it, as a new session does.
func TestContinueFirstPrompt(t *testing.T) {
	conv := []*genai.Content{genai.NewContentFromText("earlier", genai.RoleUser), genai.NewContentFromText("reply", genai.RoleModel)}
	for _, tt := range []struct {
		name    string
		conv    []*genai.Content
		withEnv bool
	}{
		{"from a conversation", conv, false},
		{"from nothing", nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &scripted{turns: [][]*genai.Part{{{Text: "ok"}}}}
			s := New(Config{Model: m, ModelName: "gemini-2.5-pro", EnvContext: func() string { return "ENV" }})
			if err := s.Continue(context.Background(), tt.conv, nil, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("next"))); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(requestText(m.reqs[0].Contents), "ENV"); got != tt.withEnv {
				t.Errorf("environment context sent = %v, want %v: %q", got, tt.withEnv, requestText(m.reqs[0].Contents))
			}
		})
	}
}
